# The cache_sequences family end to end on simulated devices: memhier-bench runs the search for
# every cache of a config (requests file, --plan=none) and writes counters and sequence traces;
# check_cache_sequences.py compares the eviction sets with the config's ways and reads every trace.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TARGET memhier-bench AND Python3_Interpreter_FOUND)
  # sequences/hopper_sequences: what the H100 showed (state kept across sequences, an L1 emptied at
  # every launch, a far L2 partition between the near one and DRAM, slow outliers), all four caches
  # searched in one process as on the GPU; _random_l1: the same with a randomly replacing L1.
  foreach(cfg unlike_hopper hopper_like sequences/hopper_sequences sequences/hopper_sequences_random_l1)
    string(REPLACE "/" "_" _name ${cfg})
    add_test(NAME cli_cache_sequences_${_name}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_cache_sequences.py
                     $<TARGET_FILE:memhier-bench> ${PROJECT_SOURCE_DIR}/sim/configs/${cfg}.json
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_cache_sequences/${_name})
    set_tests_properties(cli_cache_sequences_${_name} PROPERTIES LABELS "cli;sim" TIMEOUT 120)
  endforeach()
endif()
