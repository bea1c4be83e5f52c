# report.md is for people: the H100 subset's report passes tests/cli/report_check.py (one screen
# per cache, shared reasons said once, no repeated table rows).
find_program(MEMHIER_PYTHON3_REPORT python3)
if(TARGET memhier-infer AND MEMHIER_PYTHON3_REPORT)
  add_test(NAME cli_report_readable
           COMMAND bash -c "set -e; mkdir -p $1; $2 $3/bench.json -o $1/t.json --report $1/report.md; \
$4 $5 $1/report.md"
                   _ ${CMAKE_CURRENT_BINARY_DIR}/cli_report $<TARGET_FILE:memhier-infer>
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer/h100_subset ${MEMHIER_PYTHON3_REPORT}
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_check.py)
  set_tests_properties(cli_report_readable PROPERTIES LABELS cli)
endif()
