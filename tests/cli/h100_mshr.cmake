# Issue 13 on real H100 data (golden/infer/h100_mshr: the first device run of part_mshr.sh, driver
# 580.159.04): memhier-infer must read the outstanding-request ramps (no saturation, a cost per
# 128-byte line), the partition map (two groups of SMs, a home function linear in offset bits) and
# refuse sharing verdicts whose controls did not evict; check_h100_mshr.py says what it expects and
# why. The SASS checker of the device part on excerpts of that run's SASS: the outstanding loads
# are consecutive, the sharing kernel's fill walk was removed by ptxas (what the part must flag).
if(TARGET memhier-infer)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    set(_g ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer/h100_mshr)
    set(_w ${CMAKE_CURRENT_BINARY_DIR}/cli_h100_mshr)
    add_test(NAME cli_h100_mshr_dir COMMAND ${CMAKE_COMMAND} -E make_directory ${_w})
    add_test(NAME cli_h100_mshr_infer
             COMMAND $<TARGET_FILE:memhier-infer> ${_g}/bench.json.gz -o ${_w}/topology.json --report ${_w}/report.md
                     --allow-errors)
    add_test(NAME cli_h100_mshr_check
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_h100_mshr.py ${_w}/topology.json)
    set_tests_properties(cli_h100_mshr_dir PROPERTIES LABELS cli FIXTURES_SETUP h100_mshr_dir)
    set_tests_properties(cli_h100_mshr_infer PROPERTIES LABELS cli FIXTURES_REQUIRED h100_mshr_dir FIXTURES_SETUP h100_mshr_topo)
    set_tests_properties(cli_h100_mshr_check PROPERTIES LABELS cli FIXTURES_REQUIRED h100_mshr_topo)
  endif()
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(_s ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/sass)
  add_test(NAME cli_sass_check_outstanding
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/dev/device/sass_check.py outstanding ${_s}/h100_outstanding16.sass)
  set_tests_properties(cli_sass_check_outstanding PROPERTIES LABELS cli
                       PASS_REGULAR_EXPRESSION "outstanding_kernelILi16E.*loads before the first use: 16 \\(want 16\\) ok")
  add_test(NAME cli_sass_check_dead_fill
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/dev/device/sass_check.py sharing ${_s}/h100_sharing_dead_fill.sass)
  set_tests_properties(cli_sass_check_dead_fill PROPERTIES LABELS cli
                       PASS_REGULAR_EXPRESSION "fill walk present in 0 of 1 instances")
endif()
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_l2_layout_filter
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_l2_layout_filter.py
                   ${PROJECT_SOURCE_DIR}/dev/device/l2_layout_filter.py ${CMAKE_CURRENT_BINARY_DIR}/cli_l2_layout_filter)
  set_tests_properties(cli_l2_layout_filter PROPERTIES LABELS cli)
endif()
