#!/usr/bin/env bash
# Device run (lead): build release for sm_90, GPU tests, sanitizer on the P-chase kernels, the
# P-chase plan; everything under $OUT; short table last.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
OUT=${OUT:-/tmp/out}
case "$OUT" in /*) ;; *) OUT=$(pwd)/$OUT ;; esac  # relative to the calling directory
cd "$(dirname "$0")/.."  # the checkout (scripts/ and build/ below are relative to it)
mkdir -p "$OUT"
export CUDAARCHS=${CUDAARCHS:-90}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/nvidia-smi.csv" 2>&1
cmake --preset release > "$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build --preset release -j16 --target memhier-bench memhier_gpu_tests > "$OUT/build.log" 2>&1 ||
  { grep -B2 -A6 -E "error|FAILED" "$OUT/build.log" | head -60; exit 1; }
./build/release/tests/memhier_gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "OK|FAILED|SKIPPED|Failure|Expected|Which|error" | head -40
if [ "${SANITIZE:-1}" = 1 ]; then
  compute-sanitizer --tool memcheck ./build/release/tests/memhier_gpu_tests --gtest_filter='*EveryPath*:*Batch*' > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log")"
  compute-sanitizer --tool racecheck ./build/release/tests/memhier_gpu_tests --gtest_filter='*Batch*:*TooLarge*' > "$OUT/racecheck.log" 2>&1; echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log")"
fi
./build/release/memhier-bench --plan="${PLAN:-full}" --benchmark_filter="${FILTER:-^(pchase|tlb|latency_spectrum|clock_overhead)}" \
  --benchmark_out="$OUT/bench.json" --benchmark_out_format=json --memhier_progress=0 > "$OUT/bench_console.log" 2>&1
echo "bench rc=$?"; tail -3 "$OUT/bench_console.log"
(cd "$OUT" && tar czf traces.tgz traces && rm -rf traces && tar czf logs.tgz *.log *.csv && rm -f *.log *.csv)
python3 scripts/summarize.py "$OUT/bench.json"
