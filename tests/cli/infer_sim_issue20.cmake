# Issue 20: configs that exposed analyzer faults and whose right answer was a null with its reason
# (l2_plru_gf2: since issue 30 item 5 the fit over every gradual policy gives its size and policy)
# (check_topology.py asks for every value, so they cannot join sim/configs): the loop of
# infer_sim_loop.sh, then check_issue20.py on the cache concerned. Configs whose values all come out
# right live in sim/configs (cli_infer_sim_<name>): l2_modulo_96_sets (fault d).
if(TARGET memhier-infer AND TARGET memhier-bench)
  find_program(MEMHIER_BASH bash)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(MEMHIER_BASH AND Python3_Interpreter_FOUND)
    set(_dir ${CMAKE_CURRENT_SOURCE_DIR}/cli/issue20)
    # name | config | cache | check
    set(_cases "l2_plru_gf2|l2_plru_gf2.json|l2|fit=262144:plru"
               "l2_random_384_sets|l2_random_384_sets.json|l2|line=128")
    foreach(case ${_cases})
      string(REPLACE "|" ";" kv "${case}")
      list(GET kv 0 n)
      list(GET kv 1 cfg)
      list(GET kv 2 cache)
      list(GET kv 3 check)
      set(_work ${CMAKE_CURRENT_BINARY_DIR}/cli_infer_sim_issue20/${n})
      add_test(NAME cli_infer_sim_issue20_${n}
               COMMAND ${MEMHIER_BASH} -c "\"$0\" \"$1\" \"$2\" \"$3\" >/dev/null && \"$4\" \"$5\" \"$3/topology.json\" \"$6\" \"$7\""
                       ${_dir}/../infer_sim_loop.sh $<TARGET_FILE_DIR:memhier-infer> ${_dir}/${cfg} ${_work}
                       ${Python3_EXECUTABLE} ${_dir}/check_issue20.py ${cache} ${check})
      set_tests_properties(cli_infer_sim_issue20_${n} PROPERTIES LABELS "cli;sim" TIMEOUT 120)
    endforeach()
  endif()
endif()
