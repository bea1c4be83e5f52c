# `cmake --install <build> --prefix P` gives:
#   P/bin                         memhier-bench, memhier-infer, memhier-compare
#   P/share/memhier/scripts       characterize.sh, regression_check.sh, plot.py, ... and every
#                                 script they call or import (plot_sm_resources.py, archive_pack.py)
#   P/share/memhier/sim/configs   the simulated devices (sim:<config.json>)
#   P/lib/libmemhier_{analysis,common}.a, P/include/memhier/{analysis,common}/**.hpp and
#   P/lib/cmake/memhier/memhierConfig.cmake: find_package(memhier) gives memhier::analysis and
#   memhier::common (docs/library.md). Sources include "analysis/core/dataset.hpp" and
#   "common/bench_json.hpp" in the tree and in a consumer alike (include dir P/include/memhier).
# scripts/characterize.sh finds the programs there (P/bin beside P/share) and writes archives
# under ./results of the directory it runs in.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Copied as built (install(PROGRAMS)): CMake's RPATH rewrite of install(TARGETS) fails on the
# RUNPATH nvcc's link leaves in memhier-bench (/usr/local/cuda/lib), which stays valid as it is.
foreach(t memhier-bench memhier-infer memhier-compare)
  if(TARGET ${t})
    install(PROGRAMS $<TARGET_FILE:${t}> DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
# The scripts a user runs, and every script they call or import (tests/cli/install checks each).
install(PROGRAMS scripts/characterize.sh scripts/regression_check.sh scripts/plot.py scripts/archive_pack.py
                 scripts/archive_index.py scripts/topology_table.py scripts/summarize.py scripts/inject_change.py
                 scripts/ci_figures.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/memhier/scripts)
install(FILES scripts/plot_sm_resources.py DESTINATION ${CMAKE_INSTALL_DATADIR}/memhier/scripts)  # plot.py's
install(DIRECTORY sim/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/memhier/sim/configs FILES_MATCHING PATTERN "*.json")

# --- The library: memhier::analysis (links memhier::common) -----------------------------------
# The exported targets name their dependencies as the consumer finds them (find_dependency in
# memhierConfig.cmake), so nlohmann_json must come from an installed package here, not from
# FetchContent (whose target nothing installs): without one, no package is installed.
set(MEMHIER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/memhier)
get_target_property(_memhier_json_imported nlohmann_json::nlohmann_json IMPORTED)
if(NOT _memhier_json_imported)
  message(STATUS "memhier: nlohmann_json was fetched, not found: `cmake --install` leaves out the "
                 "CMake package (install nlohmann-json3-dev for find_package(memhier))")
  return()
endif()
set_target_properties(memhier_common PROPERTIES EXPORT_NAME common)
set_target_properties(memhier_analysis PROPERTIES EXPORT_NAME analysis)
install(TARGETS memhier_common memhier_analysis EXPORT memhierTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memhier)
foreach(dir analysis common)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memhier/${dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
endforeach()
install(EXPORT memhierTargets NAMESPACE memhier:: DESTINATION ${MEMHIER_CMAKE_DIR})
# ZLIB is a dependency of the package only when this build read archives with it.
get_target_property(_memhier_common_links memhier_common INTERFACE_LINK_LIBRARIES)
set(MEMHIER_PACKAGE_ZLIB OFF)
if("ZLIB::ZLIB" IN_LIST _memhier_common_links)
  set(MEMHIER_PACKAGE_ZLIB ON)
endif()
configure_package_config_file(cmake/memhierConfig.cmake.in ${PROJECT_BINARY_DIR}/memhierConfig.cmake
                              INSTALL_DESTINATION ${MEMHIER_CMAKE_DIR})
# 0.x: a consumer asking for 0.1 gets any 0.1.y, not 0.2
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memhierConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/memhierConfig.cmake ${PROJECT_BINARY_DIR}/memhierConfigVersion.cmake
        DESTINATION ${MEMHIER_CMAKE_DIR})
