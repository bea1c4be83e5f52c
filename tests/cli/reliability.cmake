# Issue 14 (docs/methodology.md, reliability): hostile inputs to every tool, output formats and
# never-truncated outputs, characterize.sh under signals, every family registered through the guard,
# and a short fuzz run of the analyzer's loaders.
set(MEMHIER_REL ${CMAKE_CURRENT_SOURCE_DIR}/cli/reliability)
if(TARGET memhier-bench AND TARGET memhier-infer AND TARGET memhier-compare)
  add_test(NAME cli_reliability_hostile_inputs
           COMMAND python3 ${MEMHIER_REL}/hostile_inputs.py ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_reliability/hostile
                   --table ${CMAKE_CURRENT_BINARY_DIR}/cli_reliability/hostile_inputs.md)
  add_test(NAME cli_reliability_output_formats
           COMMAND python3 ${MEMHIER_REL}/output_formats.py $<TARGET_FILE:memhier-bench> $<TARGET_FILE:memhier-infer>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_reliability/formats)
  set_tests_properties(cli_reliability_hostile_inputs cli_reliability_output_formats PROPERTIES LABELS cli TIMEOUT 300)
endif()
add_test(NAME cli_reliability_characterize_signals
         COMMAND python3 ${MEMHIER_REL}/characterize_signals.py ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_reliability/signals)
add_test(NAME cli_reliability_families_guarded
         COMMAND bash ${MEMHIER_REL}/families_guarded.sh ${PROJECT_SOURCE_DIR})
add_test(NAME cli_reliability_sanitize_plan
         COMMAND python3 ${MEMHIER_REL}/sanitize_plan_test.py ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_reliability/sanitize_plan)
set_tests_properties(cli_reliability_characterize_signals cli_reliability_families_guarded cli_reliability_sanitize_plan
                     PROPERTIES LABELS cli TIMEOUT 120)

# A short fuzz run over the analyzer's loaders (tests/fuzz): clang + libFuzzer with ASan/UBSan,
# seeds from the repository's real archives; skipped (77) where clang or libFuzzer is missing.
add_test(NAME fuzz_loaders_smoke
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/fuzz/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/fuzz_loaders 20)
set_tests_properties(fuzz_loaders_smoke PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 900)
