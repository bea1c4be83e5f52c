# The cache_streams family end to end on simulated devices (docs/methodology.md, section
# cache_streams): plain_lru's L1 as LRU and as SLRU; check_cache_streams.py checks names, counters,
# the rise with k, LRU against the binomial, and that a re-read line survives SLRU's streams.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TARGET memhier-bench AND Python3_Interpreter_FOUND)
  add_test(NAME cli_cache_streams_sim
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_cache_streams.py
                   $<TARGET_FILE:memhier-bench> ${PROJECT_SOURCE_DIR}/sim/configs/plain_lru.json
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_cache_streams)
  set_tests_properties(cli_cache_streams_sim PROPERTIES LABELS "cli;sim" TIMEOUT 120)
endif()
