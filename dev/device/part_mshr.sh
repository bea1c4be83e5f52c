#!/usr/bin/env bash
# Device part (dev/device/run.sh mshr:150): issue 13 on the GPU — outstanding_requests,
# cache_sharing, caches_per_sm, l2_partitions, the distinct-line L2 layouts, the analyzer on them,
# and gpu-benches' gpu-l2-cache (the peer) in the same call.
#   part_mshr.sh DIR      BIN (release build) and ROOT (checkout) come from run.sh
# Writes DIR/<group>.json per memhier-bench group (l2layouts, outstanding, sharing, partitions, and
# chase: the single-SM L2 sweep the replication limit needs), DIR/bench.json (all of them), traces/,
# plots/, topology.json, report.md, peer.txt, sass_*.txt, summary.txt. Every group and the peer have
# their own time limit (worst case ~150 s in all, ~30 s expected). Never rebuilds memhier; builds only the peer (one
# nvcc call, in the background while memhier measures).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=${1:?usage: part_mshr.sh DIR}
mkdir -p "$DIR"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${BIN:-$ROOT/build/release}
S=$DIR/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
t0=$SECONDS
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader > "$DIR/smi.txt" 2>&1
say "gpu: $(head -1 "$DIR/smi.txt")"
[ -x "$BIN/memhier-bench" ] || { say "FAIL: $BIN/memhier-bench missing (run.sh builds release first)"; exit 1; }

# ---- the peer: build in the background (CPU only) while memhier measures ----
PEER=$ROOT/.peer/gpu-benches
PB=$DIR/peer-build
if [ -f "$PEER/gpu-l2-cache/main.cu" ]; then
  mkdir -p "$PB/gpu-l2-cache" "$PB/gpu-metrics"
  cp "$PEER/MeasurementSeries.hpp" "$PEER/dtime.hpp" "$PEER/gpu-error.h" "$PB/"
  cp "$PEER/gpu-l2-cache/main.cu" "$PB/gpu-l2-cache/"
  cp "$PEER/stub/gpu-metrics/gpu-metrics.hpp" "$PB/gpu-metrics/"  # see dev/peer/prepare_gpu_benches.sh
  (nvcc -std=c++17 -O3 -arch=sm_90 -o "$PB/cuda-l2-cache" "$PB/gpu-l2-cache/main.cu" > "$PB/build.log" 2>&1; echo $? > "$PB/build.rc") &
  peer_build=$!
else
  say "peer: ABSENT — $PEER not found (run dev/peer/prepare_gpu_benches.sh and carry .peer/)"
  peer_build=
fi

# ---- SASS checks of the measured kernels (instruction order matters) ----
O=$BIN/bench/CMakeFiles/memhier_families.dir/families
if command -v cuobjdump >/dev/null 2>&1; then
  for f in outstanding_requests cache_sharing l2_partitions l2_distinct l2_throughput; do
    cuobjdump -sass "$O/$f.cu.o" > "$DIR/sass_$f.txt" 2>&1 || true
  done
  # outstanding_kernel<1>/<16> and warp_loads_probe<64>: loads issued before the first use of the
  # first load's value (1, 16, 64: ptxas interleaved no use); sharing_kernel: the fill walk exists
  # (the first run's fill had been removed by ptxas: its re-read was a cold walk)
  python3 "$ROOT/dev/device/sass_check.py" outstanding "$DIR/sass_outstanding_requests.txt" 2>&1 | tee -a "$S"
  python3 "$ROOT/dev/device/sass_check.py" sharing "$DIR/sass_cache_sharing.txt" 2>&1 | tail -4 | tee -a "$S"
else
  say "sass: cuobjdump not found, no instruction-order check"
fi

# ---- the GPU tests of these kernels (valid samples, control evicts, pinned CTA runs) ----
if [ -x "$BIN/tests/memhier_gpu_tests" ]; then
  timeout -k 5 20 "$BIN/tests/memhier_gpu_tests" --gtest_filter='SmResourcesGpu*' > "$DIR/gpu_tests.log" 2>&1
  say "gpu tests SmResourcesGpu*: rc=$? ($(grep -E '^\[  PASSED|^\[  FAILED' "$DIR/gpu_tests.log" | tr '\n' ' '))"
fi

