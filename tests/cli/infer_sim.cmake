# End-to-end tests of memhier-infer on simulated devices (issue 3): the characterization loop of
# scripts/characterize.sh (plan, up to 6 refinement rounds, final analysis) on every shipped sim
# config and on random configs of fixed seeds (gen_sim_config.py), then check_topology.py compares
# topology.json with the config's truth. Driver: infer_sim_loop.sh. Each takes seconds.
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    set(_loop ${CMAKE_CURRENT_SOURCE_DIR}/cli/infer_sim_loop.sh)
    file(GLOB _cfgs ${PROJECT_SOURCE_DIR}/sim/configs/*.json)
    set(_cases)
    foreach(c ${_cfgs})
      get_filename_component(n ${c} NAME_WE)
      list(APPEND _cases "${n}=${c}")
    endforeach()
    foreach(seed RANGE 1 16)
      list(APPEND _cases "gen_${seed}=gen:${seed}")
    endforeach()
    foreach(case ${_cases})
      string(REPLACE "=" ";" kv "${case}")
      list(GET kv 0 n)
      list(GET kv 1 cfg)
      add_test(NAME cli_infer_sim_${n}
               COMMAND ${MEMHIER_BASH} ${_loop} $<TARGET_FILE_DIR:memhier-infer> ${cfg}
                       ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_sim/${n} --check)
      set_tests_properties(cli_infer_sim_${n} PROPERTIES LABELS "cli;sim" TIMEOUT 120)
    endforeach()
  endif()
endif()
