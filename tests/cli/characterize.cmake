# scripts/characterize.sh end to end on the simulated device (no GPU needed).
add_test(NAME cli_characterize_sim
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/characterize/run_characterize_test.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_characterize)
set_tests_properties(cli_characterize_sim PROPERTIES LABELS cli TIMEOUT 600)
