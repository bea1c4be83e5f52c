#!/usr/bin/env bash
# Device run (lead): the characterization end to end, RUNS times (default 1), then
# memhier-compare of the first two runs, and the GPU tests; archives come back as one tarball.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
OUT=${OUT:-/tmp/out}
case "$OUT" in /*) ;; *) OUT=$(pwd)/$OUT ;; esac  # relative to the calling directory
cd "$(dirname "$0")/.."  # the checkout (scripts/ and build/ below are relative to it)
mkdir -p "$OUT/results"
RUNS=${RUNS:-1}
for i in $(seq 1 "$RUNS"); do
  scripts/characterize.sh --results "$OUT/results" > "$OUT/characterize-$i.log" 2>&1
  echo "characterize run $i rc=$?"
  grep -E "^\[characterize|^archive:" "$OUT/characterize-$i.log" | tail -12
done
mapfile -t archives < <(find "$OUT/results" -mindepth 4 -maxdepth 4 -type d -not -name '.incomplete-*' | sort)
if [ "${#archives[@]}" -ge 2 ]; then
  ./build/release/memhier-compare "${archives[0]}" "${archives[1]}" --format=markdown -o "${archives[1]}/compare-with-previous.md" > "$OUT/compare.log" 2>&1
  echo "compare rc=$?"; tail -25 "$OUT/compare.log"
fi
if [ "${#archives[@]}" -ge 1 ]; then
  scripts/regression_check.sh --build build/release --results "$OUT/results" --format markdown \
    -o "$OUT/regression-check.md" > "$OUT/regression.log" 2>&1
  echo "regression check (quick plan vs newest archive) rc=$? $(grep -m1 -E '\*\*' "$OUT/regression-check.md" 2>/dev/null)"
  cp "$OUT/regression-check.md" "${archives[-1]}/regression-check-quick.md" 2>/dev/null || true
fi
cmake --build --preset release --target memhier_gpu_tests > "$OUT/gpu-build.log" 2>&1 && ./build/release/tests/memhier_gpu_tests > "$OUT/gpu-tests.log" 2>&1; echo "gpu tests rc=$? $(grep -cE '^\[       OK' "$OUT/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \] [A-Z]' "$OUT/gpu-tests.log") failed"
if [ "${SANITIZE:-0}" = 1 ]; then
  B=./build/release/memhier-bench
  timeout 240 compute-sanitizer --tool memcheck "$B" --plan=quick --memhier_progress=0 \
    --benchmark_filter='^(clock|pchase|tlb|latency_spectrum|smem|warp_access|l1_throughput|l2_throughput)' > "$OUT/memcheck.log" 2>&1
  echo "memcheck (quick plan, on-chip and P-chase families) rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  timeout 200 compute-sanitizer --tool memcheck "$B" --plan=quick --memhier_progress=0 \
    --benchmark_filter='^gmem_throughput' > "$OUT/memcheck-gmem.log" 2>&1
  echo "memcheck (quick plan, gmem_throughput) rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck-gmem.log" | tail -1)"
  timeout 240 compute-sanitizer --tool racecheck "$B" --plan=quick --memhier_progress=0 \
    --benchmark_filter='^(pchase|smem|warp_access|l1_throughput|l2_throughput|clock)' > "$OUT/racecheck.log" 2>&1
  echo "racecheck (quick plan) rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck.log" | tail -1)"
fi
for i in $(seq 1 "$RUNS"); do grep -E "^(Caches|Bandwidth)" -A12 "$OUT/characterize-$i.log" | head -26; done
(cd "$OUT" && tar czf archive.tgz results && rm -rf results && tar czf logs.tgz *.log && rm -f *.log)
