#!/usr/bin/env bash
# Device part (dev/device/run.sh sanitize:380): compute-sanitizer memcheck, initcheck, synccheck
# and racecheck over a small plan of every family memhier-bench registers (found with
# --benchmark_list_tests, so families added later are covered), the gpu-labelled tests natively and
# under memcheck, a native quick plan read back by memhier-infer (input checks, per-sample SM
# clock), CSV with repetitions and interleaving on the device, and the chase kernel's SASS.
# Full logs under DIR; DIR/summary.txt has a table per tool and family. Never rebuilds.
# usage: part_sanitize.sh DIR          (BIN: the release build, ROOT: the checkout)
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=$1; mkdir -p "$DIR"
BIN=${BIN:?BIN (release build directory) not set}; ROOT=${ROOT:?ROOT not set}
B=$BIN/memhier-bench; INFER=$BIN/memhier-infer; PLAN=$ROOT/dev/device/sanitize_plan.py
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
S=$DIR/summary.txt; : > "$S"
say() { echo "$*" | tee -a "$S"; }
t0=$SECONDS
step() { say "-- $1 (at $((SECONDS - t0)) s)"; }
[ -x "$B" ] || { say "no $B: build release first (dev/device/run.sh does)"; exit 1; }
[ -x "$SAN" ] || say "WARNING: no compute-sanitizer at $SAN: the sanitizer steps are skipped"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
say "sanitizer: $("$SAN" --version 2>/dev/null | grep -i version | head -1)"

# 1. the small plan: per family the first benchmark of each distinct first (then second) parameter
step "plan"
"$B" --plan=quick --benchmark_list_tests=true > "$DIR/quick_list.txt" 2> "$DIR/list.err" ||
  { say "memhier-bench --benchmark_list_tests failed: $(tail -1 "$DIR/list.err")"; exit 1; }
FILTER=$(python3 "$PLAN" select "$DIR/quick_list.txt" 4)
echo "$FILTER" > "$DIR/small_plan_filter.txt"
mapfile -t FAMS < <(python3 "$PLAN" families "$FILTER" "$DIR/quick_list.txt")
say "small plan: $(grep -cE "$FILTER" "$DIR/quick_list.txt") of $(wc -l < "$DIR/quick_list.txt") quick-plan benchmarks, ${#FAMS[@]} families: ${FAMS[*]}"

# 2. native: the quick plan into JSON and through the analyzer; CSV with repetitions, interleaving
step "native quick plan, analyzer, formats"
mkdir -p "$DIR/quick"
timeout -k 5 40 "$B" --plan=quick --benchmark_out="$DIR/quick/bench.json" --benchmark_format=console \
  > "$DIR/quick/console.txt" 2> "$DIR/quick/stderr.txt"
say "quick plan: exit $? ($(tail -1 "$DIR/quick/stderr.txt"))"
if [ -f "$DIR/quick/bench.json" ]; then
  timeout 30 "$INFER" --allow-errors "$DIR/quick/bench.json" -o "$DIR/quick/topology.json" > /dev/null 2> "$DIR/quick/infer.err"
  say "memhier-infer on it: exit $? $(head -c 300 "$DIR/quick/infer.err")"
  python3 - "$DIR/quick" <<'PY' | tee -a "$S"
import json, os, statistics, sys
d = sys.argv[1]
b = json.load(open(os.path.join(d, "bench.json")))
c = b["context"]
mhz = [x["sm_clock_mhz"] for x in b["benchmarks"] if "sm_clock_mhz" in x]
thr = [x["name"] for x in b["benchmarks"] if x.get("clock_throttled")]
failed = [(x["name"], x.get("error_message", "")) for x in b["benchmarks"] if x.get("error_occurred")]
print("failed benchmarks: %s (context memhier_failed_benchmarks %s, device fault %r)" % (
    len(failed), c.get("memhier_failed_benchmarks"), c.get("memhier_device_fault", "")))
for n, m in failed[:5]:
    print("  %s: %s" % (n, m[:160]))
if mhz:
    print("per-sample SM clock: %d chase samples, min %.0f median %.0f max %.0f MHz (nominal %.0f); throttled: %d %s" % (
        len(mhz), min(mhz), statistics.median(mhz), max(mhz), float(c.get("sm_clock_khz", 0)) / 1e3, len(thr), thr[:3]))
try:
    t = json.load(open(os.path.join(d, "topology.json")))
    sk = t["measurement"]["skipped_benchmarks"]
    bad = [s for s in sk if "invalid input" in s]
    print("analyzer: %d left out, %d of them as invalid input %s" % (len(sk), len(bad), [s[:200] for s in bad[:3]]))
except Exception as e:
    print("analyzer output unreadable: %s" % e)
PY
fi
timeout -k 5 40 "$B" --plan=quick --benchmark_filter="$FILTER" --benchmark_repetitions=2 \
  --benchmark_enable_random_interleaving=true --benchmark_format=csv --benchmark_out="$DIR/formats.csv" \
  --benchmark_out_format=csv > "$DIR/formats_console.csv" 2> "$DIR/formats.err"
