#!/usr/bin/env bash
# Device part (scripts/device/run.sh racecheck:SECONDS): compute-sanitizer racecheck over the small
# plan of part_sanitize.sh, restricted to the families in RACE_FAMILIES (a regex over family names,
# default all), within RACE_LIMIT seconds (default: the part's limit minus 10). For the families a
# sanitize part's racecheck did not reach in its 50 s (racecheck is the slowest tool).
# Writes DIR/racecheck.log, DIR/summary.txt (the table per family). Never rebuilds.
set -uo pipefail
DIR=$1; mkdir -p "$DIR"
BIN=${BIN:?BIN (release build directory) not set}; ROOT=${ROOT:?ROOT not set}
B=$BIN/memhier-bench; PLAN=$ROOT/scripts/device/sanitize_plan.py
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
S=$DIR/summary.txt; : > "$S"
say() { echo "$*" | tee -a "$S"; }
"$B" --plan=quick --benchmark_list_tests=true > "$DIR/quick_list.txt" 2> "$DIR/list.err" ||
  { say "memhier-bench --benchmark_list_tests failed: $(tail -1 "$DIR/list.err")"; exit 1; }
FILTER=$(python3 "$PLAN" select "$DIR/quick_list.txt" 4)
FAMS=${RACE_FAMILIES:-.*}
grep -E "$FILTER" "$DIR/quick_list.txt" | grep -E "^(${FAMS})/" > "$DIR/chosen.txt"
[ -s "$DIR/chosen.txt" ] || { say "no benchmark of the small plan in families '$FAMS'"; exit 1; }
RX="^($(sed 's/[][\.*^$+?(){}|]/\\&/g' "$DIR/chosen.txt" | paste -sd'|'))\$"
say "racecheck over $(wc -l < "$DIR/chosen.txt") benchmarks of families '$FAMS' (limit ${RACE_LIMIT:-50} s)"
MEMHIER_ANNOUNCE=1 timeout -k 5 "${RACE_LIMIT:-50}" "$SAN" --tool racecheck --print-limit 50 "$B" --plan=quick \
  --benchmark_filter="$RX" --memhier_budget_s=120 --benchmark_format=console > "$DIR/racecheck.log" 2>&1
rc=$?
say "racecheck: exit $rc$([ $rc = 124 ] && echo ' (TIMEOUT: the table covers what ran)')"
say "  family                   runs errors hazards  api"
python3 "$PLAN" attribute "$DIR/racecheck.log" | sed 's/^/  /' | tee -a "$S"
