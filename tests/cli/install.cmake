# cmake --install puts the programs, the scripts and the sim configs under a prefix, and every
# installed script works from there, run from another directory with relative paths
# (tests/cli/install/run_install_test.sh).
if(TARGET memhier-bench AND TARGET memhier-infer AND TARGET memhier-compare)
  add_test(NAME cli_install_characterize
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/install/run_install_test.sh ${PROJECT_BINARY_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_install ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_install_characterize PROPERTIES LABELS cli TIMEOUT 600)
endif()
# cmake --install gives a CMake package: a C++-only project of its own (tests/cli/consumer) finds
# it, links memhier::analysis and reads a committed archive (tests/cli/install/run_consumer_test.sh).
add_test(NAME cli_install_consumer
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/install/run_consumer_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_install_consumer ${CMAKE_CXX_COMPILER}
                 ${CMAKE_GENERATOR})
set_tests_properties(cli_install_consumer PROPERTIES LABELS cli TIMEOUT 600 SKIP_RETURN_CODE 77)
