# scripts/slurm/ on a real one-node Slurm started by the test (docs/ci.md, Slurm): the array of
# three simulated boards and the dependent fleet job, which names the slowed board (exit 6).
# Skipped (77) where slurm-wlm and munge are not installed or the test does not run as root.
if(TARGET memhier-compare AND TARGET memhier-bench AND TARGET memhier-infer)
  add_test(NAME cli_slurm_fleet
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/slurm/run_slurm_fleet_test.sh
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_slurm_fleet)
  set_tests_properties(cli_slurm_fleet PROPERTIES LABELS cli TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
