#!/usr/bin/env bash
# Device part (scripts/device/run.sh sequences:120): the cache_sequences family on the GPU.
#   1. SASS of the access-sequence kernel, with a check of every timed window (clock read, one
#      load, the dependent shared store, clock read; nothing else touching memory in between)
#   2. the launch checks (does a kernel launch empty L1 / texture / read-only / L2?) and the search
#      for every cache with its default budgets (full plan of the family), plus the L2 once more with
#      stride 128 and a 6 s budget when the default one ran out
#   3. compute-sanitizer memcheck over the family with small budgets (a few sequences per cache)
# Writes DIR/seq.json (+ DIR/traces/*.seqtrace), DIR/seq-l2.json, DIR/memcheck.log, DIR/sass.txt,
# and DIR/summary.txt: per cache the eviction set size, launches, device seconds, congruent flips,
# policy outcomes (scripts/seq_summary.py), the launch checks, the SASS check and memcheck's verdict.
# Needs BIN (release build) and ROOT; never rebuilds. About 30-60 s on an H100.
set -uo pipefail
DIR=${1:?usage: part_sequences.sh DIR}
mkdir -p "$DIR/traces" "$DIR/traces-l2" "$DIR/traces-memcheck"
S=$DIR/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
BENCH=$BIN/memhier-bench
[ -x "$BENCH" ] || { say "no $BENCH: build release first"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$S"

# 1. SASS: every window between two clock reads of sequence_kernel holds exactly one global/texture
#    load and at least one STS (the dependent store), and no other load.
OBJ=$(find "$BIN" -name 'backend_cuda_sequence.cu.o' | head -1)
if command -v cuobjdump >/dev/null 2>&1 && [ -n "$OBJ" ]; then
  cuobjdump -sass "$OBJ" > "$DIR/sass.txt" 2>&1
  awk -v windows="$DIR/sass_windows.txt" '
    function opcode(   t, i) {  # the instruction after the /*addr*/ comment, predicate skipped
      if (!match($0, /\*\/ +[@!A-Z0-9_.]+( +[A-Z0-9_.]+)?/)) return ""
      split(substr($0, RSTART + 2, RLENGTH - 2), t, " ")
      return (t[1] ~ /^@/) ? t[2] : t[1]
    }
    /Function :/ { fn = $3; inwin = 0; next }
    { op = opcode() }
    op == "" { next }
    $0 ~ /SR_CLOCK/ {
      if (inwin && fn ~ /sequence_kernel/) {
        n++
        good = (loads == 1 && sts >= 1 && other == 0)
        if (good) ok++; else bad++
        if (n <= 4 || !good) print fn ": " (good ? "ok" : "NOT AS INTENDED") ": " body > windows
        inwin = 0
      } else { inwin = 1; loads = 0; sts = 0; other = 0; body = "" }
      next }
    inwin {
      body = body " " op
      if (op ~ /^(LDG|LD|TEX|TLD|TLD4)(\.|$)/) loads++
      else if (op ~ /^STS(\.|$)/) sts++
      else if (op ~ /^(LDS|STG|ST|ATOM|ATOMG|ATOMS|RED|LDC)(\.|$)/) other++
    }
    END { printf "sass: %d timed windows in sequence_kernel, %d as intended (clock, one load, dependent STS, clock), %d not (see sass_windows.txt)\n", n, ok, bad }
  ' "$DIR/sass.txt" | tee -a "$S"
else
  say "sass: cuobjdump or $BIN/.../backend_cuda_sequence.cu.o not found (no SASS check)"
fi

# 2. The family, default budgets.
t0=$SECONDS
"$BENCH" --plan=full --benchmark_filter='^cache_sequences/' --benchmark_out="$DIR/seq.json" \
  --benchmark_out_format=json --memhier_trace_dir="$DIR/traces" > "$DIR/seq.log" 2>&1
rc=$?
say "family: rc=$rc in $((SECONDS - t0)) s"
[ $rc -ne 0 ] && tail -20 "$DIR/seq.log" | sed 's/^/  | /' | tee -a "$S"
python3 "$ROOT/scripts/seq_summary.py" "$DIR/seq.json" "$DIR/traces" 2>&1 | tee -a "$S"

# The L2 again with the line as the stride and a larger budget, when the default one ran out.
if python3 -c "
import json, sys
d = json.load(open('$DIR/seq.json'))
sys.exit(0 if any('cache:l2' in b['name'] and b.get('budget_exhausted', 0) for b in d['benchmarks']) else 1)" 2>/dev/null; then
  L2=$(python3 -c "import json; print(int(json.load(open('$DIR/seq.json'))['context'].get('l2_cache_bytes', 0)))" 2>/dev/null || echo 0)
  cat > "$DIR/req-l2.json" <<EOF
{"format": "memhier-requests/1",
 "cache_sequences": [{"path": "global_cg", "stride": 128, "capacity": $((L2 / 4)), "budget_launches": 800, "budget_ms": 6000}]}
EOF
  t0=$SECONDS
  "$BENCH" --plan=none --memhier_extra="$DIR/req-l2.json" --benchmark_out="$DIR/seq-l2.json" \
    --benchmark_out_format=json --memhier_trace_dir="$DIR/traces-l2" > "$DIR/seq-l2.log" 2>&1
  say "l2 with stride 128, budget 6 s: rc=$? in $((SECONDS - t0)) s"
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
