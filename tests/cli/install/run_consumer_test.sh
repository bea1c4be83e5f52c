#!/usr/bin/env bash
# cmake --install gives a CMake package another project can use: P/lib/cmake/memhier with
# memhier::analysis and memhier::common, headers under P/include/memhier. A project of its own
# (tests/cli/consumer, C++ only) finds it with find_package(memhier CONFIG REQUIRED), builds
# without CUDA on its PATH, and reads a committed archive through the library; its figures must
# match what Python reads from the same files.
#   run_consumer_test.sh BUILD-DIR SOURCE-DIR WORK-DIR CXX-COMPILER GENERATOR
set -uo pipefail
bin=$1; src=$2; w=$3; cxx=$4; gen=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
cmake --install "$bin" --prefix "$w/prefix" > "$w/install.log" 2>&1 || { cat "$w/install.log"; fail "cmake --install"; }
p=$w/prefix
pkg=$(dirname "$(find "$p" -path '*/cmake/memhier/memhierConfig.cmake' | head -1)")
if [ "$pkg" = . ]; then
  echo "SKIP: no CMake package installed (nlohmann_json was fetched, not found; cmake/Install.cmake)"; exit 77
fi
[ "$pkg" = "$p/lib/cmake/memhier" ] || echo "note: the package is in $pkg (CMAKE_INSTALL_LIBDIR)"
for f in "$pkg/memhierConfigVersion.cmake" "$pkg/memhierTargets.cmake" include/memhier/analysis/core/dataset.hpp \
         include/memhier/analysis/gate/gate.hpp include/memhier/common/bench_json.hpp; do
  case "$f" in /*) ;; *) f=$p/$f ;; esac
  [ -f "$f" ] || fail "${f#"$p"/} not installed"
done
ls "$p"/lib*/libmemhier_analysis.a "$p"/lib*/libmemhier_common.a >/dev/null 2>&1 || fail "the static libraries are not installed"
[ -z "$(find "$p/include" -name '*.cpp' -o -name '*.cu' -o -name '*.cuh')" ] || fail "sources installed as headers"
! cat "$pkg"/*.cmake | grep -v '^\s*#' | grep -i cuda || fail "the package names CUDA (a consumer must not need it)"

# The consumer: C++ only, no nvcc on the PATH, no CUDACXX, nothing from the build tree.
path_no_cuda=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v cuda | paste -sd:)
env -u CUDACXX -u CUDAARCHS PATH="$path_no_cuda" cmake -S "$src/tests/cli/consumer" -B "$w/consumer" -G "$gen" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_BUILD_TYPE=Release > "$w/configure.log" 2>&1 || { cat "$w/configure.log"; fail "the consumer does not configure"; }
grep -q "^memhier_DIR:PATH=$pkg\$" "$w/consumer/CMakeCache.txt" || fail "find_package(memhier) did not take $pkg"
! grep -qE "CMAKE_CUDA_|CUDAToolkit_" "$w/consumer/CMakeCache.txt" || fail "configuring the consumer looked for CUDA"
env PATH="$path_no_cuda" cmake --build "$w/consumer" > "$w/build.log" 2>&1 || { cat "$w/build.log"; fail "the consumer does not build"; }
# The include style of the tree: "analysis/..." and "common/..." from P/include/memhier.
grep -rqsF --include=build.ninja --include=flags.make -- "$p/include/memhier" "$w/consumer" ||
  fail "the consumer does not compile against $p/include/memhier"

# A committed archive (a real GPU's, packed traces, gzip JSON), read through the library.
a=$(find "$src/results" -mindepth 4 -maxdepth 4 -type d -name '20*' 2>/dev/null | sort | while read -r d; do
      [ -f "$d/bench.json.gz" ] && [ -f "$d/topology.json" ] && [ -f "$d/traces.pack.gz" ] && echo "$d"; done | tail -1)
[ -n "$a" ] || fail "no committed archive with bench.json.gz, topology.json and traces.pack.gz under $src/results"
"$w/consumer/memhier-consumer" "$a" > "$w/consumer.log" 2> "$w/consumer.err" || { cat "$w/consumer.err"; fail "memhier-consumer $a"; }
cat "$w/consumer.log"
expect=$(python3 - "$a" <<'PY'
import glob, gzip, json, os, sys
a = sys.argv[1]
files = [os.path.join(a, "bench.json.gz")] + sorted(glob.glob(os.path.join(a, "refine-*.json.gz")),
                                                    key=lambda f: int(os.path.basename(f).split("-")[1].split(".")[0]))
runs = [json.load(gzip.open(f)) for f in files]
print("%d files, %d benchmarks, gpu '%s'" % (len(files), sum(len(r["benchmarks"]) for r in runs),
                                              runs[0]["context"].get("gpu_name", "")))
PY
)
version=$(sed -n 's/^project(memhier VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
grep -qxF "library $version: $expect" "$w/consumer.log" || fail "the library read the archive differently: expected 'library $version: $expect'"
grep -qE "^traces: [1-9][0-9]* chases, [1-9][0-9]* samples$" "$w/consumer.log" || fail "no trace read from the pack"
grep -qE "^gate against itself: exit 0, [1-9][0-9]* rows, headline yes$" "$w/consumer.log" || fail "the gate did not pass the archive against itself"
# a bad archive: the library's one-line error, exit 1
if "$w/consumer/memhier-consumer" "$w/nowhere" > /dev/null 2> "$w/bad.err"; then fail "a missing archive did not fail"; fi
[ "$(wc -l < "$w/bad.err")" = 1 ] && grep -q nowhere "$w/bad.err" || { cat "$w/bad.err"; fail "a missing archive: not one line naming it"; }
echo PASS
