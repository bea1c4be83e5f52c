#!/usr/bin/env bash
# Device part (dev/device/run.sh persist:SECONDS), issue 20 item 4: the l2_persist family
# (docs/methodology.md, section l2_persist) on GPU 0. 1. the family's full sweep with 3 repetitions
# (memhier-bench --benchmark_filter), a table per benchmark (requested, granted, window, hitRatio,
# whether an access policy window was set (win 0: the window-free control, policy:none), kept bytes
# and fraction, the trials' range, hit/miss latencies, the references and the threshold, the limit
# before the benchmark and after its trials) and memhier-infer's l2_persisting section (the largest
# kept, the control, the minimum set-aside request 0 keeps under a window, kept over the maximum);
# 2. the gpu-labelled tests of the family (L2PersistGpu*: a set-aside keeps more than the control,
# the limit is restored after a run and after a refused request, the window-free control beside
# request 0 with the window); 3. compute-sanitizer memcheck and
# racecheck over the quick plan of the family (MEMHIER_MIN_WORK=1: one trial, a shorter co-runner;
# PERSIST_SANITIZE=0 skips it, PERSIST_SANITIZE_S bounds each tool, default 60 s). Never rebuilds.
# Writes DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_persist.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
B=$BIN/memhier-bench
F='^l2_persist/'
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
say() { echo "$*" | tee -a "$sum"; }
table() {  # table BENCH-JSON TOPOLOGY-JSON: one line per benchmark, then the section's decisions
  python3 - "$1" "$2" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
c = b["context"]
MiB = 1 << 20
print("  context: gpu %s, l2 %.1f MiB, l2_persisting_max_bytes %s (%.2f MiB), access_policy_max_window_bytes %s" % (
    c.get("gpu_name"), int(c.get("l2_cache_bytes", 0)) / MiB, c.get("l2_persisting_max_bytes"),
    int(c.get("l2_persisting_max_bytes", 0)) / MiB, c.get("access_policy_max_window_bytes")))
err = [x for x in b["benchmarks"] if x.get("error_occurred")]
print("  %d benchmark entries, %d failed" % (len(b["benchmarks"]), len(err)))
for x in err:
    print("  FAILED %s: %s" % (x["name"], x.get("error_message", "")[:200]))
print("  %-58s %9s %9s %9s %5s %3s %9s %7s %19s %11s %13s %6s %3s %7s %9s %19s" % (
    "benchmark", "req MiB", "grant MiB", "win MiB", "ratio", "win", "kept MiB", "kept %", "trials MiB", "hit/miss",
    "refs hit/miss", "thresh", "sep", "ms", "span MiB", "limit before/after"))
for x in b["benchmarks"]:
    if x.get("error_occurred") or x.get("run_type") == "aggregate":
        continue
    g = lambda k: x.get(k, float("nan"))
    print("  %-58s %9.3f %9.3f %9.3f %5.2f %3d %9.3f %6.1f%% %9.3f-%-9.3f %5.0f/%-5.0f %6.0f/%-6.0f %6.0f %3d %7.3f %9.3f %9.3f/%-9.3f" % (
        x["name"].replace("/iterations:1/manual_time", "").replace("/repeats:3", ""), g("requested_bytes") / MiB,
        g("set_aside_bytes") / MiB, g("window_bytes") / MiB, g("hit_ratio"),
        int(g("access_policy_window")) if g("access_policy_window") == g("access_policy_window") else -1, g("kept_bytes") / MiB,
        100 * g("kept_fraction"), g("kept_bytes_min") / MiB, g("kept_bytes_max") / MiB, g("hit_latency_cycles"),
        g("miss_latency_cycles"), g("ref_hit_latency_cycles"), g("ref_miss_latency_cycles"), g("threshold_cycles"),
        int(g("separated")) if g("separated") == g("separated") else -1,
        x.get("real_time", 0) * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(x.get("time_unit", "ns"), float("nan")),
        g("probe_span_bytes") / MiB, g("limit_before_bytes") / MiB, g("set_aside_after_bytes") / MiB))
try:
    t = json.load(open(sys.argv[2]))
except Exception as e:
    print("  topology: not read (%s)" % e)
    sys.exit(0)
s = t.get("l2_persisting")
if not isinstance(s, dict):
    print("  topology: no l2_persisting section")
    sys.exit(0)
prov = s.get("provenance", {})
def fig(k):
    v = s.get(k)
    if v is None:
        return "null (%s)" % prov.get(k, {}).get("reason", "?")
    return "%.3f MiB" % (v / MiB) if isinstance(v, (int, float)) else str(v)
print("  topology l2_persisting: max %s; largest kept %s (request %s, window %s); control kept %s; kept_of_max %s" % (
    fig("max_bytes"), fig("largest_kept_bytes"), fig("largest_kept_request_bytes"), fig("largest_kept_window_bytes"),
    fig("control_kept_bytes"), s.get("kept_of_max")))
print("  control: %s (access policy window: %s), kept %s (%s of the window)" % (
    s.get("control_benchmark"), s.get("control_access_policy_window"), fig("control_kept_bytes"), s.get("control_kept_fraction")))
print("  minimum set-aside (request 0 under a window, beyond the window-free control): %s; request 0 with the window kept %s, of a step %s" % (
    fig("minimum_set_aside_bytes"), fig("window_control_kept_bytes"), s.get("minimum_set_aside_of_step")))
note = prov.get("minimum_set_aside_bytes", {}).get("note")
if note:
    print("    " + note)
print("  grants: rounded %s, step %s (of the L2 %s, steps in the max %s)" % (
    s.get("grant_rounding"), fig("grant_step_bytes"), s.get("grant_step_of_l2"), s.get("grant_steps_in_max")))
for r in s.get("by_request", []):
    if r.get("probe_span_reason"):
        print("  partial probe %s: %s" % (r.get("benchmark"), r.get("probe_span_reason")))
    if r.get("kept_bytes") is None:
        print("  undecided %s: %s" % (r.get("benchmark"), r.get("kept_reason")))
PY
}
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,mig.mode.current --format=csv,noheader 2>&1 | tr '\n' ';')"
# 1. the family's sweep, 3 repetitions, then the analyzer over it
s=$SECONDS
timeout -k 5 120 "$B" --device=cuda:0 --benchmark_filter="$F" --benchmark_repetitions=3 \
  --benchmark_out="$dir/persist.json" --benchmark_out_format=json --memhier_progress=auto > "$dir/persist.log" 2>&1
