#!/usr/bin/env bash
# Device part (dev/device/run.sh profile:SECONDS): where a characterization's wall time goes.
# One characterization with plots (its stages are in the archive's context, characterize_stages),
# then on that archive: memhier-bench's start-up for a refinement round (the archive's last
# requests file, twice), memhier-infer with all threads and with MEMHIER_THREADS=1, plot.py with
# all cores and with MEMHIER_PLOT_JOBS=1. Writes DIR/results/ (the archive), DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_profile.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir/results"
sum=$dir/summary.txt; : > "$sum"
say() { echo "$*" | tee -a "$sum"; }
secs() { local s=${EPOCHREALTIME/[.,]/}; "$@" > /dev/null 2>> "$dir/profile.err"; local rc=$?; local e=${EPOCHREALTIME/[.,]/}; printf '%d.%02d s (rc %d)' $(((e - s) / 1000000)) $(((e - s) % 1000000 / 10000)) $rc; }
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | head -1); cores: $(nproc)"
s=$SECONDS
"$ROOT/scripts/characterize.sh" --no-build --build-dir "$BIN" --results "$dir/results" > "$dir/characterize.log" 2>&1
say "characterize (with plots): rc=$? in $((SECONDS - s)) s"
grep -E "^\[characterize" "$dir/characterize.log" | tail -3 | sed 's/^/  /' | tee -a "$sum"
a=$(grep -o 'archive: .*' "$dir/characterize.log" | tail -1 | cut -d' ' -f2)
[ -n "$a" ] || { tail -20 "$dir/characterize.log" | tee -a "$sum"; exit 1; }
w=$dir/work; rm -rf "$w"; cp -r "$a" "$w"; (cd "$w" && gunzip -f ./*.gz 2>/dev/null)
q=$(ls "$w"/requests-*.json 2>/dev/null | tail -1)
if [ -n "$q" ]; then
  say "refinement round start-up: memhier-bench --plan=none on $(basename "$q"): $(secs "$BIN/memhier-bench" --plan=none --memhier_extra="$q" --memhier_progress=0 --benchmark_out="$w/x.json"), again $(secs "$BIN/memhier-bench" --plan=none --memhier_extra="$q" --memhier_progress=0 --benchmark_out="$w/x.json")"
fi
say "memhier-bench --benchmark_list_tests (start-up + registration of the full plan): $(secs "$BIN/memhier-bench" --benchmark_list_tests=true)"
say "memhier-infer on the archive: $(secs "$BIN/memhier-infer" --allow-errors "$a" -o "$w/t.json"), MEMHIER_THREADS=1: $(MEMHIER_THREADS=1 secs "$BIN/memhier-infer" --allow-errors "$a" -o "$w/t1.json")"
cmp -s "$w/t.json" "$w/t1.json" && say "  same topology with 1 thread" || say "  TOPOLOGY DIFFERS with 1 thread"
say "plot.py: $(secs python3 "$ROOT/scripts/plot.py" "$w" -o "$w/p"), MEMHIER_PLOT_JOBS=1: $(MEMHIER_PLOT_JOBS=1 secs python3 "$ROOT/scripts/plot.py" "$w" -o "$w/p1")"
say "pack (archive_pack.py on a copy): $(cp -r "$w" "$w.2" && secs python3 "$ROOT/scripts/archive_pack.py" pack "$w.2")"
rm -rf "$w" "$w.2"
python3 "$ROOT/scripts/topology_table.py" "$a" 2>&1 | tail -12 | tee -a "$sum"
