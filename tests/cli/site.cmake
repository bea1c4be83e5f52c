# scripts/site.py (docs/site.md): the static site of the committed results/ (H100 and H200
# archives, plus a broken copy in a scratch tree) built and opened in Debian's Chromium through
# Playwright (tests/site/site_test.js; packages pinned by tests/site/package-lock.json and
# scripts/site/package-lock.json, installed with npm ci under the build directory). Skipped (77,
# with the reason) without node/npm, /usr/bin/chromium, or when npm ci cannot install.
if(TARGET memhier-compare)
  add_test(NAME cli_site
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/site/run_site_test.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_site $<TARGET_FILE:memhier-compare>)
  set_tests_properties(cli_site PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
# What the pages print, without a browser: verdict colours only where the gate judged, units by
# magnitude, memhier-topology/1 and /2 read alike (tests/site/test_site_py.py).
find_program(MEMHIER_PYTHON3_SITE python3)
if(MEMHIER_PYTHON3_SITE)
  add_test(NAME cli_site_py COMMAND ${MEMHIER_PYTHON3_SITE} ${CMAKE_CURRENT_SOURCE_DIR}/site/test_site_py.py)
  set_tests_properties(cli_site_py PROPERTIES LABELS cli)
endif()