rc=$?
python3 - "$DIR/formats_console.csv" "$DIR/formats.csv" "$rc" <<'PY' | tee -a "$S"
import csv, sys
rc = int(sys.argv[3])
for p in sys.argv[1:3]:
    try:
        rows = list(csv.reader(open(p)))
        widths = {len(r) for r in rows}
        print("CSV %s: exit %d, %d rows, %s" % (p.split("/")[-1], rc, len(rows) - 1,
              "one width" if len(widths) == 1 else "ROWS OF DIFFERENT WIDTHS %s" % sorted(widths)))
    except Exception as e:
        print("CSV %s: exit %d, unreadable: %s" % (p.split("/")[-1], rc, e))
PY

# 3. the four tools over the small plan; errors tied to families through MEMHIER_ANNOUNCE lines.
#    MEMHIER_MIN_WORK=1: the least repeated work per launch. racecheck (the slowest tool) runs one
#    process per family (part_racecheck.sh) so that every family is reached.
# The whole-memory family (latency_spectrum: a mapping of nearly all free memory) runs in a process
# of its own per tool, after the others, so that it cannot take their time.
WIDE='^latency_spectrum/'
grep -v '^latency_spectrum/' "$DIR/quick_list.txt" > "$DIR/quick_list_narrow.txt"
NARROW=$(python3 "$PLAN" select "$DIR/quick_list_narrow.txt" 4)
for spec in memcheck:30 initcheck:30 synccheck:20; do
  tool=${spec%%:*}; lim=${spec#*:}
  [ -x "$SAN" ] || break
  step "$tool (limit $lim s, then $lim s for latency_spectrum)"
  MEMHIER_ANNOUNCE=1 MEMHIER_MIN_WORK=1 timeout -k 5 "$lim" "$SAN" --tool "$tool" --print-limit 50 "$B" --plan=quick \
    --benchmark_filter="$NARROW" --memhier_budget_s=120 --benchmark_format=console > "$DIR/$tool.log" 2>&1
  rc=$?
  MEMHIER_ANNOUNCE=1 MEMHIER_MIN_WORK=1 timeout -k 5 "$lim" "$SAN" --tool "$tool" --print-limit 50 "$B" --plan=quick \
    --benchmark_filter="$WIDE" --memhier_budget_s=120 --benchmark_format=console > "$DIR/$tool-wide.log" 2>&1
  rc2=$?
  say "$tool: exit $rc$([ $rc = 124 ] && echo ' (TIMEOUT: the table covers what ran)'); latency_spectrum alone: exit $rc2$([ $rc2 = 124 ] && echo ' (TIMEOUT)')"
  say "  family                   runs errors hazards  api"
  cat "$DIR/$tool.log" "$DIR/$tool-wide.log" > "$DIR/$tool-all.log"
  python3 "$PLAN" attribute "$DIR/$tool-all.log" | sed 's/^/  /' | tee -a "$S"
  grep -E "ERROR SUMMARY|SUMMARY:" "$DIR/$tool-wide.log" | tail -1 | sed 's/^=* */  latency_spectrum run: /' | tee -a "$S"
done
if [ -x "$SAN" ]; then
  step "racecheck (limit ${RACE_LIMIT:-240} s)"
  RACE_LIMIT=${RACE_LIMIT:-240} bash "$ROOT/dev/device/part_racecheck.sh" "$DIR"
fi

# 4. the gpu-labelled tests, natively and under memcheck (without those that fail on purpose:
#    out of memory, refused launches, the sticky illegal access)
step "gpu tests"
(cd "$BIN" && timeout -k 5 45 ctest -L gpu --output-on-failure) > "$DIR/gputests.log" 2>&1
say "ctest -L gpu: exit $? $(grep -E 'tests passed|tests failed' "$DIR/gputests.log" | tail -1)"
grep -E "\(Failed\)|\(Timeout\)|Not Run" "$DIR/gputests.log" | head -5 | sed 's/^/  /' | tee -a "$S"
if [ -x "$SAN" ] && [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 35 "$SAN" --tool memcheck --print-limit 50 "$BIN/tests/memhier_gpu_tests" \
    --gtest_filter='-FaultsGpu.OutOfMemory*:FaultsGpu.ARefusedLaunch*:FaultsGpu.Sticky*' > "$DIR/gputests_memcheck.log" 2>&1
  say "gpu tests under memcheck: exit $? $(grep -E 'ERROR SUMMARY' "$DIR/gputests_memcheck.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' "$DIR/gputests_memcheck.log" | tr '\n' ' ')"
fi

# 5. SASS of the classic and count chases through L1 (the watchdog's clock read and the loads)
step "sass"
if [ -x "$CUOBJDUMP" ]; then
  "$CUOBJDUMP" -sass "$B" 2>/dev/null | awk '/Function : .*pchase_kernel.*LoadPathE0ELNS._9ChaseModeE[02]/{p=1} /Function : /{if(!/pchase_kernel.*LoadPathE0ELNS._9ChaseModeE[02]/)p=0} p' \
    > "$DIR/sass_pchase_global_ca.txt"
  say "sass: $(grep -c 'Function' "$DIR/sass_pchase_global_ca.txt") functions, $(grep -c 'LDG' "$DIR/sass_pchase_global_ca.txt") LDG, $(grep -c 'CS2R' "$DIR/sass_pchase_global_ca.txt") CS2R (clock reads) in DIR/sass_pchase_global_ca.txt"
else
  say "sass: no cuobjdump at $CUOBJDUMP"
fi
say "part_sanitize: $((SECONDS - t0)) s"
