# scripts/characterize.sh end to end on the simulated device (no GPU needed).
add_test(NAME cli_characterize_sim
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/characterize/run_characterize_test.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_characterize)
set_tests_properties(cli_characterize_sim PROPERTIES LABELS cli TIMEOUT 600)
# The archive records the run's wall time and stages as printed, each device its own (two
# simulated devices in one call), and every path is taken relative to the calling directory.
add_test(NAME cli_characterize_wall_time
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/characterize/run_wall_time_test.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_characterize_wall_time)
set_tests_properties(cli_characterize_wall_time PROPERTIES LABELS cli TIMEOUT 600)
# --parallel / --all: devices at once, archives of one model in distinct seconds, siblings compared.
add_test(NAME cli_characterize_parallel
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/characterize/run_parallel_test.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_characterize_parallel)
set_tests_properties(cli_characterize_parallel PROPERTIES LABELS cli TIMEOUT 600)
