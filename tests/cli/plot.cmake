# scripts/plot.py on the shipped small archive tests/cli/golden/plot/sim_small (make_golden.py
# there writes it): every family's SVG appears, a partial archive plots what it holds, bad input
# exits 2. Skipped (77) without matplotlib.
add_test(NAME cli_plot_sim_small
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/plot/run_plot_test.sh
                 ${PROJECT_SOURCE_DIR}/scripts/plot.py ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/plot/sim_small
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_plot)
set_tests_properties(cli_plot_sim_small PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300)
