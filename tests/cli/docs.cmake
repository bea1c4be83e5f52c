# The figures README.md and docs/ci.md quote (wall time, runs, plan size, hostile inputs) are
# generated from the kept archives and docs/hostile_inputs.md (scripts/doc_figures.py): the text
# must say what the data say, and a stale figure must be caught.
find_program(MEMHIER_PYTHON3_DOCS python3)
if(MEMHIER_PYTHON3_DOCS)
  add_test(NAME cli_doc_figures
           COMMAND ${MEMHIER_PYTHON3_DOCS} ${PROJECT_SOURCE_DIR}/scripts/doc_figures.py --results ${PROJECT_SOURCE_DIR}/results
                   ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/ci.md ${PROJECT_SOURCE_DIR}/docs/usage.md)
  add_test(NAME cli_doc_figures_detects
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/docs/doc_figures_detects.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_doc_figures)
  # Every path and script README.md and docs/ name exists; every default the option tables state
  # is the one --help states (tests/cli/docs/check_doc_paths.py); and the check catches both.
  add_test(NAME cli_doc_paths
           COMMAND ${MEMHIER_PYTHON3_DOCS} ${CMAKE_CURRENT_SOURCE_DIR}/cli/docs/check_doc_paths.py ${PROJECT_SOURCE_DIR})
  add_test(NAME cli_doc_paths_detects
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/docs/doc_paths_detects.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_doc_paths)
  set_tests_properties(cli_doc_figures cli_doc_figures_detects cli_doc_paths cli_doc_paths_detects PROPERTIES LABELS cli)
endif()
