#!/usr/bin/env bash
# Device part (dev/device/run.sh timing:SECONDS): where the wall time of a characterization and
# of the quick regression check goes, benchmark by benchmark. One characterization (no plots) with
# MEMHIER_ANNOUNCE=1, every stderr line stamped with the host clock (dev/device/stamp_lines.py),
# then the per-family and the 40 slowest benchmarks' wall times (timing_summary.py); then
# scripts/regression_check.sh once, timed, the same way. Writes DIR/results/ (the archive),
# DIR/*.stamped.log, DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_timing.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir/results"
sum=$dir/summary.txt; : > "$sum"
say() { echo "$*" | tee -a "$sum"; }
stamp() { python3 "$ROOT/dev/device/stamp_lines.py"; }
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | head -1); cores: $(nproc)"
"$BIN/memhier-bench" --benchmark_list_tests=true > /dev/null 2>&1  # the driver's first initialization
s=$SECONDS
MEMHIER_ANNOUNCE=1 "$ROOT/scripts/characterize.sh" --no-plots --no-build --build-dir "$BIN" --results "$dir/results" 2>&1 | stamp > "$dir/characterize.stamped.log"
say "characterize: rc=${PIPESTATUS[0]} in $((SECONDS - s)) s"
grep -o 'done in .*' "$dir/characterize.stamped.log" | tail -1 | sed 's/^/  /' | tee -a "$sum"
python3 "$ROOT/dev/device/timing_summary.py" "$dir/characterize.stamped.log" | tee -a "$sum"
s=$SECONDS
MEMHIER_ANNOUNCE=1 "$ROOT/scripts/regression_check.sh" --build "$BIN" --keep "$dir/quick" 2>&1 | stamp > "$dir/quick.stamped.log"
say "regression_check: rc=${PIPESTATUS[0]} in $((SECONDS - s)) s"
grep -E '^gate:|^\S+ +gate' "$dir/quick.stamped.log" | head -3 | tee -a "$sum"
python3 "$ROOT/dev/device/timing_summary.py" "$dir/quick.stamped.log" --top 15 | tee -a "$sum"
rm -rf "$dir/quick/traces"
