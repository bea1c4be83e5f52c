#!/usr/bin/env bash
# Device part (dev/device/run.sh streamtrials:SECONDS): do a launch's first trials see another cache
# than its later ones? The same L1-side points (TRIALS_CACHES, default "readonly l1"; k = L/4 and L)
# in separate processes with 1, 2, 4, 8 and 16 trials per SM (memhier-bench --plan=none and
# cache_streams requests, docs/formats.md); a table of P(evicted) per trials count. Then does a
# path's curve depend on what ran before it? The plan's points of each cache of TRIALS_ORDER
# (default "readonly") alone (--benchmark_filter) and after the plan's texture points (TRIALS_HOW:
# "alone after_texture" by default; plan_order: the three L1-side paths' fresh and mid in the
# plan's order). TRIALS_SKIP=1 leaves the trials counts out. Never
# rebuilds. Writes DIR/t<N>/bench.json, DIR/order-*/bench.json and DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_streamtrials.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
for t in $([ -n "${TRIALS_SKIP:-}" ] || echo 1 2 4 8 16); do
  mkdir -p "$dir/t$t"
  python3 - "$dir/t$t/requests.json" "$t" <<'PY'
import json, os, sys
items = []
for c in os.environ.get("TRIALS_CACHES", "readonly l1").split():
    for v in ("fresh", "restream"):
        for k in (456, 1824):
            items.append({"cache": c, "variant": v, "k": k, "trials": int(sys.argv[2])})
json.dump({"format": "memhier-requests/1", "cache_streams": items}, open(sys.argv[1], "w"))
PY
  "$BIN/memhier-bench" --plan=none --memhier_extra="$dir/t$t/requests.json" --benchmark_out="$dir/t$t/bench.json" \
    --benchmark_out_format=json > "$dir/t$t/bench.log" 2>&1
  echo "trials $t per SM: exit $?" >> "$sum"
  python3 "$ROOT/dev/device/streams_table.py" "$dir/t$t/bench.json" --cycles >> "$sum"
done
for c in ${TRIALS_ORDER:-readonly}; do
  for how in ${TRIALS_HOW:-alone after_texture}; do
    f="^cache_streams/cache:$c/.*variant:(fresh|mid)/"
    [ "$how" = after_texture ] && f="^cache_streams/cache:(texture|$c)/.*variant:(fresh|mid)/"
    [ "$how" = plan_order ] && f="^cache_streams/cache:(l1|readonly|texture)/.*variant:(fresh|mid)/.*loads:dep"
    mkdir -p "$dir/order-$c-$how"
    "$BIN/memhier-bench" --benchmark_filter="$f" --benchmark_out="$dir/order-$c-$how/bench.json" \
      --benchmark_out_format=json > "$dir/order-$c-$how/bench.log" 2>&1
    echo "$c $how (filter $f): exit $?" >> "$sum"
    python3 "$ROOT/dev/device/streams_table.py" "$dir/order-$c-$how/bench.json" >> "$sum"
  done
done
cat "$sum"
