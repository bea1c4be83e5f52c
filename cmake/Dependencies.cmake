# Dependencies: the machine's packages first; FetchContent only where a package is missing and the
# internet is reachable (FIND_PACKAGE_ARGS makes FetchContent try find_package first).
include(FetchContent)

find_package(CUDAToolkit REQUIRED)

FetchContent_Declare(nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
  FIND_PACKAGE_ARGS 3.10 NAMES nlohmann_json)

set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
FetchContent_Declare(benchmark
  GIT_REPOSITORY https://github.com/google/benchmark.git
  GIT_TAG v1.8.3
  FIND_PACKAGE_ARGS 1.7 NAMES benchmark)

set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
FetchContent_Declare(googletest
  GIT_REPOSITORY https://github.com/google/googletest.git
  GIT_TAG v1.14.0
  FIND_PACKAGE_ARGS NAMES GTest)

FetchContent_MakeAvailable(nlohmann_json benchmark)
if(MEMHIER_BUILD_TESTS)
  FetchContent_MakeAvailable(googletest)
  if(NOT TARGET GTest::gtest_main AND TARGET gtest_main)
    add_library(GTest::gtest_main ALIAS gtest_main)
    add_library(GTest::gtest ALIAS gtest)
  endif()
  include(GoogleTest)
endif()
