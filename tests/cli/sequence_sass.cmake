# The SASS check of the access-sequence kernel (scripts/check_sequence_sass.py, run by
# dev/device/part_sequences.sh on the device's cuobjdump output) on two fixtures: an excerpt of
# the H100's first run, where ptxas let eight untimed loads overlap (must be caught), and SASS in
# the shape of the chained kernel (must pass). This machine has no cuobjdump: the kernel's own SASS
# is checked on the device.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(_chk ${PROJECT_SOURCE_DIR}/scripts/check_sequence_sass.py)
  add_test(NAME cli_sequence_sass_catches_overlap
           COMMAND ${Python3_EXECUTABLE} ${_chk} ${CMAKE_CURRENT_SOURCE_DIR}/cli/sass/h100_run1_overlap.sass)
  set_tests_properties(cli_sequence_sass_catches_overlap PROPERTIES LABELS "cli"
                       PASS_REGULAR_EXPRESSION "[1-9][0-9]* overlap it")
  add_test(NAME cli_sequence_sass_chained
           COMMAND ${Python3_EXECUTABLE} ${_chk} ${CMAKE_CURRENT_SOURCE_DIR}/cli/sass/chained.sass)
  set_tests_properties(cli_sequence_sass_chained PROPERTIES LABELS "cli")
endif()
