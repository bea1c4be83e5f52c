#!/usr/bin/env bash
# The l2_persist family end to end on simulated devices (issue 20 item 4; docs/methodology.md,
# section l2_persist): memhier-bench runs it on hopper_like (a set-aside of 6 MiB, every persisting
# line kept) and on a copy that grants in 1 MiB steps and keeps half of what it grants, and on one
# that grants in 1 MiB steps and keeps one step for a persisting window at a limit of 0 (as the H100
# did: the window-free control tells survival from that minimum set-aside); memhier-infer
# writes the l2_persisting section and report.md's table; check_l2_persist.py asserts what each
# config says; the gate passes hopper_like against itself and fails (exit 1) against the weaker
# copy with l2_persisting.largest_kept_bytes WORSE; the quick plan has 4 benchmarks; plain_lru
# (no l2_persisting) none.
#   run_l2_persist_test.sh SOURCE-DIR BUILD-DIR WORK-DIR
set -uo pipefail
src=$1; bin=$2; work=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
filter='^l2_persist/'

archive() {  # archive NAME CONFIG [FLAGS...]: bench.json, topology.json and report.md under WORK/NAME
  local d=$work/$1 cfg=$2
  shift 2
  mkdir -p "$d"
  "$bin/memhier-bench" --device="sim:$cfg" --memhier_progress=0 --benchmark_filter="$filter" \
    --benchmark_out="$d/bench.json" --benchmark_out_format=json "$@" > "$d/bench.log" 2>&1 ||
    { tail -20 "$d/bench.log"; fail "memhier-bench on $cfg"; }
  "$bin/memhier-infer" "$d/bench.json" -o "$d/topology.json" --report "$d/report.md" > "$d/infer.log" 2>&1 ||
    { tail -20 "$d/infer.log"; fail "memhier-infer on $cfg"; }
}

python3 - "$src/sim/configs/hopper_like.json" "$work/weaker.json" "$work/minstep.json" <<'PY' || fail "weaker config"
import json, sys
c = json.load(open(sys.argv[1]))
c["l2_persisting"]["set_aside_granularity_bytes"] = 1048576
c["l2_persisting"]["kept_efficiency"] = 0.5
json.dump(c, open(sys.argv[2], "w"), indent=1)
c["l2_persisting"]["kept_efficiency"] = 1
c["l2_persisting"]["minimum_set_aside_bytes"] = 1048576
json.dump(c, open(sys.argv[3], "w"), indent=1)
PY

archive like "$src/sim/configs/hopper_like.json"
archive like2 "$src/sim/configs/hopper_like.json"
archive weaker "$work/weaker.json"
archive minstep "$work/minstep.json"
archive quick "$src/sim/configs/hopper_like.json" --plan=quick
# plain_lru has no l2_persisting: no benchmark of the family in its plan
"$bin/memhier-bench" --device="sim:$src/sim/configs/plain_lru.json" --memhier_progress=0 --benchmark_filter="$filter" \
  --benchmark_out="$work/plain.json" --benchmark_out_format=json > "$work/plain.log" 2>&1
rc=$?
{ [ "$rc" != 0 ] && grep -q "no benchmark of this plan matches the filter" "$work/plain.log"; } ||
  { cat "$work/plain.log"; fail "plain_lru: expected no l2_persist benchmark (exit $rc)"; }
python3 "$here/check_l2_persist.py" "$work" || fail "the analyzer did not recover the configs"

"$bin/memhier-compare" "$work/like" "$work/like2" > "$work/same.txt" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$work/same.txt"; fail "hopper_like against itself: exit $rc, expected 0"; }
"$bin/memhier-compare" --format=json -o "$work/gate.json" "$work/like" "$work/weaker" > "$work/gate.txt" 2>&1
rc=$?
[ "$rc" = 1 ] || { cat "$work/gate.txt"; fail "weaker set-aside: exit $rc, expected 1 (a figure WORSE)"; }
python3 - "$work/gate.json" <<'PY' || fail "the gate did not name the weaker set-aside"
import json, sys
g = json.load(open(sys.argv[1]))
worse = set(g["gate"]["worse"])
assert not g["gate"]["structural_changes"], g["gate"]["structural_changes"]
assert worse == {"l2_persisting.largest_kept_bytes"}, sorted(worse)
PY
echo PASS
