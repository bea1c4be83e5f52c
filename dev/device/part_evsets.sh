#!/usr/bin/env bash
# Device part (dev/device/run.sh evsets:SECONDS), issue 20 item 2: whole-L2 eviction sets.
# 1. EVSETS_RUNS (default 2) runs of memhier-bench --benchmark_filter='^l2_evsets/' into
#    DIR/run<N>/bench.json and its trace, memhier-infer on it, and a table: per target the status,
#    the reduced set's size and its tests; the l2_sets section where the analyzer has one (ways,
#    sets, the policy sequences and the replacement, issue 20 item 3);
# 2. the gpu-labelled tests L2EvsetsGpu* (EVSETS_TEST_REPEAT times, default 1); 3. compute-sanitizer memcheck over the quick plan's
#    l2_evsets benchmark, racecheck and synccheck over the small-pool GPU test.
# Never rebuilds. Writes DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_evsets.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
say() { echo "$*" | tee -a "$sum"; }
B=$BIN/memhier-bench
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | tr '\n' ';')"
for r in $(seq 1 "${EVSETS_RUNS:-2}"); do
  s=$SECONDS
  out=$dir/run$r
  mkdir -p "$out"
  "$B" --benchmark_filter='^l2_evsets/' ${EVSETS_ARGS:-} --benchmark_out="$out/bench.json" --benchmark_out_format=json \
    > "$out/bench.log" 2>&1
  say "run $r: bench exit $? in $((SECONDS - s)) s"
  mkdir -p "$out/infer"
  "$BIN/memhier-infer" "$out/bench.json" -o "$out/infer/topology.json" --report "$out/infer/report.md" > "$out/infer.log" 2>&1
  say "run $r: infer exit $?"
  python3 - "$out" <<'PY' | tee -a "$sum"
import glob, json, os, sys
out = sys.argv[1]
try:
    b = json.load(open(os.path.join(out, "bench.json")))
except Exception as e:
    print("  no bench.json: %s" % e); sys.exit(0)
for e in b.get("benchmarks", []):
    if not e["name"].startswith("l2_evsets/"):
        continue
    keys = ("readout_ok", "pool_lines", "targets", "minimal", "failed", "set_size_min", "set_size_max", "tests", "tests_max_target")
    print("  %s: %s%s" % (e["name"], " ".join("%s=%s" % (k, e.get(k)) for k in keys if k in e),
                          " ERROR %s" % e.get("error_message") if e.get("error_occurred") else ""))
    print("  time %.3f s" % (e.get("real_time", 0) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[e.get("time_unit", "ns")]))
for f in glob.glob(os.path.join(out, "**", "*l2_evsets*"), recursive=True):
    if f.endswith(".json"):
        continue
    meta = {}
    with open(f) as fh:
        for line in fh:
            parts = line.rstrip("\n").split(" ", 1)
            if len(parts) == 2 and not parts[0][:1].isdigit():
                meta[parts[0]] = parts[1]
    for k in ("status", "sizes", "tests", "backtracks", "placed", "readout_reason"):
        if k in meta:
            print("  trace %-10s %s" % (k, meta[k][:300]))
