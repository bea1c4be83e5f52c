# memhier-compare CLI tests on the golden archives of tests/cli/golden/compare (make_golden.py
# says what differs in each). Driver: golden/compare/run_case.cmake (exit status + output regexes).
if(TARGET memhier-compare)
  set(MEMHIER_COMPARE_GOLDEN ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/compare)

  # memhier_compare_case(<name> <expected exit> ARGS ... [EXPECT regex...] [REJECT regex...] [OUT_FILE f])
  function(memhier_compare_case name rc)
    cmake_parse_arguments(C "" "OUT_FILE" "ARGS;EXPECT;REJECT" ${ARGN})
    string(REPLACE ";" "@@" a "${C_ARGS}")
    string(REPLACE ";" "@@" e "${C_EXPECT}")
    string(REPLACE ";" "@@" r "${C_REJECT}")
    add_test(NAME cli_compare_${name}
             COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:memhier-compare> "-DARGS=${a}" -DRC=${rc}
                     "-DEXPECT=${e}" "-DREJECT=${r}" "-DOUT_FILE=${C_OUT_FILE}"
                     -P ${MEMHIER_COMPARE_GOLDEN}/run_case.cmake)
    set_tests_properties(cli_compare_${name} PROPERTIES LABELS cli)
  endfunction()

  set(G ${MEMHIER_COMPARE_GOLDEN})
  memhier_compare_case(unchanged_same 0 ARGS ${G}/base ${G}/same
    EXPECT "0 worse, 0 better, 0 changed, [1-9][0-9]* same" REJECT "WORSE" "CHANGED")
  memhier_compare_case(bench_files_same 0 ARGS ${G}/base/bench.json ${G}/same/bench.json
    EXPECT "0 worse, 0 better, 0 changed")
  memhier_compare_case(bandwidth_drop_worse 1 ARGS ${G}/base ${G}/slower_bw
    EXPECT "WORSE +gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:528 bytes_per_second"
           "-20\\.0%" "2 worse")
  memhier_compare_case(bandwidth_drop_within_threshold 0 ARGS --threshold=0.25 ${G}/base ${G}/slower_bw
    EXPECT "0 worse")
  memhier_compare_case(bandwidth_drop_markdown 1 ARGS --format=markdown ${G}/base ${G}/slower_bw
    EXPECT "### memhier-compare: regression" "\\| WORSE \\| `gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:528")
  memhier_compare_case(bandwidth_drop_json 1
    ARGS --format=json -o ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_drop.json ${G}/base ${G}/slower_bw
    OUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_drop.json
    EXPECT "\"format\": \"memhier-compare/1\"" "\"worse\": true" "\"verdict\": \"WORSE\"")
  memhier_compare_case(l1_size_changed 0 ARGS ${G}/base ${G}/l1_changed
    EXPECT "CHANGED +caches\\.l1\\.size_bytes +229376 +196608" "0 worse")
  memhier_compare_case(l1_size_changed_fails_on_request 1 ARGS --fail-on-changed ${G}/base ${G}/l1_changed
    EXPECT "CHANGED")
  memhier_compare_case(different_gpu_refused 2 ARGS ${G}/base ${G}/other_gpu
    EXPECT "refusing to compare different GPUs \\(gpu_name, compute_capability differ"
           "driver_version: 580\\.95\\.05 -> 575\\.57\\.08")
  memhier_compare_case(different_gpu_ignored 0 ARGS --ignore-device ${G}/base ${G}/other_gpu
    EXPECT "--ignore-device" "0 worse")
  memhier_compare_case(missing_input 2 ARGS ${G}/base ${G}/does_not_exist
    EXPECT "memhier-compare: .*does_not_exist: no such file or directory")
  memhier_compare_case(not_json 2 ARGS ${G}/base ${G}/make_golden.py EXPECT "not valid JSON")
  memhier_compare_case(not_memhier 2 ARGS ${G}/base/topology.json ${G}/base/bench.json
    EXPECT "not Google Benchmark JSON")
  memhier_compare_case(bad_threshold 2 ARGS --threshold=abc ${G}/base ${G}/same EXPECT "bad value 'abc'")
  memhier_compare_case(one_input 2 ARGS ${G}/base EXPECT "needs exactly two inputs")
endif()
