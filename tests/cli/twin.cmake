# The simulated twin and the GPGPU-Sim export of issue 32 on the newest committed H100 archive
# (docs/simulator.md, "A twin of the GPU you measured"; docs/gpgpusim.md):
#   cli_twin_h100_fields  twin config -> characterization loop on the twin -> every decided field equal
#   cli_twin_h100_curves  every P-chase and TLB benchmark of the archive on the twin: median error
#                         per path at most 5 %, except the carveout groups (the simulator has no
#                         shared-memory carveout) and shared (4 classic-mode chases whose loop
#                         overhead the simulator does not add)
#   cli_gpgpusim_*        the export parsed back with gpu-cache.h's grammar; the grammar's own self-test;
#                         docs/gpgpusim/h100.config is what the code writes today
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  file(GLOB _h100 LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/results/sm_90/nvidia-h100-80gb-hbm3/*/2*)
  list(SORT _h100)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND AND _h100)
    list(GET _h100 -1 _arch)
    set(_rt ${CMAKE_CURRENT_SOURCE_DIR}/cli/twin_roundtrip.sh)
    add_test(NAME cli_twin_h100_fields
             COMMAND ${MEMHIER_BASH} ${_rt} $<TARGET_FILE_DIR:memhier-infer> ${_arch} ${CMAKE_CURRENT_BINARY_DIR}/cli_twin/fields fields)
    add_test(NAME cli_twin_h100_curves
             COMMAND ${MEMHIER_BASH} ${_rt} $<TARGET_FILE_DIR:memhier-infer> ${_arch} ${CMAKE_CURRENT_BINARY_DIR}/cli_twin/curves curves
                     --max-median 5 --except carveout: pchase/path:shared)
    set_tests_properties(cli_twin_h100_fields cli_twin_h100_curves PROPERTIES LABELS "cli;sim" TIMEOUT 300)
    # a file that is no topology: one line naming it, exit 1, nothing written
    foreach(_m twin gpgpusim)
      add_test(NAME cli_${_m}_not_a_topology
               COMMAND $<TARGET_FILE:memhier-infer> --${_m}-config ${PROJECT_SOURCE_DIR}/sim/configs/plain_lru.json)
      set_tests_properties(cli_${_m}_not_a_topology PROPERTIES LABELS cli
                           PASS_REGULAR_EXPRESSION "plain_lru.json: not a memhier topology")
    endforeach()
    set(_chk ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_gpgpusim_config.py)
    set(_w ${CMAKE_CURRENT_BINARY_DIR}/cli_gpgpusim)
    # the oldest H100 archive whose topology.json is memhier-topology/1, read as /2 too
    set(_v1 "")
    foreach(_x IN LISTS _h100)
      file(STRINGS ${_x}/topology.json _m REGEX "\"schema\": \"memhier-topology/1\"" LIMIT_COUNT 1)
      if(_m AND NOT _v1)
        set(_v1 ${_x})
      endif()
    endforeach()
    if(_v1)
      add_test(NAME cli_twin_schema_v2
               COMMAND ${MEMHIER_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/twin_schema_v2.sh $<TARGET_FILE_DIR:memhier-infer>
                       ${_v1} ${CMAKE_CURRENT_BINARY_DIR}/cli_twin/schema_v2)
      set_tests_properties(cli_twin_schema_v2 PROPERTIES LABELS cli TIMEOUT 60)
    endif()
    add_test(NAME cli_gpgpusim_h100_export
             COMMAND ${CMAKE_COMMAND} -E make_directory ${_w})
    add_test(NAME cli_gpgpusim_h100_write
             COMMAND $<TARGET_FILE:memhier-infer> --gpgpusim-config ${_arch} -o ${_w}/h100.config)
    add_test(NAME cli_gpgpusim_h100_grammar
             COMMAND ${Python3_EXECUTABLE} ${_chk} ${_w}/h100.config --topology ${_arch}/topology.json)
    add_test(NAME cli_gpgpusim_grammar_self_test COMMAND ${Python3_EXECUTABLE} ${_chk} --self-test)
    set_tests_properties(cli_gpgpusim_h100_export PROPERTIES LABELS cli FIXTURES_SETUP gpgpusim_dir)
    set_tests_properties(cli_gpgpusim_h100_write PROPERTIES LABELS cli FIXTURES_REQUIRED gpgpusim_dir FIXTURES_SETUP gpgpusim_cfg)
    set_tests_properties(cli_gpgpusim_h100_grammar PROPERTIES LABELS cli FIXTURES_REQUIRED gpgpusim_cfg)
    set_tests_properties(cli_gpgpusim_grammar_self_test PROPERTIES LABELS cli)
    # docs/gpgpusim/h100.config is the export of the archive docs/gpgpusim.md names
    set(_doc_arch ${PROJECT_SOURCE_DIR}/results/sm_90/nvidia-h100-80gb-hbm3/580.159.04/20261127T223101Z)
    if(EXISTS ${_doc_arch}/topology.json)
      add_test(NAME cli_gpgpusim_h100_current
               COMMAND ${CMAKE_COMMAND} -E env ${MEMHIER_BASH} -c
                       "$<TARGET_FILE:memhier-infer> --gpgpusim-config ${_doc_arch} | diff - ${PROJECT_SOURCE_DIR}/docs/gpgpusim/h100.config")
      set_tests_properties(cli_gpgpusim_h100_current PROPERTIES LABELS cli)
    endif()
  endif()
endif()