say "l2_persist sweep: exit $? in $((SECONDS - s)) s"
if [ -s "$dir/persist.json" ]; then
  "$BIN/memhier-infer" "$dir/persist.json" -o "$dir/topology.json" --report "$dir/report.md" > "$dir/infer.log" 2>&1
  say "memhier-infer: exit $?"
  table "$dir/persist.json" "$dir/topology.json" | tee -a "$sum"
else
  tail -15 "$dir/persist.log" | sed 's/^/  | /' | tee -a "$sum"
fi
# 2. the GPU tests of the family (the limit restored after a run and after a refused request)
if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 90 "$BIN/tests/memhier_gpu_tests" --gtest_filter='L2PersistGpu*' > "$dir/gputests.log" 2>&1
  say "gpu tests L2PersistGpu*: exit $?; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$dir/gputests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|Expected|Which is|kept ' "$dir/gputests.log" | head -12 | sed 's/^/  | /' | tee -a "$sum"
fi
# 3. compute-sanitizer over the quick plan of the family (one trial, a shorter co-runner)
if [ "${PERSIST_SANITIZE:-1}" = 1 ] && [ -x "$SAN" ]; then
  for tool in memcheck racecheck; do
    s=$SECONDS
    MEMHIER_MIN_WORK=1 timeout -k 5 "${PERSIST_SANITIZE_S:-60}" "$SAN" --tool "$tool" --error-exitcode 9 "$B" --plan=quick \
      --benchmark_filter="$F" --benchmark_out="$dir/san-$tool.json" --benchmark_out_format=json \
      > "$dir/san-$tool.log" 2>&1
    rc=$?
    say "compute-sanitizer $tool: exit $rc in $((SECONDS - s)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san-$tool.log" | tail -1)"
    [ $rc -ne 0 ] && grep -m3 -E '^=+ +(Invalid|Error|Race|Barrier|.*hazard)' "$dir/san-$tool.log" | sed 's/^/  | /' | tee -a "$sum"
    [ -s "$dir/san-$tool.json" ] && say "  $tool run: $(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; print(len(b), "benchmarks,", sum(1 for x in b if x.get("error_occurred")), "failed")' "$dir/san-$tool.json" 2>&1)"
  done
fi
