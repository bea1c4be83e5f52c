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

# report.md reads like a datasheet (issue 19): the committed H100 and H200 archives' reports and the
# golden texture sweep's pass report_check.py's datasheet checks (ways collapsed, no empty interval,
# no raw list, TLB rows named for a TLB, no unit after a reason).
# The newest committed archive of each GPU (names are UTC timestamps: sorted by name is by time;
# results/README.md says which archives stay).
function(memhier_newest_archive slug out)
  file(GLOB _all LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/results/sm_90/${slug}/*/[0-9]*Z)
  set(_best "")
  set(_best_ts "")
  foreach(_a IN LISTS _all)
    get_filename_component(_ts ${_a} NAME)
    if(_ts STRGREATER _best_ts)
      set(_best_ts ${_ts})
      set(_best ${_a})
    endif()
  endforeach()
  set(${out} "${_best}" PARENT_SCOPE)
endfunction()
memhier_newest_archive(nvidia-h100-80gb-hbm3 MEMHIER_H100_NEWEST)
memhier_newest_archive(nvidia-h200 MEMHIER_H200_NEWEST)
set(_archives h100=${MEMHIER_H100_NEWEST} h200=${MEMHIER_H200_NEWEST}
              golden=${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/infer/bench.json)
if(TARGET memhier-infer AND MEMHIER_PYTHON3_REPORT)
  foreach(na ${_archives})
    string(REPLACE "=" ";" kv "${na}")
    list(GET kv 0 _i)
    list(GET kv 1 a)
    if(a AND EXISTS ${a})
      add_test(NAME cli_report_datasheet_${_i}
               COMMAND bash -c "set -e; mkdir -p $1; $2 $3 -o $1/t.json --report $1/report.md; $4 $5 $1/report.md"
                       _ ${CMAKE_CURRENT_BINARY_DIR}/cli_report_datasheet/${_i} $<TARGET_FILE:memhier-infer> ${a}
                       ${MEMHIER_PYTHON3_REPORT} ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_check.py)
      set_tests_properties(cli_report_datasheet_${_i} PROPERTIES LABELS cli)
    endif()
  endforeach()
endif()

# The console tables (scripts/topology_table.py) on the H100 archive's topology: a capacity that is
# not exact is marked (the L2 is the whole L2 from l2_sets since issue 30: no 50 % point), equal ways
# print once, TLBs show entries / reach per entry / total reach; the same rows from the archive's
# committed memhier-topology/1 file and from memhier-infer's /2.
if(TARGET memhier-infer AND MEMHIER_PYTHON3_REPORT AND MEMHIER_H100_NEWEST)
  add_test(NAME cli_report_console_tables
           COMMAND bash -c "set -e; mkdir -p $1; $2 $3 -o $1/t.json; $4 $5 $1/t.json > $1/tables.txt; cat $1/tables.txt; \
grep -Eq '^l1 +256 KiB +128 B +32 B +512 +4 ' $1/tables.txt; grep -Eq '^l2 +[0-9.]+ MiB +128 B' $1/tables.txt; ! grep -q '^l2 .*50 % pt' $1/tables.txt; \
grep -q 'reach/entry  total reach' $1/tables.txt; grep -Eq '^l1_tlb +16 +16 MiB +256 MiB' $1/tables.txt; \
! grep -q '512 x 4' $1/tables.txt; $4 $5 $3/topology.json > $1/tables_v1.txt; \
grep -Eq '^l1 +256 KiB +128 B +32 B +512 +4 ' $1/tables_v1.txt; grep -Eq '^l1_tlb +16 +16 MiB +256 MiB .* 1 x 16 ' $1/tables_v1.txt; \
grep -Eq '^l1_tlb +16 +16 MiB +256 MiB .* 1 x 16 ' $1/tables.txt; ! grep -q '512 x 4' $1/tables_v1.txt"
                   _ ${CMAKE_CURRENT_BINARY_DIR}/cli_report_console $<TARGET_FILE:memhier-infer>
                   ${MEMHIER_H100_NEWEST}
                   ${MEMHIER_PYTHON3_REPORT} ${PROJECT_SOURCE_DIR}/scripts/topology_table.py)
  set_tests_properties(cli_report_console_tables PROPERTIES LABELS cli)
endif()
