#!/usr/bin/env bash
# Device part (dev/device/run.sh sequences:150): the cache_sequences family on the GPU.
#   1. SASS of the access-sequence kernel (scripts/check_sequence_sass.py): every timed window is
#      clock read, one load, the dependent shared store, clock read; and no array load overlaps the
#      one before it (each address depends on the value loaded before: the H100's first run had
#      eight untimed loads in flight, and its L1 then kept only some of their sectors)
#   2. the sequence kernel's GPU tests (SequenceGpu.*), then the launch checks and the search for
#      every cache with its default budgets (full plan of the family); then the L2 once more with
#      a 6 s budget when the default one ran out
#   3. compute-sanitizer memcheck over the family with small budgets (a few sequences per cache)
# Writes DIR/seq.json (+ DIR/traces/*.seqtrace), DIR/seq-l2.json, DIR/memcheck.log, DIR/sass.txt,
# and DIR/summary.txt: per cache what confirms the search (ways, minimal, line, congruent bits,
# policy, cost), the calibration (hit level, next level, threshold, serialized untimed pass), the
# pool, and a verdict line per check. Needs BIN (release build) and ROOT; never rebuilds. About
# 10-20 s on an H100 plus up to 45 s of memcheck.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=${1:?usage: part_sequences.sh DIR}
mkdir -p "$DIR/traces" "$DIR/traces-l2" "$DIR/traces-memcheck"
S=$DIR/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
BENCH=$BIN/memhier-bench
[ -x "$BENCH" ] || { say "no $BENCH: build release first"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$S"

# 1. SASS: timed windows and the access chain.
OBJ=$(find "$BIN" -name 'backend_cuda_sequence.cu.o' | head -1)
if command -v cuobjdump >/dev/null 2>&1 && [ -n "$OBJ" ]; then
  cuobjdump -sass "$OBJ" > "$DIR/sass.txt" 2>&1
  python3 "$ROOT/scripts/check_sequence_sass.py" "$DIR/sass.txt" "$DIR/sass_windows.txt" 2>&1 | tee -a "$S"
else
  say "sass: cuobjdump or $BIN/.../backend_cuda_sequence.cu.o not found (no SASS check)"
fi

# The sequence kernel's GPU tests (tests/gpu/test_sequence_gpu.cpp), among them the run-1
# regression: untimed passes cost a miss per access and a second pass over 2 KiB hits the L1.
GT=$(find "$BIN" -name memhier_gpu_tests -type f | head -1)
if [ -n "$GT" ]; then
  timeout 60 "$GT" --gtest_filter='SequenceGpu.*' --gtest_output="xml:$DIR/sequence_gpu_tests.xml" > "$DIR/sequence_gpu_tests.log" 2>&1
  say "gpu tests SequenceGpu.*: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)  \] [0-9]+ test' "$DIR/sequence_gpu_tests.log" | tr '\n' ' ')$(grep -E '^\[  FAILED  \] SequenceGpu\.[A-Za-z]+$' "$DIR/sequence_gpu_tests.log" | tr '\n' ' ')"
  grep -E "Failure|Expected|Which is|miss takes|second-pass" "$DIR/sequence_gpu_tests.log" | head -8 | sed 's/^/  | /' | tee -a "$S"
  grep -o 'name="[a-z_]*cycles[a-z_]*" value="[^"]*"' "$DIR/sequence_gpu_tests.xml" 2>/dev/null | sed 's/^/  /' | tee -a "$S"
else
  say "gpu tests: memhier_gpu_tests not in $BIN"
fi

# 2. The family, default budgets.
t0=$SECONDS
"$BENCH" --plan=full --benchmark_filter='^cache_sequences/' --benchmark_out="$DIR/seq.json" \
  --benchmark_out_format=json --memhier_trace_dir="$DIR/traces" > "$DIR/seq.log" 2>&1
rc=$?
say "family: rc=$rc in $((SECONDS - t0)) s wall"
[ $rc -ne 0 ] && tail -20 "$DIR/seq.log" | sed 's/^/  | /' | tee -a "$S"
python3 "$ROOT/scripts/seq_summary.py" "$DIR/seq.json" "$DIR/traces" 2>&1 | tee -a "$S"
# One verdict line per cache: what the lead reads first.
python3 - "$DIR/seq.json" <<'EOF' 2>&1 | tee -a "$S"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    n = b["name"]
    if "cache:" not in n:
        continue
    if b.get("error_occurred"):
        print(f"verdict {n.split('/')[1]}: ERROR {b.get('error_message')}")
        continue
    ok = b["ways_found"] > 0 and b["minimal"] == 1 and b["search_complete"] == 1
    print(f"verdict {n.split('/')[1]:15s}: {'SET FOUND' if ok else 'NO MINIMAL SET'} (ways {b['ways_found']:.0f}), "
          f"serialized {'yes' if b.get('serialized') else 'NO'}, threshold {b['hit_threshold_cycles']:.0f} between hits "
          f"<= {b.get('hit_cycles', 0):.0f} and next level {b.get('next_level_cycles', 0):.0f}, "
          f"{b['launches']:.0f} launches, {b['device_seconds']:.2f} s device")
EOF

# The L2 again with a 6 s budget, when the default one ran out.
if python3 -c "
import json, sys
d = json.load(open('$DIR/seq.json'))
sys.exit(0 if any('cache:l2' in b['name'] and b.get('budget_exhausted', 0) for b in d['benchmarks']) else 1)" 2>/dev/null; then
  L2=$(python3 -c "import json; print(int(json.load(open('$DIR/seq.json'))['context'].get('l2_cache_bytes', 0)))" 2>/dev/null || echo 0)
  cat > "$DIR/req-l2.json" <<EOF
{"format": "memhier-requests/1",
 "cache_sequences": [{"path": "global_cg", "capacity": $((L2 / 4)), "seed": 2, "budget_launches": 1200, "budget_ms": 6000}]}
EOF
  t0=$SECONDS
  "$BENCH" --plan=none --memhier_extra="$DIR/req-l2.json" --benchmark_out="$DIR/seq-l2.json" \
    --benchmark_out_format=json --memhier_trace_dir="$DIR/traces-l2" > "$DIR/seq-l2.log" 2>&1
  say "l2 again (seed 2, budget 6 s): rc=$? in $((SECONDS - t0)) s"
  python3 "$ROOT/scripts/seq_summary.py" "$DIR/seq-l2.json" "$DIR/traces-l2" 2>&1 | tee -a "$S"
fi

# 3. compute-sanitizer memcheck, small budgets (the launch checks and ~12 sequences per cache).
if command -v compute-sanitizer >/dev/null 2>&1; then
  cat > "$DIR/req-memcheck.json" <<'EOF'
{"format": "memhier-requests/1",
 "cache_sequences": [{"path": "global_ca", "budget_launches": 12, "budget_ms": 200},
                     {"path": "texture", "budget_launches": 12, "budget_ms": 200},
                     {"path": "ldg", "budget_launches": 12, "budget_ms": 200},
                     {"path": "global_cg", "budget_launches": 8, "budget_ms": 200}]}
EOF
  t0=$SECONDS
  timeout 45 compute-sanitizer --tool memcheck --error-exitcode 99 "$BENCH" --plan=none \
    --memhier_extra="$DIR/req-memcheck.json" --memhier_trace_dir="$DIR/traces-memcheck" \
    --benchmark_format=console > "$DIR/memcheck.log" 2>&1
  rc=$?
  say "memcheck: rc=$rc in $((SECONDS - t0)) s; $(grep -E 'ERROR SUMMARY' "$DIR/memcheck.log" | tail -1)"
  [ $rc -ne 0 ] && grep -E "Invalid|Error|error" "$DIR/memcheck.log" | head -8 | sed 's/^/  | /' | tee -a "$S"
else
  say "memcheck: compute-sanitizer not found"
fi
exit 0