try:
    t = json.load(open(os.path.join(out, "infer", "topology.json")))
    s = t.get("l2_sets")
    if not s:
        print("  l2_sets: none")
    else:
        prov = s.get("provenance") or {}
        print("  l2_sets: %s" % json.dumps({k: s.get(k) for k in ("ways", "ways_from", "sets", "sets_per_slice", "minimal_set_sizes", "minimal_sets_match_ways")}))
        for k in ("ways", "sets", "sets_per_slice"):
            p = prov.get(k) or {}
            print("  l2_sets %s: confidence %s; %s" % (k, p.get("confidence"), (p.get("reason") or p.get("note") or "")[:600]))
        c = s.get("cyclic_reads")
        if c:
            print("  cyclic reads: hit k=1 max %s cycles, miss above %s" % (c.get("hit_cycles_k1_max"), c.get("miss_threshold_cycles")))
            for w in c.get("sweeps", []):
                print("    target %s %-7s step_k %s ways %s misses_by_k %s%s" % (w.get("target"), w.get("order"), w.get("step_k"), w.get("ways"),
                      ",".join(str(x) for x in w.get("misses_by_k", [])), ("  (" + w["reason"] + ")") if w.get("reason") else ""))
            for l in c.get("leave_one_out", []):
                print("    leave-one-out target %s %-7s s %s members %s outside %s ways %s%s%s" % (l.get("target"), l.get("order"), l.get("lines"),
                      l.get("members"), l.get("outside"), l.get("ways"), ("  (" + l["reason"] + ")") if l.get("reason") else "",
                      ("  [" + l["note"] + "]") if l.get("note") else ""))
        ps = s.get("policy_sequences")
        if ps:
            print("  policy sequences: %s" % json.dumps({k: ps.get(k) for k in ("sequences", "accesses", "first_accesses", "slowest_repeated_access_cycles", "fastest_first_access_cycles", "slower_l2_answers", "spurious_misses_per_access", "miss_threshold_cycles")}))
            for r in ps.get("runs", []):
                print("    %s" % json.dumps(r))
        p = prov.get("replacement") or {}
        print("  l2_sets replacement: %s (confidence %s); %s" % (json.dumps(s.get("replacement")), p.get("confidence"), (p.get("reason") or p.get("note") or "")[:500]))
        for k in ("replacement_consistent", "replacement_gpgpusim", "replacement_nearest", "hit_probability_by_age"):
            if k in s:
                print("  %s: %s" % (k, json.dumps(s[k])[:700]))
except Exception as e:
    print("  no topology: %s" % e)
PY
done
if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 "${EVSETS_TEST_S:-120}" "$BIN/tests/memhier_gpu_tests" --gtest_filter='L2EvsetsGpu*' --gtest_repeat="${EVSETS_TEST_REPEAT:-1}" > "$dir/gputests.log" 2>&1
  say "gpu tests L2EvsetsGpu*: exit $?; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$dir/gputests.log" | tr '\n' ' ')"
  grep -E 'Failure|Expected|Which is|status|^  placed' "$dir/gputests.log" | head -24 | sed 's/^/  | /' | tee -a "$sum"
fi
if [ -x "$SAN" ]; then
  # memcheck over the quick plan's benchmark (2 targets: the search, the class and the cyclic reads);
  # racecheck (shared memory: the test kernel's ranges) over the GPU test's 512-line pool
  s=$SECONDS
  MEMHIER_MIN_WORK=1 timeout -k 5 "${EVSETS_SANITIZE_S:-150}" "$SAN" --tool memcheck --error-exitcode 9 "$B" --plan=quick \
    --benchmark_filter='^l2_evsets/' --benchmark_out="$dir/san-memcheck.json" --benchmark_out_format=json > "$dir/san-memcheck.log" 2>&1
  say "compute-sanitizer memcheck: exit $? in $((SECONDS - s)) s; $(grep -E 'ERROR SUMMARY' "$dir/san-memcheck.log" | tail -1)"
  if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
    for tool in racecheck synccheck; do
      s=$SECONDS
      timeout -k 5 120 "$SAN" --tool "$tool" --error-exitcode 9 "$BIN/tests/memhier_gpu_tests" \
        --gtest_filter='L2EvsetsGpu.ReadoutWorks*' > "$dir/san-$tool.log" 2>&1
      # judged by the summary line: the test's own checks need an undisturbed L2 (under the
      # sanitizer the readout's dirty line is written back early: readout_ok 0)
      say "compute-sanitizer $tool (gpu test, 512-line pool): exit $? in $((SECONDS - s)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san-$tool.log" | tail -1)"
    done
  fi
fi
exit 0  # each step reports its own exit code above
