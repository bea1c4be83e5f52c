# memhier-compare --fleet on simulated boards (docs/ci.md, Fleets): the slowed board named (exit 6),
# a fleet without one passes, and its board-to-board spread as --baseline absorbs a difference.
find_program(MEMHIER_PYTHON3_FLEET python3)
if(TARGET memhier-compare AND TARGET memhier-bench AND TARGET memhier-infer AND MEMHIER_PYTHON3_FLEET)
  add_test(NAME cli_fleet_sim
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/fleet/run_fleet_sim_test.sh
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_fleet_sim)
  set_tests_properties(cli_fleet_sim PROPERTIES LABELS cli TIMEOUT 300)
endif()
