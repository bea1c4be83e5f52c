# Issue 30 item 5: generated caches of the kinds the analyzer got wrong (tests/cli/l2story/
# gen_l2_case.py: a random or tree-PLRU L2, a 4-way tree-PLRU L1 with 128-byte lines, an NRU L1
# with unequal sets), several seeds each; check_l2_case.py asks of each value that it is right or
# null with a reason, never confidently wrong.
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    set(_dir ${CMAKE_CURRENT_SOURCE_DIR}/cli/l2story)
    foreach(case l2_gradual l1_plru128 l1_nru_unequal)
      foreach(seed 1 2 3)
        set(_work ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_sim_l2story/${case}_${seed})
        add_test(NAME cli_infer_sim_l2story_${case}_${seed}
                 COMMAND ${MEMHIER_BASH} -c "set -e; mkdir -p \"$3\"; \"$4\" \"$5\" \"$6\" --seed \"$7\" -o \"$3.json\"; \
\"$0\" \"$1\" \"$3.json\" \"$3\" >/dev/null; \"$4\" \"$2\" \"$3.json\" \"$3/topology.json\" \"$6\""
                         ${_dir}/../infer_sim_loop.sh $<TARGET_FILE_DIR:memhier-infer> ${_dir}/check_l2_case.py
                         ${_work} ${Python3_EXECUTABLE} ${_dir}/gen_l2_case.py ${case} ${seed})
        set_tests_properties(cli_infer_sim_l2story_${case}_${seed} PROPERTIES LABELS "cli;sim" TIMEOUT 300)
      endforeach()
    endforeach()
  endif()
endif()
