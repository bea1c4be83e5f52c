# memhier-infer CLI tests on the golden inputs of tests/cli/golden/infer (bench.json: a texture
# capacity sweep with C = 4 KiB between two measured sizes (size_bytes 4096 with that bracket); the bad inputs are named for what is
# wrong with them). Driver: golden/infer/run_case.cmake.
if(TARGET memhier-infer)
  set(MEMHIER_INFER_GOLDEN ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer)
  function(memhier_infer_case name rc)
    cmake_parse_arguments(C "" "CHECK_FILE" "ARGS;EXPECT" ${ARGN})
    string(REPLACE ";" "@@" a "${C_ARGS}")
    string(REPLACE ";" "@@" e "${C_EXPECT}")
    add_test(NAME cli_infer_${name}
             COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:memhier-infer> "-DARGS=${a}" -DRC=${rc}
                     "-DEXPECT=${e}" "-DCHECK_FILE=${C_CHECK_FILE}"
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli_infer/${name} -P ${MEMHIER_INFER_GOLDEN}/run_case.cmake)
    set_tests_properties(cli_infer_${name} PROPERTIES LABELS cli)
  endfunction()
  set(G ${MEMHIER_INFER_GOLDEN})
  memhier_infer_case(topology 0 ARGS ${G}/bench.json -o topology.json CHECK_FILE topology.json
    EXPECT "\"schema\": \"memhier-topology/2\"" "\"gpu_name\": \"golden-4k\""
           "\"sm_count\": 1," "\"compute_capability\": \"9.0\"" "\"bench.json\""
           "C in .4096, 5120., wider than the sweep stride" "\"hit_latency_cycles\": 3[0-9]")
  memhier_infer_case(next_requests 0 ARGS ${G}/bench.json -o t.json --next-requests req.json CHECK_FILE req.json
    EXPECT "\"format\": \"memhier-requests/1\"" "\"bytes\": 4224" "\"stride\": 32" "\"mode\": \"count\"")
  memhier_infer_case(report 0 ARGS ${G}/bench.json -o t.json --report report.md CHECK_FILE report.md
    EXPECT "# Memory topology: golden-4k" "## Measurement" "### texture" "Refinement pending")
  memhier_infer_case(missing_file nonzero ARGS ${G}/does_not_exist.json EXPECT "memhier-infer: .*cannot open")
  memhier_infer_case(not_json nonzero ARGS ${G}/not_json.json EXPECT "not valid JSON")
  memhier_infer_case(other_tool nonzero ARGS ${G}/other_tool.json EXPECT "not Google Benchmark JSON|not written by memhier-bench")
  memhier_infer_case(two_devices nonzero ARGS ${G}/bench.json ${G}/other_device.json EXPECT "another device")
  memhier_infer_case(truncated_trace nonzero ARGS ${G}/truncated/bench.json EXPECT "truncated trace")
  memhier_infer_case(failed_run nonzero ARGS ${G}/failed_run.json EXPECT "failed: texture object creation failed")
  # its only entry failed: with --allow-errors nothing is left to determine, which is a failure
  # too (never an all-null topology with exit 0); tests/cli/reliability.cmake has the partial case
  memhier_infer_case(failed_run_allowed nonzero ARGS ${G}/failed_run.json --allow-errors -o t.json
    EXPECT "nothing could be determined.*texture object creation failed")
  memhier_infer_case(no_input nonzero ARGS EXPECT "no input")
endif()

# report.md embeds the plots scripts/plot.py wrote into <archive>/plots: a cache's P-chase plots
# beside its table, the others in a Plots section.
if(TARGET memhier-infer)
  add_test(NAME cli_infer_report_embeds_plots
           COMMAND bash -c "set -e; w=$1; rm -rf $w; mkdir -p $w/plots; cp $2/bench.json $w/; cp -r $2/traces $w/; \
touch $w/plots/pchase_texture_latency_vs_footprint.svg $w/plots/gmem_throughput_vs_ctas.svg; \
$3 $w/bench.json -o $w/t.json --report $w/report.md; \
grep -q '](plots/pchase_texture_latency_vs_footprint.svg)' $w/report.md; \
grep -q '## Plots' $w/report.md; grep -q '](plots/gmem_throughput_vs_ctas.svg)' $w/report.md"
                   _ ${CMAKE_CURRENT_BINARY_DIR}/cli_infer/embeds ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer
                   $<TARGET_FILE:memhier-infer>)
  set_tests_properties(cli_infer_report_embeds_plots PROPERTIES LABELS cli)
endif()

# memhier-infer --sections-cache (characterize.sh's last analysis, docs/methodology.md "Wall time"):
# on the newest committed archive of each GPU model, the early sections computed from the early
# families alone and reused by the whole archive's analysis give the topology of one analysis
# without the cache, byte for byte; a changed early entry is computed again (check_early_sections.py).
find_program(MEMHIER_PYTHON3_EARLY python3)
if(TARGET memhier-infer AND MEMHIER_PYTHON3_EARLY)
  foreach(_gpu nvidia-h100-80gb-hbm3 nvidia-h200)
    file(GLOB _early_all LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/results/sm_90/${_gpu}/*/[0-9]*Z)
    if(NOT _early_all)
      continue()
    endif()
    list(SORT _early_all)
    list(GET _early_all -1 _early_one)
    add_test(NAME cli_infer_early_sections_${_gpu}
             COMMAND ${MEMHIER_PYTHON3_EARLY} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_early_sections.py
                     $<TARGET_FILE:memhier-infer> ${_early_one} ${CMAKE_CURRENT_BINARY_DIR}/cli_infer/early_${_gpu})
    set_tests_properties(cli_infer_early_sections_${_gpu} PROPERTIES LABELS cli TIMEOUT 300)
  endforeach()
endif()
