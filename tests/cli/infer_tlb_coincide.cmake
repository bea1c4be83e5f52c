# Issue 20: TLB levels whose misses coincide at one footprint (sim/configs/tlb_coincide_l1, and
# tests/cli/tlb_configs/tlb_coincide_three, tlb_plateau_three: three levels, which
# check_topology.py, run on every sim config by infer_sim.cmake, does not cover): the characterization loop (infer_sim_loop.sh), then
# check_tlb_penalties.py: each level's penalty its own step (not the next level's added), or null
# with the reason where the sweep cannot separate them; never a value or a bound above the truth.
# tlb_coincide_l1 also goes through check_topology.py (cli_infer_sim_tlb_coincide_l1). Seconds each.
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    set(_cases "${PROJECT_SOURCE_DIR}/sim/configs/tlb_coincide_l1.json|l1_tlb=truth l2_tlb=truth"
               "${CMAKE_CURRENT_SOURCE_DIR}/cli/tlb_configs/tlb_coincide_three.json|l1_tlb=truth l2_tlb=null l3_tlb=nowrong"
               "${CMAKE_CURRENT_SOURCE_DIR}/cli/tlb_configs/tlb_plateau_three.json|l1_tlb=truth l2_tlb=truth l3_tlb=nowrong")
    foreach(c IN LISTS _cases)
      string(REPLACE "|" ";" f "${c}")
      list(GET f 0 cfg)
      list(GET f 1 expect)
      get_filename_component(name ${cfg} NAME_WE)
      set(work ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_tlb_coincide/${name})
      add_test(NAME cli_infer_tlb_coincide_${name}
               COMMAND ${MEMHIER_BASH} -c "${MEMHIER_BASH} '${CMAKE_CURRENT_SOURCE_DIR}/cli/infer_sim_loop.sh' '$<TARGET_FILE_DIR:memhier-infer>' '${cfg}' '${work}' && '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_SOURCE_DIR}/cli/check_tlb_penalties.py' '${cfg}' '${work}/topology.json' ${expect}")
      set_tests_properties(cli_infer_tlb_coincide_${name} PROPERTIES LABELS "cli;sim" TIMEOUT 180)
    endforeach()
  endif()
endif()
