# The analyzer's source revision, written into a header at every build (cmake -P, from the custom
# target memhier_revision of analysis/CMakeLists.txt): `git describe --always --dirty` of the
# source tree ("unknown" outside a git checkout or without git: a release tarball builds the same).
# The header is rewritten only when the revision changed, so an unchanged tree recompiles nothing.
# -DSOURCE_DIR=<source root> -DOUT=<header> -DVERSION=<semver>
set(_rev "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE _out ERROR_QUIET RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_rc EQUAL 0 AND NOT _out STREQUAL "")
    set(_rev "${_out}")
  endif()
endif()
# MEMHIER_SOURCE_REVISION in the environment names the revision where the checkout's own git state
# does not (a copy of the working tree over an older .git, as the device tool sends it: `git
# describe` there names the older commit "-dirty"); dev/device/run.sh passes it on.
if(NOT "$ENV{MEMHIER_SOURCE_REVISION}" STREQUAL "")
  set(_rev "$ENV{MEMHIER_SOURCE_REVISION}")
endif()
set(_text "// written by cmake/Revision.cmake at build time\n#define MEMHIER_ANALYZER_VERSION \"${VERSION}\"\n#define MEMHIER_ANALYZER_REVISION \"${_rev}\"\n")
set(_old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE "${OUT}" "${_text}")
endif()
