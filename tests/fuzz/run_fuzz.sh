#!/usr/bin/env bash
# Builds tests/fuzz/fuzz_loaders.cpp with clang and libFuzzer (+ AddressSanitizer and
# UndefinedBehaviorSanitizer) over the pure C++ rooms (common/, sim/, analysis/), makes the seed
# corpus from the repository's real files, and fuzzes for SECONDS. Exit 77 (ctest: skipped) where
# clang or libFuzzer is missing (Debian: clang and libclang-rt-14-dev; scripts/test.sh installs them
# when it can). Objects are kept in WORK and rebuilt only when a source or header is newer.
# usage: run_fuzz.sh SRC WORK SECONDS [extra libFuzzer flags]
set -uo pipefail
src=$1; work=$2; seconds=$3; shift 3
CXX=${MEMHIER_FUZZ_CXX:-}
if [ -z "$CXX" ]; then for c in clang++ clang++-14 clang++-15 clang++-16; do command -v "$c" >/dev/null && { CXX=$c; break; }; done; fi
[ -n "$CXX" ] || { echo "SKIP: no clang++ (install clang)"; exit 77; }
mkdir -p "$work/obj"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$work/probe.cpp"
"$CXX" -fsanitize=fuzzer "$work/probe.cpp" -o "$work/probe" 2>/dev/null ||
  { echo "SKIP: $CXX cannot link libFuzzer (install libclang-rt-14-dev)"; exit 77; }
# the analyzer's stamp (analysis/gate/analyzer.cpp) includes a header the build generates
# (cmake/Revision.cmake); here one of its own
mkdir -p "$work/gen"
printf '#define MEMHIER_ANALYZER_VERSION "fuzz"\n#define MEMHIER_ANALYZER_REVISION "fuzz"\n' > "$work/gen/memhier_revision.h.new"
cmp -s "$work/gen/memhier_revision.h.new" "$work/gen/memhier_revision.h" || mv "$work/gen/memhier_revision.h.new" "$work/gen/memhier_revision.h"
flags=(-std=c++17 -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I"$src" -I"$work/gen" -DMEMHIER_VERSION=\"fuzz\")
mapfile -t analysis_sources < <(find "$src/analysis" -name "*.cpp" | sort)
sources=("$src"/common/*.cpp "$src"/sim/*.cpp "${analysis_sources[@]}" "$src/tests/fuzz/fuzz_loaders.cpp")
newest_header=$(ls -t "$src"/common/*.hpp "$src"/sim/*.hpp $(find "$src/analysis" -name "*.hpp") | head -1)
t0=$SECONDS
compile() {  # compile SRC OBJ
  if [ ! -f "$2" ] || [ "$1" -nt "$2" ] || [ "$newest_header" -nt "$2" ]; then
    "$CXX" "${flags[@]}" -c "$1" -o "$2" || { echo "FAIL: cannot compile $1"; return 1; }
  fi
}

objs=()
pids=()
for s in "${sources[@]}"; do
  o="$work/obj/$(echo "${s#$src/}" | tr '/' '_').o"
  objs+=("$o")
  compile "$s" "$o" & pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || exit 1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || exit 1; done
"$CXX" -fsanitize=fuzzer,address,undefined "${objs[@]}" -o "$work/fuzz_loaders" || { echo "FAIL: cannot link"; exit 1; }
echo "built fuzz_loaders in $((SECONDS - t0)) s"
rm -rf "$work/seeds"; python3 "$src/tests/fuzz/make_corpus.py" "$src" "$work/seeds" || exit 1
mkdir -p "$work/corpus"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
  "$work/fuzz_loaders" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/finding-" "$@" "$work/corpus" "$work/seeds" > "$work/fuzz.log" 2>&1
rc=$?
grep -E "^stat::|INFO: (Loaded|seed corpus)|#[0-9]+.*DONE" "$work/fuzz.log" | tail -12
if [ $rc -ne 0 ]; then
  tail -60 "$work/fuzz.log"
  echo "FAIL: libFuzzer found a problem (exit $rc); the input is $(ls "$work"/finding-* 2>/dev/null | head -1)"
  exit 1
fi
echo "PASS: fuzzed ${seconds} s, corpus $(ls "$work/corpus" | wc -l) inputs"
