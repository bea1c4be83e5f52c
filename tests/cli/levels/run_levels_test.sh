#!/usr/bin/env bash
# The levels beyond one SM end to end on simulated devices (issue 21): memhier-bench runs the dsmem,
# async_copy, host and peer families (3 repetitions) on a config built like an H100 (hopper_like)
# and on one built unlike it (unlike_hopper), memhier-infer writes topology.json and report.md, and
# check_levels.py asserts that the analyzer recovered what each config says (rank and cluster-size
# effects, which L2 keeps host and peer lines, the methods offered). Then the gate: hopper_like
# against itself passes (the simulated noise is seeded: every run is the same), and against a copy
# whose NVLink and PCIe paths are slower (same device, same links, lower efficiency and a longer
# latency) exits 1 with the peer and host figures WORSE.
#   run_levels_test.sh SOURCE-DIR BUILD-DIR WORK-DIR
set -uo pipefail
src=$1; bin=$2; work=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
filter='^(dsmem|async_copy|host|peer)/'

archive() {  # archive NAME CONFIG: bench.json, topology.json and report.md under WORK/NAME
  local d=$work/$1
  mkdir -p "$d"
  "$bin/memhier-bench" --device="sim:$2" --memhier_progress=0 --benchmark_filter="$filter" \
    --benchmark_repetitions=3 --benchmark_out="$d/bench.json" --benchmark_out_format=json > "$d/bench.log" 2>&1 ||
    { tail -20 "$d/bench.log"; fail "memhier-bench on $2"; }
  "$bin/memhier-infer" "$d/bench.json" -o "$d/topology.json" --report "$d/report.md" > "$d/infer.log" 2>&1 ||
    { tail -20 "$d/infer.log"; fail "memhier-infer on $2"; }
}

archive like "$src/sim/configs/hopper_like.json"
archive unlike "$src/sim/configs/unlike_hopper.json"
archive like2 "$src/sim/configs/hopper_like.json"
python3 "$here/check_levels.py" "$work/like" "$work/unlike" || fail "the analyzer did not recover the configs"

# The slowed paths: the same device and links, a driver that slows them.
python3 - "$src/sim/configs/hopper_like.json" "$work/slowed.json" <<'PY' || fail "slowed config"
import json, sys
c = json.load(open(sys.argv[1]))
p = c["beyond_sm"]["peers"][0]
p["read_efficiency"] *= 0.7; p["copy_efficiency"] *= 0.7; p["latency_cycles"] *= 1.3
p["owner_hit_latency_cycles"] *= 1.3  # a slower link: a line in the peer's L2 too
h = c["beyond_sm"]["host"]
h["read_efficiency"] *= 0.8; h["copy_efficiency"] *= 0.8
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
archive slowed "$work/slowed.json"

"$bin/memhier-compare" "$work/like" "$work/like2" > "$work/same.txt" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$work/same.txt"; fail "hopper_like against itself: exit $rc, expected 0"; }
"$bin/memhier-compare" --format=json -o "$work/gate.json" "$work/like" "$work/slowed" > "$work/gate.txt" 2>&1
rc=$?
[ "$rc" = 1 ] || { cat "$work/gate.txt"; fail "slowed links: exit $rc, expected 1 (a figure WORSE)"; }
python3 - "$work/gate.json" <<'PY' || fail "the gate did not name the slowed figures"
import json, sys
g = json.load(open(sys.argv[1]))
worse = set(g["gate"]["worse"])
assert not g["gate"]["structural_changes"], g["gate"]["structural_changes"]
want = {"peers[0].read.bytes_per_second", "peers[0].copy.uni.bytes_per_second", "peers[0].latency_by_state.owner",
        "host_memory.read.bytes_per_second", "host_memory.copy.h2d.bytes_per_second", "host_memory.copy.d2h.bytes_per_second"}
assert want <= worse, ("missing WORSE", sorted(want - worse), "worse:", sorted(worse))
others = {i for i in worse if not (i.startswith("peers[") or i.startswith("host_memory."))}
assert not others, ("WORSE beyond the slowed paths", sorted(others))
PY
echo PASS
