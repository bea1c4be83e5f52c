#!/usr/bin/env bash
# Device part (dev/device/run.sh gate:SECONDS): back-to-back characterizations of GPU 0 for
# the compare gate's figures (docs/ci.md): GATE_RUNS runs (default 5) as long as another one fits
# in GATE_BUDGET seconds (default 540), each archive packed (≤ 2 MB) with its full traces kept
# outside it; then scripts/ci_figures.py over the archives of this call (false positives over all
# pairs, detection of each injected change) and their sizes. On an H200 run it with GATE_RUNS=1
# and compare with an H100 archive: memhier-compare --ignore-device <h100> <h200>.
# Writes DIR/results/ (the archives to commit), DIR/full/ (full traces, not to commit),
# DIR/ci_figures.md, DIR/summary.txt. GATE_DEVICE (default cuda:0; sim:<config> tries it without a GPU).
# Before the first run, one memhier-bench start (listing the plan) is timed apart: on a freshly
# started machine the first CUDA process pays the driver's initialization (~8 s on the H100).
# GATE_PLOTS_RUNS: the run numbers drawn with plots (e.g. "5"; default none, as the gate needs none).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_gate.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
runs=${GATE_RUNS:-5} budget=${GATE_BUDGET:-540} device=${GATE_DEVICE:-cuda:0}
mkdir -p "$dir/results" "$dir/full"
sum=$dir/summary.txt
: > "$sum"
for x in memhier-bench memhier-infer memhier-compare; do
  [ -x "$BIN/$x" ] || { echo "gate: $BIN/$x missing (release build failed?)" | tee -a "$sum"; exit 1; }
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader 2>&1 | sed 's/^/gpu: /' >> "$sum"
s0=${EPOCHREALTIME/[.,]/}
"$BIN/memhier-bench" --device="$device" --benchmark_list_tests=true > /dev/null 2>&1
s1=${EPOCHREALTIME/[.,]/}
echo "first memhier-bench start (listing the plan): $(( (s1 - s0) / 1000 )) ms" | tee -a "$sum"
t0=$SECONDS last=0
for i in $(seq 1 "$runs"); do
  if [ "$last" -gt 0 ] && [ $((SECONDS - t0 + last + 15)) -gt "$budget" ]; then
    echo "run $i: not started (the last run took $last s; budget $budget s)" | tee -a "$sum"
    break
  fi
  s=$SECONDS
  plot_flag=--no-plots
  case " ${GATE_PLOTS_RUNS:-} " in *" $i "*) plot_flag="" ;; esac
  "$ROOT/scripts/characterize.sh" --device "$device" $plot_flag --no-build --build-dir "$BIN" --results "$dir/results" --full-traces "$dir/full" \
    > "$dir/run$i.log" 2>&1
  rc=$? last=$((SECONDS - s))
  a=$(grep -o 'archive: .*' "$dir/run$i.log" | tail -1 | cut -d' ' -f2)
  size=$( [ -n "$a" ] && python3 "$ROOT/scripts/archive_pack.py" size "$a" | head -1 | grep -o '[0-9.]* MB' )
  echo "run $i: rc=$rc ${last} s${plot_flag:+ (no plots)} ${size:-no archive} ${a#$dir/}" | tee -a "$sum"
  grep -o 'done in .*' "$dir/run$i.log" | tail -1 | sed 's/^/  /' | tee -a "$sum"
  if [ $rc -ne 0 ]; then tail -20 "$dir/run$i.log" | sed 's/^/  | /' | tee -a "$sum"; fi
  grep -E "WARNING|plots left out" "$dir/run$i.log" | sed 's/^/  /' >> "$sum"
  grep -o 'memhier-infer: early sections .*' "$dir/run$i.log" | tail -1 | cut -c1-160 | sed 's/^/  /' >> "$sum"
done
mapfile -t archives < <(find "$dir/results" -mindepth 4 -maxdepth 4 -type d | sort)
echo "archives: ${#archives[@]}" >> "$sum"
if [ "${#archives[@]}" -ge 2 ]; then
  python3 "$ROOT/scripts/ci_figures.py" "${archives[@]}" --compare "$BIN/memhier-compare" --work "$dir/inject" --markdown \
    > "$dir/ci_figures.md" 2>&1
  echo "ci_figures rc=$? (0: no false positive, every injected change caught)" >> "$sum"
  cat "$dir/ci_figures.md" >> "$sum"
  rm -rf "$dir/inject"
  "$BIN/memhier-compare" "${archives[0]}" "${archives[-1]}" > "$dir/first_vs_last.txt" 2>&1
  echo "first vs last: exit $?; $(grep '^gate:' "$dir/first_vs_last.txt")" >> "$sum"
fi
# against the newest committed archive of this board, else of this GPU model (another session,
# maybe another driver, maybe another board: boards of one model differ, docs/fleet.md)
if [ "${#archives[@]}" -ge 1 ]; then
  slug=$(basename "$(dirname "$(dirname "${archives[0]}")")")
  uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "${device#cuda:}" 2>/dev/null | head -1 | tr -d ' ')
  old=$(python3 "$ROOT/scripts/archive_index.py" "$ROOT/results" --newest --gpu-slug "$slug" --plan full \
    ${uuid:+--prefer-board "$uuid"} 2>"$dir/vs_committed_board.txt")
  if [ -n "$old" ]; then
    "$BIN/memhier-compare" "$old" "${archives[0]}" > "$dir/vs_committed.txt" 2>&1
    echo "vs committed $(basename "$old"): exit $?; $(grep '^gate:' "$dir/vs_committed.txt")" >> "$sum"
    sed 's/^archive_index.py: /  base: /' "$dir/vs_committed_board.txt" >> "$sum"
  fi
fi
