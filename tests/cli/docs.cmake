# The figures README.md and docs/ci.md quote (wall time, runs, plan size, hostile inputs) are
# generated from the kept archives and docs/hostile_inputs.md (scripts/doc_figures.py): the text
# must say what the data say, and a stale figure must be caught.
find_program(MEMHIER_PYTHON3_DOCS python3)
if(MEMHIER_PYTHON3_DOCS)
  add_test(NAME cli_doc_figures
           COMMAND ${MEMHIER_PYTHON3_DOCS} ${PROJECT_SOURCE_DIR}/scripts/doc_figures.py --results ${PROJECT_SOURCE_DIR}/results
                   ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/ci.md)
  add_test(NAME cli_doc_figures_detects
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/docs/doc_figures_detects.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_doc_figures)
  set_tests_properties(cli_doc_figures cli_doc_figures_detects PROPERTIES LABELS cli)
endif()
