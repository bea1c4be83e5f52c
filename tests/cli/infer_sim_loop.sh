#!/usr/bin/env bash
# The characterization loop of scripts/characterize.sh on a simulated device, for the end-to-end
# tests of memhier-infer (tests/cli/infer_sim.cmake):
#   memhier-bench --device sim:CFG (full plan) -> bench.json + traces/
#   up to 6 rounds: memhier-infer ... --next-requests req-N.json; stop when it is empty, else
#                   memhier-bench --plan=none --memhier_extra=req-N.json -> refine-N.json
#   memhier-infer bench.json refine-*.json -o topology.json --report report.md
# usage: infer_sim_loop.sh <build dir> <sim config.json | gen:SEED> <work dir> [--check] [max rounds]
#   gen:SEED   a random device from gen_sim_config.py --seed SEED (written to <work dir>/config.json)
#   gen-tlb:SEED  a random TLB device from gen_tlb_config.py --seed SEED
#   --check    then compare topology.json with the config's truth (check_topology.py)
# Prints one line per step with its wall time; exits non-zero when a step or the check fails.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 3 ]; then
  echo "usage: $0 <build dir> <sim config.json | gen:SEED> <work dir> [--check] [max rounds]" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd) CFG=$2 WORK=$3
shift 3
CHECK=0
[ "${1:-}" = --check ] && CHECK=1 && shift
ROUNDS=${1:-6}
rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [[ $CFG == gen:* ]]; then
  python3 "$HERE/gen_sim_config.py" --seed "${CFG#gen:}" -o "$WORK/config.json"
  CFG=$WORK/config.json
elif [[ $CFG == gen-tlb:* ]]; then  # a random TLB device (gen_tlb_config.py)
  python3 "$HERE/gen_tlb_config.py" --seed "${CFG#gen-tlb:}" -o "$WORK/config.json"
  CFG=$WORK/config.json
fi
CFG=$(realpath "$CFG")
BENCH=$BUILD/memhier-bench
INFER=$BUILD/memhier-infer
for t in "$BENCH" "$INFER"; do
  [ -x "$t" ] || { echo "infer_sim_loop: $t not built" >&2; exit 2; }
done
[ -f "$CFG" ] || { echo "infer_sim_loop: no config $CFG" >&2; exit 2; }
cd "$WORK"

step() {  # step <label> <command...>: runs it, prints the wall time, keeps its output in <label>.log
  local label=$1
  shift
  local t0=$EPOCHREALTIME
  if ! "$@" >"$label.log" 2>&1; then
    echo "infer_sim_loop: $label failed:" >&2
    tail -20 "$label.log" >&2
    exit 1
  fi
  printf '%-10s %6.2f s\n' "$label" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
}

step bench "$BENCH" --device="sim:$CFG" --memhier_progress=0 --benchmark_out=bench.json --benchmark_out_format=json
inputs=(bench.json)
pending() {  # number of requests in a memhier-requests/1 file
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(v) for k, v in d.items() if isinstance(v, list)))' "$1"
}
for ((r = 1; r <= ROUNDS; ++r)); do
  # the rounds as characterize.sh runs them: the random-stream judgement decides no request
  step "infer-$r" "$INFER" "${inputs[@]}" -o "topology-$r.json" --next-requests "req-$r.json" --skip-streams ${MEMHIER_INFER_FLAGS:-}
  n=$(pending "req-$r.json")
  echo "round $r: $n requests"
  [ "$n" = 0 ] && break
  step "refine-$r" "$BENCH" --device="sim:$CFG" --plan=none --memhier_extra="req-$r.json" --memhier_progress=0 \
    --memhier_trace_dir=traces --benchmark_out="refine-$r.json" --benchmark_out_format=json
  inputs+=("refine-$r.json")
done
step final "$INFER" "${inputs[@]}" -o topology.json --report report.md --next-requests req-final.json
echo "final: $(pending req-final.json) requests still pending"
if [ "$CHECK" = 1 ]; then
  python3 "$HERE/check_topology.py" "$CFG" topology.json
fi
