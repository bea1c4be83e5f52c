# The levels beyond one SM (issue 21) on simulated devices: the four families on a config built like
# an H100 and on one built unlike it, memhier-infer recovering what each config says, and the gate
# failing on slowed NVLink and PCIe paths. Driver: tests/cli/levels/run_levels_test.sh.
if(TARGET memhier-bench AND TARGET memhier-infer AND TARGET memhier-compare)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    add_test(NAME cli_levels_sim
             COMMAND ${MEMHIER_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/levels/run_levels_test.sh ${PROJECT_SOURCE_DIR}
                     $<TARGET_FILE_DIR:memhier-infer> ${CMAKE_CURRENT_BINARY_DIR}/cli_levels_sim)
    set_tests_properties(cli_levels_sim PROPERTIES LABELS "cli;sim" TIMEOUT 120)
  endif()
endif()
