#!/usr/bin/env bash
# Device part (dev/device/run.sh l2streams:SECONDS): the L2's random-stream trials alone
# (memhier-bench --benchmark_filter='^cache_streams/cache:l2/'), L2STREAMS_RUNS times (default 3),
# and a table per benchmark: P(evicted) of all targets and, where the targets' first loads split into
# the reader's partition and the other (docs/methodology.md, cache_streams, "The L2's two
# partitions"), near_evicted, far_near_lost and far_evicted per target of each class, with the
# classes' first-load medians. Never rebuilds. Writes DIR/run<N>/bench.json and DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_l2streams.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
for r in $(seq 1 "${L2STREAMS_RUNS:-3}"); do
  mkdir -p "$dir/run$r"
  s=$SECONDS
  "$BIN/memhier-bench" --benchmark_filter='^cache_streams/cache:l2/' --benchmark_out="$dir/run$r/bench.json" \
    --benchmark_out_format=json > "$dir/run$r/bench.log" 2>&1
  echo "run $r: exit $? in $((SECONDS - s)) s" >> "$sum"
  python3 - "$dir/run$r/bench.json" >> "$sum" <<'PY'
import json, sys
try:
    b = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no bench.json: %s" % e); sys.exit(0)
for e in b.get("benchmarks", []):
    n = e["name"].split("/")
    g = lambda k: e.get(k, float("nan"))
    line = "  %-8s k %7s p %.3f hit %s first %s" % (n[3].split(":")[1], n[5].split(":")[1], g("p_evicted"), g("hit_cycles"), g("miss_cycles"))
    if "near_trials" in e:
        nt, ft = g("near_trials"), g("far_trials")
        line += " | cut %.0f near %d first %.0f ev %.3f | far %d first %.0f near_lost %.3f ev %.3f" % (
            g("partition_cut_cycles"), nt, g("near_first_cycles"), g("near_evicted") / max(nt, 1), ft,
            g("far_first_cycles"), g("far_near_lost") / max(ft, 1), g("far_evicted") / max(ft, 1))
    else:
        line += " | one class"
    print(line)
PY
done
cat "$sum"
