# The cache_sequences family end to end on simulated devices: memhier-bench runs the search for
# every cache of a config (requests file, --plan=none) and writes counters and sequence traces;
# check_cache_sequences.py compares the eviction sets with the config's ways and reads every trace.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TARGET memhier-bench AND Python3_Interpreter_FOUND)
  foreach(cfg unlike_hopper hopper_like)
    add_test(NAME cli_cache_sequences_${cfg}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_cache_sequences.py
                     $<TARGET_FILE:memhier-bench> ${PROJECT_SOURCE_DIR}/sim/configs/${cfg}.json
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_cache_sequences/${cfg})
    set_tests_properties(cli_cache_sequences_${cfg} PROPERTIES LABELS "cli;sim" TIMEOUT 120)
  endforeach()
endif()
