# memhier-infer on a synthetic archive of the issue-13 families (gen_sm_resources.py: known MSHR,
# sharing, slices, partition map, L2 layouts) and the device summary on its output.
if(TARGET memhier-infer)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set(_w ${CMAKE_CURRENT_BINARY_DIR}/cli_sm_resources)
    add_test(NAME cli_sm_resources_gen
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/gen_sm_resources.py ${_w})
    add_test(NAME cli_sm_resources_infer
             COMMAND $<TARGET_FILE:memhier-infer> ${_w}/bench.json -o ${_w}/topology.json --report ${_w}/report.md)
    add_test(NAME cli_sm_resources_check
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_sm_resources.py ${_w}
                     ${PROJECT_SOURCE_DIR}/dev/device/mshr_summary.py)
    set_tests_properties(cli_sm_resources_gen PROPERTIES LABELS cli FIXTURES_SETUP sm_res_dir)
    set_tests_properties(cli_sm_resources_infer PROPERTIES LABELS cli FIXTURES_REQUIRED sm_res_dir FIXTURES_SETUP sm_res_topo)
    set_tests_properties(cli_sm_resources_check PROPERTIES LABELS cli FIXTURES_REQUIRED sm_res_topo)
  endif()
endif()
