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
  # same/ is an unchanged copy of base/: identical files, said once on the first line
  memhier_compare_case(unchanged_same 0 ARGS ${G}/base ${G}/same
    EXPECT "^gate: PASS - same input: base and new hold identical files \\(bench.json, topology.json\\); 0 worse of"
    REJECT "WORSE" "CHANGED")
  memhier_compare_case(bench_files_same 0 ARGS ${G}/base/bench.json ${G}/same/bench.json
    EXPECT "per-benchmark counters" "gate: PASS")
  memhier_compare_case(bandwidth_drop_detail_only 0 ARGS ${G}/base ${G}/slower_bw
    EXPECT "^gate: PASS" "per-benchmark rows \\(not gated\\): 2 of [0-9]+ differ")
  memhier_compare_case(bandwidth_drop_detail_rows 0 ARGS --detail ${G}/base ${G}/slower_bw
    EXPECT "PER-BENCHMARK ROWS" "WORSE +gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:528 bytes_per_second")
  # two bench.json files of one sample each: a 20 % drop has no noise model behind it: no verdict
  memhier_compare_case(bench_files_single_samples_no_verdict 5 ARGS ${G}/base/bench.json ${G}/slower_bw/bench.json
    EXPECT "no topology.json in either run" "2 per-benchmark differences beyond the threshold rest on one sample"
           "gate: NO VERDICT - 2 per-benchmark differences rest on single samples")
  memhier_compare_case(bandwidth_drop_within_threshold 0 ARGS --threshold=0.25 ${G}/base/bench.json ${G}/slower_bw/bench.json
    EXPECT "gate: PASS")
  memhier_compare_case(markdown 3 ARGS --format=markdown ${G}/base ${G}/l1_changed
    EXPECT "### memhier-compare: FAIL" "\\| l1 size \\| 224\\.0 KiB \\| 192\\.0 KiB \\| -14\\.3 % \\| CHANGED")
  memhier_compare_case(json 3
    ARGS --format=json -o ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_l1.json ${G}/base ${G}/l1_changed
    OUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/cli_compare_l1.json
    EXPECT "\"format\": \"memhier-compare/2\"" "\"exit_code\": 3" "\"caches.l1.size_bytes\"")
  memhier_compare_case(l1_size_changed 3 ARGS ${G}/base ${G}/l1_changed
    EXPECT "^gate: FAIL - 0 worse of [0-9]+ figures, 2 structural changes of [0-9]+ fields:" "changed: l1 sets -14\\.3 %"
           "l1 size +224\\.0 KiB +192\\.0 KiB .*CHANGED"
           "compared the archived topologies \\(archived: no stamp, no stamp\\)" "no traces")
  # issue 31 (verdict-first console): SAME rows only with --all; one input given twice is said once
  memhier_compare_case(same_rows_hidden 0 ARGS ${G}/base ${G}/slower_bw
    EXPECT "^gate: PASS - 0 worse" "[0-9]+ rows SAME \\(every row\\) not shown; --all lists them" REJECT "  SAME")
  memhier_compare_case(same_rows_all 0 ARGS --all ${G}/base ${G}/slower_bw EXPECT "^gate: PASS" "DRAM read bandwidth .*SAME" REJECT "not shown")
  memhier_compare_case(same_input 0 ARGS ${G}/base ${G}/base/
    EXPECT "^gate: PASS - same input: base and new are one archive" REJECT "same input[^\n]*same input" "\nnew: ")
  memhier_compare_case(l1_size_changed_survey 0 ARGS --survey ${G}/base ${G}/l1_changed EXPECT "CHANGED")
  memhier_compare_case(different_gpu_refused 4 ARGS ${G}/base ${G}/other_gpu
    EXPECT "^gate: REFUSED - different GPUs \\(gpu_name, compute_capability differ\\)"
           "driver: 580\\.95\\.05 -> 575\\.57\\.08")
  memhier_compare_case(different_gpu_side_by_side 0 ARGS --ignore-device ${G}/base ${G}/other_gpu
    EXPECT "different devices compared on request \\(--ignore-device\\)" "gate: none")
  memhier_compare_case(missing_input 2 ARGS ${G}/base ${G}/does_not_exist
    EXPECT "memhier-compare: .*does_not_exist: no such file or directory")
  memhier_compare_case(not_json 2 ARGS ${G}/base ${G}/make_golden.py EXPECT "not valid JSON")
  memhier_compare_case(not_memhier 2 ARGS ${G}/base/topology.json ${G}/base/bench.json
    EXPECT "not Google Benchmark JSON")
  memhier_compare_case(bad_threshold 2 ARGS --threshold=abc ${G}/base ${G}/same EXPECT "bad value 'abc'")
  memhier_compare_case(bad_fail_on 2 ARGS --fail-on=everything ${G}/base ${G}/same EXPECT "bad value 'everything'")
  memhier_compare_case(one_input 2 ARGS ${G}/base EXPECT "needs exactly two inputs")
endif()
