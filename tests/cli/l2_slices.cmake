# The L2 slices (issue 20 item 1) on simulated devices: the l2_slices family on hopper_like (2
# partitions x 40 slices, a modulo hash) and unlike_hopper (16 slices, an XOR hash), memhier-infer's
# l2_slices section and report table. Driver: tests/cli/l2_slices/run_l2_slices_test.sh.
if(TARGET memhier-bench AND TARGET memhier-infer)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    add_test(NAME cli_l2_slices_sim
             COMMAND ${MEMHIER_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/l2_slices/run_l2_slices_test.sh ${PROJECT_SOURCE_DIR}
                     $<TARGET_FILE_DIR:memhier-infer> ${CMAKE_CURRENT_BINARY_DIR}/cli_l2_slices_sim)
    set_tests_properties(cli_l2_slices_sim PROPERTIES LABELS "cli;sim" TIMEOUT 120)
  endif()
endif()
