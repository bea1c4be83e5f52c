# topology.json's schema (docs/formats.md, "Topology report"): a committed memhier-topology/1
# archive written again as /2 by memhier-infer --from-topology has the /2 types, and memhier-compare
# finds the /1 archive and its /2 twin the same (tests/cli/schema/run_schema_test.sh).
find_program(MEMHIER_PYTHON3_SCHEMA python3)
# the oldest committed H100 archive (names are UTC timestamps): written before /2, kept by the
# retention rule as a gate base; the script says so when it is not a /1 file
file(GLOB _schema_all LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/results/sm_90/nvidia-h100-80gb-hbm3/*/[0-9]*Z)
list(SORT _schema_all)
list(GET _schema_all 0 MEMHIER_SCHEMA_V1_ARCHIVE)
if(TARGET memhier-infer AND TARGET memhier-compare AND MEMHIER_PYTHON3_SCHEMA AND _schema_all)
  add_test(NAME cli_infer_schema_v1_to_v2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/schema/run_schema_test.sh $<TARGET_FILE:memhier-infer>
                   $<TARGET_FILE:memhier-compare> ${MEMHIER_SCHEMA_V1_ARCHIVE} ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_schema)
  set_tests_properties(cli_infer_schema_v1_to_v2 PROPERTIES LABELS cli TIMEOUT 300)
endif()
