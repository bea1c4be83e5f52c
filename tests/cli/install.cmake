# cmake --install puts the programs, the scripts and the sim configs under a prefix, and
# characterize.sh works from there (tests/cli/install/run_install_test.sh).
if(TARGET memhier-bench AND TARGET memhier-infer AND TARGET memhier-compare)
  add_test(NAME cli_install_characterize
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/install/run_install_test.sh ${PROJECT_BINARY_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_install)
  set_tests_properties(cli_install_characterize PROPERTIES LABELS cli TIMEOUT 600)
endif()
