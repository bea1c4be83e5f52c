#!/usr/bin/env bash
# Device part (dev/device/run.sh levels:SECONDS), issue 21: the level families beyond one SM
# (dsmem, async_copy, host, peer) on this host's GPUs. 1. archives (DIR/results/): with two GPUs
# `characterize.sh --all` (each GPU's peer pairs first, then both at once), then GPU 0 alone; a
# table of every level figure of each archive (LEVELS_CHARACTERIZE=0: the level benchmarks alone
# on each GPU instead, no archive); 2. the gpu-labelled tests of the levels (Levels*);
# 3. compute-sanitizer memcheck, synccheck and racecheck over the quick plan of these families
# (MEMHIER_MIN_WORK=1: the fewest repetitions; LEVELS_SANITIZE=0 skips it, LEVELS_SANITIZE_S bounds
# each tool, default 60 s). Never rebuilds. Writes DIR/summary.txt. LEVELS_FILTER overrides the
# families' filter.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_levels.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
B=$BIN/memhier-bench
F=${LEVELS_FILTER:-'^(dsmem|async_copy|host|peer)/'}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
say() { echo "$*" | tee -a "$sum"; }
table() {  # table JSON: one line per benchmark with its figures, errors first
  python3 - "$1" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
c = b["context"]
keys = [k for k in sorted(c) if k.startswith(("host_link", "peer_", "max_cluster"))]
print("  context: " + "; ".join("%s=%s" % (k, c[k]) for k in keys))
err = [x for x in b["benchmarks"] if x.get("error_occurred")]
print("  %d benchmarks, %d failed" % (len(b["benchmarks"]), len(err)))
for x in err:
    print("  FAILED %s: %s" % (x["name"], x.get("error_message", "")[:200]))
show = ["latency_cycles", "latency_min_cycles", "latency_max_cycles", "latency_same_tpc_cycles",
        "latency_other_tpc_cycles", "latency_ns", "bytes_per_clock_per_sm", "pct_of_peak",
        "source_bytes_per_second", "fault_latency_cycles", "prefetch_bytes_per_second"]
for x in b["benchmarks"]:
    if x.get("error_occurred"):
        continue
    parts = []
    if "bytes_per_second" in x:
        parts.append("%.1f GB/s" % (x["bytes_per_second"] / 1e9))
    for k in show:
        if k in x:
            v = x[k]
            parts.append("%s %s" % (k.replace("_cycles", "").replace("bytes_per_", "B/"), ("%.3g" % v) if abs(v) < 1e6 else "%.3e" % v))
    print("  %-70s %s" % (x["name"].replace("/iterations:1/manual_time", ""), "  ".join(parts)))
PY
}
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | tr '\n' ';')"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
"$B" --device=list 2>&1 | sed 's/^/  /' | tee -a "$sum"
C=$ROOT/scripts/characterize.sh
char() {  # char NAME ARGS...: one characterization into DIR/results/NAME, its result line
  local name=$1; shift
  local s=$SECONDS
  "$C" --no-build --build-dir "$BIN" --results "$dir/results/$name" --no-plots "$@" > "$dir/$name.log" 2>&1
  say "characterize $name: rc=$? $((SECONDS - s)) s; $(grep -o 'device [^ ]* done in [0-9.]* s' "$dir/$name.log" | tr '\n' ';')"
  grep -E 'WARNING|node:|peer pairs|all [0-9]+ devices done' "$dir/$name.log" | sed 's/^/  /' | tee -a "$sum"
}
# 1. the archives: with two GPUs every GPU at once (peer pairs first), then GPU 0 alone
[ "${LEVELS_CHARACTERIZE:-1}" = 1 ] && [ "$n" -ge 2 ] && char all --all
[ "${LEVELS_CHARACTERIZE:-1}" = 1 ] && char single --device cuda:0
for a in $(find "$dir/results" -mindepth 5 -maxdepth 5 -type d -name '20*Z' 2>/dev/null | sort); do
  say "archive ${a#$dir/results/}: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["device"]; print(d.get("gpu_name"), d.get("characterize_wall_seconds"), "s")' "$a/topology.json" 2>&1)"
  gzip -dc "$a/bench.json.gz" > "$dir/levels-tmp.json" 2>/dev/null && table "$dir/levels-tmp.json" | tee -a "$sum"
  rm -f "$dir/levels-tmp.json"
done
# without archives (LEVELS_CHARACTERIZE=0): the level benchmarks alone on each GPU
if [ "${LEVELS_CHARACTERIZE:-1}" != 1 ]; then
  devs=(cuda:0); [ "$n" -ge 2 ] && devs+=(cuda:1)
  for d in "${devs[@]}"; do
    f=$dir/levels-${d/:/}.json s=$SECONDS
    timeout -k 5 150 "$B" --device="$d" --benchmark_filter="$F" --benchmark_out="$f" --benchmark_out_format=json \
      --memhier_progress=auto > "$dir/levels-${d/:/}.log" 2>&1
    say "$d: level benchmarks exit $? in $((SECONDS - s)) s"
    [ -s "$f" ] && table "$f" | tee -a "$sum"
  done
fi
# 2. the GPU tests of the levels
if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 60 "$BIN/tests/memhier_gpu_tests" --gtest_filter='Levels*' > "$dir/gputests.log" 2>&1
  say "gpu tests Levels*: exit $?; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$dir/gputests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure' "$dir/gputests.log" | head -8 | sed 's/^/  | /' | tee -a "$sum"
fi
# 3. compute-sanitizer over the quick plan of the level families (the fewest repetitions)
if [ "${LEVELS_SANITIZE:-1}" = 1 ] && [ -x "$SAN" ]; then
  for tool in memcheck synccheck racecheck; do
    s=$SECONDS
    MEMHIER_MIN_WORK=1 timeout -k 5 "${LEVELS_SANITIZE_S:-60}" "$SAN" --tool "$tool" --error-exitcode 9 "$B" --plan=quick \
      --benchmark_filter="$F" --benchmark_out="$dir/san-$tool.json" --benchmark_out_format=json \
      > "$dir/san-$tool.log" 2>&1
    rc=$?
    say "compute-sanitizer $tool: exit $rc in $((SECONDS - s)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san-$tool.log" | tail -1)"
    [ $rc -ne 0 ] && grep -m3 -E '^=+ +(Invalid|Error|Race|Barrier|.*hazard)' "$dir/san-$tool.log" | sed 's/^/  | /' | tee -a "$sum"
  done
fi
exit 0  # the steps above report their own exit codes in the summary
