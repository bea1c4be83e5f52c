# Functions a reader can hold in mind: none in analysis/ or tools/ runs past 80 lines
# (scripts/check_function_length.py names each one that does).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  add_test(NAME lint_function_length
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_function_length.py --max 80
                   ${PROJECT_SOURCE_DIR}/analysis ${PROJECT_SOURCE_DIR}/tools)
  set_tests_properties(lint_function_length PROPERTIES LABELS cli)
endif()
