# memhier-bench's command line: clear errors for bad input; the simulated device writes the JSON
# contract with traces.
add_test(NAME cli_bench_errors_and_sim_plan
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/bench/run_bench_cli_test.sh
                 $<TARGET_FILE:memhier-bench> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_bench)
set_tests_properties(cli_bench_errors_and_sim_plan PROPERTIES LABELS cli TIMEOUT 300)
# --memhier_serve: rounds in the plan's process, deferred families merged (bench/serve.hpp)
add_test(NAME cli_bench_serve
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/bench/run_serve_test.sh
                 $<TARGET_FILE:memhier-bench> $<TARGET_FILE:memhier-infer> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_serve)
set_tests_properties(cli_bench_serve PROPERTIES LABELS "cli;sim" TIMEOUT 300)
