#!/usr/bin/env bash
# Device part (dev/device/run.sh streamstudy:SECONDS): the cache_streams curves on a finer k grid
# than the plan's, with more trials, for the policy study of docs/methodology.md (cache_streams,
# "Studies"): memhier-bench --plan=none with a requests file of cache_streams items
# (docs/formats.md) made here from the device's L2 and L1 sizes. STUDY_CACHES (default
# "l2 readonly l1") and STUDY_VARIANTS (default "fresh reread1 reread2 mid restream") choose the curves;
# STUDY_L2_TRIALS (default 8, x 512 targets) and STUDY_L1_TRIALS (default 16 per SM) the trials.
# Writes DIR/requests.json, DIR/bench.json and DIR/summary.txt (one line per point). Never rebuilds.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_streamstudy.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
# The device's sizes: a one-point run's context (l2_cache_bytes) and the plan's L1 scale.
echo '{"format": "memhier-requests/1", "cache_streams": [{"cache": "l2", "k": 1, "trials": 1}]}' > "$dir/probe.json"
"$BIN/memhier-bench" --plan=none --memhier_extra="$dir/probe.json" --benchmark_out="$dir/probe_bench.json" \
  --benchmark_out_format=json > "$dir/probe.log" 2>&1 || { echo "probe run failed" >> "$sum"; tail -5 "$dir/probe.log" >> "$sum"; exit 1; }
python3 - "$dir/probe_bench.json" "$dir/requests.json" <<'PY' || exit 1
import json, os, sys
b = json.load(open(sys.argv[1]))
ctx = b["context"]
l2_lines = int(ctx["l2_cache_bytes"]) // 2 // 128
l1_bytes = int(ctx["smem_per_sm_bytes"])  # the plan's L1 scale (bench/families/cache_streams.cpp)
l1_lines = l1_bytes // 128
caches = os.environ.get("STUDY_CACHES", "l2 readonly l1").split()
variants = os.environ.get("STUDY_VARIANTS", "fresh reread1 reread2 mid restream").split()
items = []
for c in caches:
    if c == "l2":
        fr, lines, trials = [0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.5, 2.0], l2_lines, int(os.environ.get("STUDY_L2_TRIALS", 8))
    else:
        fr, lines, trials = [0.125, 0.1875, 0.25, 0.375, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0], l1_lines, int(os.environ.get("STUDY_L1_TRIALS", 16))
    for v in variants:
        for f in fr:
            items.append({"cache": c, "variant": v, "k": max(1, round(f * lines)), "trials": trials})
json.dump({"format": "memhier-requests/1", "cache_streams": items}, open(sys.argv[2], "w"), indent=0)
print("study: %d points (L2 half %d lines, L1 %d lines)" % (len(items), l2_lines, l1_lines))
PY
s=$SECONDS
"$BIN/memhier-bench" --plan=none --memhier_extra="$dir/requests.json" --benchmark_out="$dir/bench.json" \
  --benchmark_out_format=json > "$dir/bench.log" 2>&1
echo "study run: exit $? in $((SECONDS - s)) s" >> "$sum"
python3 "$ROOT/dev/device/streams_table.py" "$dir/bench.json" >> "$sum"
cat "$sum"
