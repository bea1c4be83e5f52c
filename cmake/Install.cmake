# `cmake --install <build> --prefix P`: the three programs in P/bin, the scripts and the sim
# configs in P/share/memhier/{scripts,sim/configs}. scripts/characterize.sh finds the programs
# there (P/bin beside P/share) and writes archives under ./results of the directory it runs in.
include(GNUInstallDirs)
# Copied as built (install(PROGRAMS)): CMake's RPATH rewrite of install(TARGETS) fails on the
# RUNPATH nvcc's link leaves in memhier-bench (/usr/local/cuda/lib), which stays valid as it is.
foreach(t memhier-bench memhier-infer memhier-compare)
  if(TARGET ${t})
    install(PROGRAMS $<TARGET_FILE:${t}> DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(PROGRAMS scripts/characterize.sh scripts/regression_check.sh scripts/plot.py scripts/archive_pack.py
                 scripts/archive_index.py scripts/topology_table.py scripts/summarize.py scripts/inject_change.py
                 scripts/ci_figures.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/memhier/scripts)
install(DIRECTORY sim/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/memhier/sim/configs FILES_MATCHING PATTERN "*.json")
