# Regression check (label gpu): scripts/regression_check.sh (the check plan on GPU 0) three times
# against the newest full archive of the same GPU under results/, each must pass; each change of
# docs/ci.md injected into a check run must be caught (tests/cli/gate/run_regression_gpu_test.sh).
# Skips (77) without a GPU, without memhier-bench or without such an archive.
if(TARGET memhier-compare)
  add_test(NAME gpu_regression_check
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/gate/run_regression_gpu_test.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gpu_regression_check)
  set_tests_properties(gpu_regression_check PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
