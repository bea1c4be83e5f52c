# scripts/archive_index.py rebuilds results/index.json from a temporary archive tree: lists the
# archives, skips unfinished and unreadable ones, is idempotent, finds the newest of one GPU.
find_program(MEMHIER_PYTHON3 python3)
if(MEMHIER_PYTHON3)
  add_test(NAME cli_archive_index
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/compare/run_index_test.sh
                   ${PROJECT_SOURCE_DIR}/scripts/archive_index.py ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/compare/base
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_archive_index)
  set_tests_properties(cli_archive_index PROPERTIES LABELS cli)
endif()
