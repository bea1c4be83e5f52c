# memhier-bench's command line: clear errors for bad input; the simulated device writes the JSON
# contract with traces.
add_test(NAME cli_bench_errors_and_sim_plan
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/bench/run_bench_cli_test.sh
                 $<TARGET_FILE:memhier-bench> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_bench)
set_tests_properties(cli_bench_errors_and_sim_plan PROPERTIES LABELS cli TIMEOUT 300)
# --memhier_serve: rounds in the plan's process, deferred families merged (bench/cli/serve.hpp)
add_test(NAME cli_bench_serve
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/bench/run_serve_test.sh
                 $<TARGET_FILE:memhier-bench> $<TARGET_FILE:memhier-infer> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_serve)
set_tests_properties(cli_bench_serve PROPERTIES LABELS "cli;sim" TIMEOUT 300)

# --device=list: every CUDA device with its archive folder, then the simulated device; exit 0 and
# the reason on a host without a GPU (CI), the GPU's line on a GPU host.
if(TARGET memhier-bench)
  add_test(NAME cli_bench_device_list COMMAND $<TARGET_FILE:memhier-bench> --device=list)
  set_tests_properties(cli_bench_device_list PROPERTIES LABELS cli
    PASS_REGULAR_EXPRESSION "(cuda: none \\(|cuda:0  [^\n]+  sm_[0-9]+  [0-9]+ SMs[^\n]+archives results/sm_)[^$]*sim:<config.json>  the simulated device")
endif()
