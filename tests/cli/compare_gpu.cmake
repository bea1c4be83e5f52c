# Regression check (label gpu): a quick plan on GPU 0 compared with the newest archive of the same
# GPU under results/. Skips (77) without a GPU, without memhier-bench or without such an archive.
if(TARGET memhier-compare)
  add_test(NAME gpu_regression_check
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/regression_check.sh --build ${PROJECT_BINARY_DIR}
                   --results ${PROJECT_SOURCE_DIR}/results)
  set_tests_properties(gpu_regression_check PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
