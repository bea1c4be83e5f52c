# results/ follows its retention rule (results/README.md): the committed tree passes
# scripts/results_retention.py check; on a small synthetic tree every kind of violation is reported
# and `apply` leaves a tree that passes; a simulated device's run archives outside results/.
# docs/results.md's tables are the ones scripts/results_table.py generates from the kept archives.
find_program(MEMHIER_PYTHON3_RESULTS python3)
if(MEMHIER_PYTHON3_RESULTS)
  add_test(NAME cli_results_retention
           COMMAND ${MEMHIER_PYTHON3_RESULTS} ${PROJECT_SOURCE_DIR}/scripts/results_retention.py check results
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME cli_results_retention_synthetic
           COMMAND ${MEMHIER_PYTHON3_RESULTS} ${CMAKE_CURRENT_SOURCE_DIR}/cli/results/check_retention.py
                   ${PROJECT_SOURCE_DIR}/scripts ${CMAKE_CURRENT_BINARY_DIR}/cli_results_retention)
  add_test(NAME cli_results_tables
           COMMAND ${MEMHIER_PYTHON3_RESULTS} ${PROJECT_SOURCE_DIR}/scripts/results_table.py --check docs/results.md --results results
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  add_test(NAME cli_results_tables_detects
           COMMAND ${MEMHIER_PYTHON3_RESULTS} ${CMAKE_CURRENT_SOURCE_DIR}/cli/results/check_tables.py
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_results_tables)
  set_tests_properties(cli_results_retention cli_results_retention_synthetic cli_results_tables
                       cli_results_tables_detects PROPERTIES LABELS cli TIMEOUT 120)
  # A simulated device's run leaves the checkout clean (its archive under sim-results/), and the
  # retention check fails on a simulated archive under results/.
  find_program(MEMHIER_GIT_RESULTS git)
  if(MEMHIER_GIT_RESULTS)
    add_test(NAME cli_results_sim_default
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/results/check_sim_default.sh
                     ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_results_sim_default)
    set_tests_properties(cli_results_sim_default PROPERTIES LABELS cli TIMEOUT 600)
  endif()
endif()
