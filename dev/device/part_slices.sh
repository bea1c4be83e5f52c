#!/usr/bin/env bash
# Device part (dev/device/run.sh slices:SECONDS), issue 20 item 1: the L2 slice fingerprint.
# 1. memhier-bench --benchmark_filter='^(l2_slices|l2_partitions)/' (the partition map groups the
#    SMs) into DIR/slices.json and its traces, memhier-infer on it (DIR/infer/topology.json), and a
#    table of the l2_slices section; SLICES_RUNS (default 2) back-to-back runs of the pair;
# 2. the gpu-labelled test L2SlicesGpu*; 3. compute-sanitizer memcheck and racecheck over the quick
# plan's l2_slices benchmark.
# Never rebuilds. Writes DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_slices.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
say() { echo "$*" | tee -a "$sum"; }
B=$BIN/memhier-bench
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | tr '\n' ';')"
for r in $(seq 1 "${SLICES_RUNS:-2}"); do
  s=$SECONDS
  out=$dir/run$r
  mkdir -p "$out"
  "$B" --benchmark_filter='^(l2_slices|l2_partitions)/' --benchmark_out="$out/bench.json" --benchmark_out_format=json \
    > "$out/bench.log" 2>&1
  say "run $r: bench exit $? in $((SECONDS - s)) s"
  mkdir -p "$out/infer"
  "$BIN/memhier-infer" "$out/bench.json" -o "$out/infer/topology.json" --report "$out/infer/report.md" > "$out/infer.log" 2>&1
  say "run $r: infer exit $?"
  python3 - "$out/infer/topology.json" <<'PY' | tee -a "$sum"
import json, sys
try:
    t = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no topology: %s" % e); sys.exit(0)
s = t.get("l2_slices")
m = (t.get("l2_partitions") or {}).get("map") or {}
print("  partitions %s, sms per partition %s" % (m.get("partitions"), [len(g) for g in m.get("sms_per_partition", [])]))
if not s:
    print("  no l2_slices section"); sys.exit(0)
pv = s.get("provenance", {})
for k in ("hit_latency_cycles", "noise_cycles", "link_threshold_cycles", "line_classes", "within_class_max_cycles",
          "between_classes_min_cycles", "lines_per_class", "expected_unseen_classes", "slices_per_partition", "slices"):
    v = s.get(k)
    why = pv.get(k, {}).get("reason", "") if v is None else ""
    print("  %-28s %s %s" % (k, json.dumps(v), why[:300]))
print("  sm groups by correlation: %d, sizes %s" % (len(s.get("sm_groups_by_correlation", [])), sorted(len(g) for g in s.get("sm_groups_by_correlation", []))[::-1][:20]))
for p in s.get("by_partition", []):
    print("  partition: %s" % json.dumps(p)[:300])
h = s.get("hash", {})
print("  hash: xor %s, bits %s, masks %s, %s" % (h.get("xor_of_offset_bits"), h.get("bits_that_change_the_slice"), h.get("offset_masks"), h.get("reason", "")))
print("  per bit (fingerprint distance, near share): %s" % {k: (round(v["median_distance_cycles"], 1), round(v["near_share"], 2)) for k, v in s.get("bit_distances", {}).items()})
c = s.get("contention")
if c:
    print("  contention: %d references, slices_per_partition %s %s" % (c.get("references", 0), c.get("slices_per_partition"),
          c.get("provenance", {}).get("slices_per_partition", {}).get("reason", "")[:300]))
    print("    every probe: %s" % json.dumps(c.get("every_probe"))[:400])
    for p in c.get("by_partition", []):
        print("    partition: %s" % json.dumps(p)[:400])
    ch = c.get("hash", {})
    print("    hash: xor %s, bits %s, masks %s, %s" % (ch.get("xor_of_offset_bits"), ch.get("bits_that_change_the_slice"), ch.get("offset_masks"), ch.get("reason", "")))
    print("    per bit class changes: %s" % {k: round(v["class_changes"], 2) for k, v in ch.get("bits", {}).items()})
print("  decided: slices_per_partition %s, slices %s, from %s" % (s.get("slices_per_partition"), s.get("slices"), s.get("slices_from")))
PY
done
if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 60 "$BIN/tests/memhier_gpu_tests" --gtest_filter='L2SlicesGpu*' > "$dir/gputests.log" 2>&1
  say "gpu tests L2SlicesGpu*: exit $?; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$dir/gputests.log" | tr '\n' ' ')"
  grep -E 'Failure|Expected|Which is' "$dir/gputests.log" | head -8 | sed 's/^/  | /' | tee -a "$sum"
fi
if [ -x "$SAN" ]; then
  for tool in memcheck racecheck; do
    s=$SECONDS
    MEMHIER_MIN_WORK=1 timeout -k 5 "${SLICES_SANITIZE_S:-90}" "$SAN" --tool "$tool" --error-exitcode 9 "$B" --plan=quick \
      --benchmark_filter='^l2_slices/' --benchmark_out="$dir/san-$tool.json" --benchmark_out_format=json > "$dir/san-$tool.log" 2>&1
    say "compute-sanitizer $tool: exit $? in $((SECONDS - s)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san-$tool.log" | tail -1)"
  done
fi
exit 0  # each step reports its own exit code above