# ---- memhier: one invocation per group, each bounded (a killed run writes no JSON: the groups
# that finished still count); the L2 layouts and the peer come first, so the comparison the issue
# asks for survives whatever happens later ----
run_bench() {  # NAME TIMEOUT FILTER
  local s=$SECONDS
  timeout -k 5 "$2" "$BIN/memhier-bench" --plan=full --benchmark_filter="$3" --benchmark_out="$DIR/$1.json" \
    --benchmark_out_format=json --benchmark_format=console > "$DIR/$1.log" 2>&1
  local rc=$?
  say "memhier $1: rc=$rc in $((SECONDS - s)) s (limit $2 s)"
  python3 - "$DIR/$1.json" <<'PY' 2>/dev/null | head -8 | tee -a "$S"
import collections, json, sys
b = json.load(open(sys.argv[1]))["benchmarks"]
t = collections.Counter()
unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
for x in b:
    t[x["run_name"].split("/")[0]] += x.get("real_time", 0) * unit[x.get("time_unit", "ns")] * x.get("iterations", 1)
print("  %d entries, %d failed; device time (s): %s" % (len(b), sum(1 for x in b if x.get("error_occurred")),
      ", ".join("%s %.2f" % kv for kv in sorted(t.items()))))
for x in b:
    if x.get("error_occurred"): print("  FAILED", x["run_name"], x.get("error_message", "")[:110])
PY
}
# The L2 layouts: every distinct-line layout (stagger, oneshot, bulk) and the peer's pattern with its
# two variants, plus the plain tile at the same working sets. The filter is built from the names
# the binary lists (Google Benchmark matches names with their /iterations:3/manual_time suffix: the
# first run's hand-written regex ended in $ and matched nothing).
timeout -k 5 20 "$BIN/memhier-bench" --plan=full --benchmark_list_tests --benchmark_filter='^l2_throughput/' > "$DIR/l2_names.txt" 2> "$DIR/l2_names.err"
L2F=$(python3 "$ROOT/dev/device/l2_layout_filter.py" "$DIR/l2_names.txt" 2> "$DIR/l2_filter.txt")
say "l2layouts filter: $(cat "$DIR/l2_filter.txt")"
run_bench l2layouts 25 "${L2F:-^l2_throughput/none-listed$}"

# ---- the peer: run until its data set passes 2 x L2 (or 20 s; the first run needed 9 s) ----
PEER_TXT=$DIR/peer.txt
if [ -n "$peer_build" ]; then
  wait "$peer_build"
  if [ "$(cat "$PB/build.rc" 2>/dev/null)" = 0 ]; then
    l2kb=$(python3 -c "import json;print(int(json.load(open('$DIR/l2layouts.json'))['context']['l2_cache_bytes'])//1024)" 2>/dev/null || echo 51200)
    s=$SECONDS
    "$PB/cuda-l2-cache" > "$PEER_TXT" 2>&1 &  # it flushes every line (std::endl)
    pp=$!
    for _ in $(seq 1 40); do
      sleep 0.5
      last=$(awk '$4 == "kB" {print $3}' "$PEER_TXT" | tail -1)
      if [ -n "$last" ] && [ "$last" -gt $((2 * l2kb)) ]; then break; fi
      kill -0 $pp 2>/dev/null || break
    done
    kill $pp 2>/dev/null; wait $pp 2>/dev/null
    say "peer: gpu-l2-cache $(grep commit "$PEER/SOURCE" 2>/dev/null) built with the metrics stub, $(grep -c 'GB/s' "$PEER_TXT") points in $((SECONDS - s)) s"
    grep -q 'GB/s' "$PEER_TXT" || tail -2 "$PEER_TXT" | sed 's/^/  | /' | tee -a "$S"
  else
    say "peer: BUILD FAILED (see peer-build/build.log)"; tail -5 "$PB/build.log" | sed 's/^/  | /' | tee -a "$S"
  fi
fi

s0=$SECONDS
run_bench outstanding 35 '^outstanding_requests/'
run_bench sharing 12 '^(cache_sharing|caches_per_sm)/'
run_bench partitions 12 '^l2_partitions/'
say "the four families of issue 13 and the L2 layouts: $((SECONDS - s0)) s without the layouts (target < 60 s in all)"
run_bench chase 10 '^(clock_overhead/|pchase/path:global_cg/mode:count/)'

# one bench.json of every group that finished (traces are already together in DIR/traces)
python3 - "$DIR" <<'PY' | tee -a "$S"
import json, os, sys
d, merged = sys.argv[1], None
for n in ("l2layouts", "outstanding", "sharing", "partitions", "chase"):
    try:
        j = json.load(open(os.path.join(d, n + ".json")))
    except (OSError, ValueError):
        print("bench: no %s.json (the group did not finish)" % n); continue
    if merged is None: merged = j
    else: merged["benchmarks"] += j["benchmarks"]
if merged: json.dump(merged, open(os.path.join(d, "bench.json"), "w"))
PY
python3 "$ROOT/scripts/plot.py" "$DIR" > "$DIR/plot.log" 2>&1 || say "plots: none (see plot.log)"
"$BIN/memhier-infer" "$DIR/bench.json" -o "$DIR/topology.json" --report "$DIR/report.md" --allow-errors > "$DIR/infer.log" 2>&1
say "memhier-infer: rc=$?"

# ---- what to read off ----
python3 "$ROOT/dev/device/mshr_summary.py" "$DIR/topology.json" "$DIR/bench.json" "$PEER_TXT" 2>&1 | tee -a "$S"
say "part mshr: $((SECONDS - t0)) s"
