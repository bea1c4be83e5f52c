# The level families beyond one SM (dsmem, async_copy, host, peer; docs/methodology.md "Levels
# beyond one SM") in scripts/plot.py and scripts/topology_table.py, on synthetic data that
# tests/cli/golden/plot/make_levels.py writes at test time (run_levels_test.sh says what is checked).
# The plot test is skipped (77) without matplotlib; the table test runs on the newest committed
# topology.json (its other tables must print unchanged), or on a bare one where none is committed.
add_test(NAME cli_plot_levels
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/plot/run_levels_test.sh plot
                 ${PROJECT_SOURCE_DIR}/scripts/plot.py ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/plot/sim_small
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_plot_levels)
set_tests_properties(cli_plot_levels PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300)

file(GLOB _levels_topologies ${PROJECT_SOURCE_DIR}/results/sm_90/*/*/*/topology.json)
list(SORT _levels_topologies)
set(_levels_topology "-")
if(_levels_topologies)
  list(GET _levels_topologies -1 _levels_topology)
endif()
add_test(NAME cli_topology_table_levels
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/plot/run_levels_test.sh table
                 ${PROJECT_SOURCE_DIR}/scripts/topology_table.py ${_levels_topology}
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_topology_table_levels)
set_tests_properties(cli_topology_table_levels PROPERTIES LABELS cli TIMEOUT 120)
