# Property tests of the TLB inference (issue 11): the characterization loop of infer_sim_loop.sh on
# random simulated TLB devices (gen_tlb_config.py, fixed seeds: entries covering several pages,
# unequal and modulo-indexed sets, 3-40-cycle L1 TLB misses, latency noise), then check_topology.py
# compares the TLBs (page, reach per entry, entries, sets, ways, penalty) with the config's truth.
# A few seconds each.
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    foreach(seed 1 2 3 4 5 6 7 8)
      add_test(NAME cli_infer_tlb_sim_${seed}
               COMMAND ${MEMHIER_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/infer_sim_loop.sh
                       $<TARGET_FILE_DIR:memhier-infer> gen-tlb:${seed}
                       ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_tlb_sim/${seed} --check)
      set_tests_properties(cli_infer_tlb_sim_${seed} PROPERTIES LABELS "cli;sim" TIMEOUT 180)
    endforeach()
  endif()
endif()
