# The compare gate in both directions (docs/ci.md): simulated archives with the noise model
# (back to back: no change; latency, line and capacity changes and a bandwidth drop: caught), and
# the real H100 archives under results/ (every pair: no change; every injected change: caught).
find_program(MEMHIER_PYTHON3_GATE python3)
if(TARGET memhier-compare AND TARGET memhier-bench AND MEMHIER_PYTHON3_GATE)
  add_test(NAME cli_gate_sim
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/gate/run_gate_sim_test.sh
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_gate_sim)
  set_tests_properties(cli_gate_sim PROPERTIES LABELS cli TIMEOUT 600)
endif()
file(GLOB MEMHIER_H100_ARCHIVES LIST_DIRECTORIES true
     ${PROJECT_SOURCE_DIR}/results/sm_90/nvidia-h100-80gb-hbm3/*/[0-9]*Z)
list(LENGTH MEMHIER_H100_ARCHIVES _n)
if(TARGET memhier-compare AND MEMHIER_PYTHON3_GATE AND _n GREATER 1)
  add_test(NAME cli_gate_h100_archives
           COMMAND ${MEMHIER_PYTHON3_GATE} ${PROJECT_SOURCE_DIR}/scripts/ci_figures.py ${MEMHIER_H100_ARCHIVES}
                   --compare $<TARGET_FILE:memhier-compare> --work ${CMAKE_CURRENT_BINARY_DIR}/cli_gate_h100)
  set_tests_properties(cli_gate_h100_archives PROPERTIES LABELS cli TIMEOUT 600)
endif()
