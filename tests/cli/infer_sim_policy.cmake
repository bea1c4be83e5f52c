# Issue 20 item 3 ("Policies named for every cache"): an L1 of 4 ways under QLRU variants, SRRIP
# and the controls LRU / FIFO / tree-PLRU (tests/cli/policy/l1_<policy>.json, written by
# make_configs.py): the loop of infer_sim_loop.sh, then check_policy.py: the access sequences name
# the policy, or a list that holds it. BRRIP is tested on the analyzer's side only
# (tests/common/test_policy.cpp): the search finds no minimal eviction set under it (make_configs.py).
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    set(_dir ${CMAKE_CURRENT_SOURCE_DIR}/cli/policy)
    foreach(p qlru_h11_m1_r0_u0 qlru_h21_m2_r0_u0_umo qlru_h00_m1_r2_u1 qlru_h10_m1_r1_u3 qlru_h20_m0_r1_u2_umo
              srrip lru fifo plru)
      set(_work ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_sim_policy/${p})
      add_test(NAME cli_infer_sim_policy_${p}
               COMMAND ${MEMHIER_BASH} -c "\"$0\" \"$1\" \"$2\" \"$3\" >/dev/null && \"$4\" \"$5\" \"$3/topology.json\" l1 \"$6\""
                       ${_dir}/../infer_sim_loop.sh $<TARGET_FILE_DIR:memhier-infer> ${_dir}/l1_${p}.json ${_work}
                       ${Python3_EXECUTABLE} ${_dir}/check_policy.py ${p})
      set_tests_properties(cli_infer_sim_policy_${p} PROPERTIES LABELS "cli;sim" TIMEOUT 120)
    endforeach()
  endif()
endif()
