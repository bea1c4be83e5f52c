#!/usr/bin/env bash
# Device part (dev/device/run.sh racecheck:SECONDS; also step 3 of part_sanitize.sh):
# compute-sanitizer racecheck over the small plan of part_sanitize.sh, one sanitizer process per
# family, so that a slow family cannot starve the others: each family gets an equal share of what
# is left of RACE_LIMIT seconds (default: 240), at least 15 s. MEMHIER_MIN_WORK=1: the families that
# repeat their work for timing resolution repeat it least (racecheck instruments every shared-memory
# access; the access patterns are the same). RACE_FAMILIES: a regex over family names (default all).
# Writes DIR/racecheck-<family>.log, DIR/racecheck.log (all of them), DIR/summary.txt (the table
# per family, with the exit status of each family's run). Never rebuilds.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=$1; mkdir -p "$DIR"
BIN=${BIN:?BIN (release build directory) not set}; ROOT=${ROOT:?ROOT not set}
B=$BIN/memhier-bench; PLAN=$ROOT/dev/device/sanitize_plan.py
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
S=$DIR/summary.txt; touch "$S"
say() { echo "$*" | tee -a "$S"; }
if [ ! -s "$DIR/quick_list.txt" ]; then
  "$B" --plan=quick --benchmark_list_tests=true > "$DIR/quick_list.txt" 2> "$DIR/list.err" ||
    { say "memhier-bench --benchmark_list_tests failed: $(tail -1 "$DIR/list.err")"; exit 1; }
fi
FILTER=$(python3 "$PLAN" select "$DIR/quick_list.txt" 4)
mapfile -t FAMS < <(python3 "$PLAN" families "$FILTER" "$DIR/quick_list.txt" | grep -E "^(${RACE_FAMILIES:-.*})\$")
[ ${#FAMS[@]} -gt 0 ] || { say "no family of the small plan matches '${RACE_FAMILIES:-.*}'"; exit 1; }
total=${RACE_LIMIT:-240}; t0=$SECONDS; left_fams=${#FAMS[@]}; timeouts=0
say "racecheck over ${#FAMS[@]} families, one process each (MEMHIER_MIN_WORK=1, $total s in all)"
say "  family                   runs errors hazards  api  exit"
: > "$DIR/racecheck.log"
for fam in "${FAMS[@]}"; do
  lim=$(( (total - (SECONDS - t0)) / left_fams )); [ "$lim" -lt 15 ] && lim=15
  left_fams=$((left_fams - 1))
  log=$DIR/racecheck-$fam.log
  MEMHIER_ANNOUNCE=1 MEMHIER_MIN_WORK=1 timeout -k 5 "$lim" "$SAN" --tool racecheck --print-limit 50 "$B" \
    --plan=quick --benchmark_filter="$(python3 "$PLAN" select "$DIR/quick_list.txt" 4 "$fam")" --memhier_budget_s=120 \
    --benchmark_format=console > "$log" 2>&1
  rc=$?
  [ $rc = 124 ] && timeouts=$((timeouts + 1))
  cat "$log" >> "$DIR/racecheck.log"
  row=$(python3 "$PLAN" attribute "$log" | grep -E "^${fam} " || echo "$(printf '%-24s %4d %6s %7s %4s' "$fam" 0 - - -)")
  say "  $row  $rc$([ $rc = 124 ] && echo " (TIMEOUT after $lim s)")"
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY" "$log" | tail -1 | sed 's/^=* */    /' >> "$S"
done
say "racecheck: ${#FAMS[@]} families in $((SECONDS - t0)) s, $timeouts timed out"
