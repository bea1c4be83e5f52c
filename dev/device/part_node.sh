#!/usr/bin/env bash
# Device part (dev/device/run.sh node:SECONDS), issue 22 on a GPU host: `--device=list`; every
# GPU at once (`characterize.sh --all`) and GPU 0 alone, to compare wall times and results; a run
# of GPU 0 beside a co-tenant (a memhier-bench throughput loop on the same GPU) that must come out
# marked contended and refused by the gate (exit 7); a clean run after it, gated against the
# committed archive of its model; the fleet over this call's archives and the committed ones.
# Writes DIR/results/ (archives), DIR/*.txt, DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_node.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir/results"
sum=$dir/summary.txt
: > "$sum"
C=$ROOT/scripts/characterize.sh
char() {  # char NAME ARGS...: one characterization into DIR/results/NAME, its log and result line
  local name=$1; shift
  local s=$SECONDS
  "$C" --no-build --build-dir "$BIN" --results "$dir/results/$name" --no-plots "$@" > "$dir/$name.log" 2>&1
  local rc=$?
  echo "$name: rc=$rc $((SECONDS - s)) s; $(grep -o 'device [^ ]* done in [0-9.]* s' "$dir/$name.log" | tr '\n' ';')" | tee -a "$sum"
  grep -E 'WARNING|node:|all [0-9]+ devices done' "$dir/$name.log" | sed 's/^/  /' | tee -a "$sum"
}
newest() { find "$dir/results/$1" -mindepth 4 -maxdepth 4 -type d -name '20*Z' | sort | tail -1; }
"$BIN/memhier-bench" --device=list | tee "$dir/device-list.txt" | sed 's/^/  /' >> "$sum"
n=$(nvidia-smi -L | grep -c '^GPU')
[ "$n" -ge 2 ] && char all --all
char single --device cuda:0
# the co-tenant: memhier-bench's DRAM throughput family in a loop on the same GPU
( while :; do "$BIN/memhier-bench" --device=cuda:0 --plan=quick --benchmark_filter=gmem_throughput \
      --memhier_progress=0 > /dev/null 2>&1; done ) &
load=$!
sleep 3
"$BIN/memhier-bench" --device=list | grep '^cuda:0' | sed 's/^/  with the co-tenant: /' | tee -a "$sum"
char contended --device cuda:0
kill "$load" 2>/dev/null; pkill -f 'benchmark_filter=gmem_throughput' 2>/dev/null; wait 2>/dev/null
sleep 2
char clean --device cuda:0
ca=$(newest contended) cl=$(newest clean) si=$(newest single)
for a in "$ca" "$cl"; do
  [ -n "$a" ] && python3 -c "import json,sys; c=json.load(open(sys.argv[1]+'/topology.json'))['measurement'].get('conditions',{}); print('  %s: contended %s, throttled %s; %s' % (sys.argv[1].split('/results/')[1], c.get('contended'), c.get('throttled'), c.get('evidence','')[:300]))" "$a" | tee -a "$sum"
done
[ -n "$ca" ] && [ -n "$cl" ] && { "$BIN/memhier-compare" "$cl" "$ca" > "$dir/compare-contended.txt" 2>&1; echo "compare clean vs contended: exit $? ($(grep '^gate:' "$dir/compare-contended.txt" | cut -c1-160))" | tee -a "$sum"; }
slug=$(basename "$(dirname "$(dirname "$cl")")")
committed=$(find "$ROOT/results/sm_90/$slug" -mindepth 2 -maxdepth 2 -type d -name '20*Z' 2>/dev/null | sort | tail -1)
if [ -n "$committed" ] && [ -n "$cl" ]; then
  "$BIN/memhier-compare" "$committed" "$cl" > "$dir/compare-committed.txt" 2>&1
  echo "compare committed ${committed#$ROOT/} vs clean: exit $? ($(grep '^gate:' "$dir/compare-committed.txt"))" | tee -a "$sum"
  grep -E '^worse:|^changed:' -A1 "$dir/compare-committed.txt" | sed 's/^/  /' >> "$sum"
fi
[ -n "$si" ] && [ -n "$cl" ] && { "$BIN/memhier-compare" "$si" "$cl" > "$dir/compare-single-clean.txt" 2>&1; echo "compare single vs clean: exit $? ($(grep '^gate:' "$dir/compare-single-clean.txt"))" | tee -a "$sum"; }
# the fleet: this call's clean archives (not the contended one) and the committed ones of the model
fleet=()
for a in $(find "$dir/results/all" "$dir/results/single" "$dir/results/clean" -mindepth 4 -maxdepth 4 -type d -name '20*Z' 2>/dev/null) \
         $(find "$ROOT/results/sm_90/$slug" -mindepth 2 -maxdepth 2 -type d -name '20*Z' 2>/dev/null); do
  [ -f "$a/topology.json" ] && fleet+=("$a")  # a folder left empty by a removed archive is none
done
if [ ${#fleet[@]} -ge 3 ]; then
  "$BIN/memhier-compare" --fleet "${fleet[@]}" > "$dir/fleet.txt" 2>&1
  echo "fleet of ${#fleet[@]} archives: exit $?" | tee -a "$sum"
  grep -E '^fleet:|^STRUCTURE|^FIGURES' "$dir/fleet.txt" | sed 's/^/  /' | tee -a "$sum"
fi
cat "$sum"
