# The persisting L2 set-aside (issue 20 item 4) on simulated devices: the l2_persist family on
# hopper_like (its l2_persisting block), memhier-infer's l2_persisting section and report table, a
# device that keeps less than it grants (the gate: WORSE), the quick plan, and a device without a
# set-aside (no benchmark). Driver: tests/cli/l2_persist/run_l2_persist_test.sh.
if(TARGET memhier-bench AND TARGET memhier-infer AND TARGET memhier-compare)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    add_test(NAME cli_l2_persist_sim
             COMMAND ${MEMHIER_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/l2_persist/run_l2_persist_test.sh ${PROJECT_SOURCE_DIR}
                     $<TARGET_FILE_DIR:memhier-infer> ${CMAKE_CURRENT_BINARY_DIR}/cli_l2_persist_sim)
    set_tests_properties(cli_l2_persist_sim PROPERTIES LABELS "cli;sim" TIMEOUT 120)
  endif()
endif()
