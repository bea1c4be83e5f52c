# memhier-infer on a trimmed real archive (golden/infer/h100_subset: NVIDIA H100, driver 580.159.04):
# infer_h100_check.py derives from the archive's traces what it shows (L1 hit level, last all-hit
# and first missing footprints, L2 hit range, DRAM mean, constant bank limit, flat TLB sweep) and
# checks the topology against it.
if(TARGET memhier-infer)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set(_g ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer/h100_subset)
    set(_w ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_h100)
    add_test(NAME cli_infer_h100_subset
             COMMAND ${CMAKE_COMMAND} -E make_directory ${_w})
    add_test(NAME cli_infer_h100_run
             COMMAND $<TARGET_FILE:memhier-infer> ${_g}/bench.json -o ${_w}/topology.json --report ${_w}/report.md)
    add_test(NAME cli_infer_h100_check
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/infer_h100_check.py ${_g}/bench.json
                     ${_w}/topology.json)
    set_tests_properties(cli_infer_h100_subset PROPERTIES LABELS cli FIXTURES_SETUP h100_dir)
    set_tests_properties(cli_infer_h100_run PROPERTIES LABELS cli FIXTURES_REQUIRED h100_dir FIXTURES_SETUP h100_topo)
    set_tests_properties(cli_infer_h100_check PROPERTIES LABELS cli FIXTURES_REQUIRED h100_topo)
  endif()
endif()
