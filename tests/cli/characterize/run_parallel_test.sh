#!/usr/bin/env bash
# characterize.sh --parallel (what --all does with every GPU): two simulated devices of one model
# at once, each its own archive (the later one in the next free second when both finish in the
# same second), its own stages and wall time, its lines prefixed with the device; then the two
# compared as siblings (SAME: the same simulated device). A device that fails fails the run.
set -uo pipefail
src=$1; bin=$2; w=$3
fail() { echo "FAIL: $*"; [ -f "$w/run.log" ] && tail -30 "$w/run.log"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
cfg=$src/sim/configs/plain_lru.json
timeout 300 "$src/scripts/characterize.sh" --device "sim:$cfg" --device "sim:$cfg" --parallel --plan quick --rounds 1 \
  --build-dir "$bin" --results "$w/results" --no-plots > "$w/run.log" 2>&1 || fail "exit $?"
n=$(find "$w/results" -mindepth 4 -maxdepth 4 -type d -name '20*Z' | wc -l)
[ "$n" = 2 ] || fail "$n archives, want 2"
[ -z "$(find "$w/results" -maxdepth 1 -name '.incomplete-*')" ] || fail "a temporary directory or name reservation was left behind"
grep -q "2 devices at once" "$w/run.log" || fail "no line saying the devices run at once"
[ "$(grep -c "^\[sim:$cfg\] .*device sim:$cfg done in" "$w/run.log")" = 2 ] || fail "want two prefixed 'done in' lines, one per device"
grep -q "node: sim:$cfg against sim:$cfg (sim-plain_lru): SAME" "$w/run.log" || fail "the siblings were not compared"
for a in $(find "$w/results" -mindepth 4 -maxdepth 4 -type d -name '20*Z'); do
  python3 - "$a" <<'PY' || fail "stages of $a"
import gzip, json, sys
c = json.load(gzip.open(sys.argv[1] + "/bench.json.gz", "rt"))["context"]
stages = c["characterize_stages"]
assert stages.count("plan ") == 1 and stages.rstrip().split(", ")[-1].startswith("pack "), stages
PY
done
# links (--all, --parallel): each device's host and peer families first, alone, merged into its
# archive; the runs at once skip them. hopper_like has a simulated host link and peer, plain_lru
# neither (no host or peer benchmark).
rm -rf "$w/results3"
like=$src/sim/configs/hopper_like.json
timeout 300 "$src/scripts/characterize.sh" --device "sim:$like" --device "sim:$cfg" --parallel --plan quick --rounds 1 \
  --build-dir "$bin" --results "$w/results3" --no-plots > "$w/run3.log" 2>&1 || fail "peer pairs: exit $?"
grep -q "device sim:$like: host and peer links measured ([1-9][0-9]* benchmarks)" "$w/run3.log" || fail "no link pass for hopper_like"
grep -q "device sim:$cfg: no host or peer link measured" "$w/run3.log" || fail "plain_lru: no line saying it has no links"
for a in $(find "$w/results3" -mindepth 4 -maxdepth 4 -type d -name '20*Z'); do
  python3 - "$a" <<'PY' || fail "links in $a"
import gzip, json, sys
b = json.load(gzip.open(sys.argv[1] + "/bench.json.gz", "rt"))
c, names = b["context"], [x["name"] for x in b["benchmarks"]]
links = [n for n in names if n.startswith(("peer/", "host/"))]
assert c.get("memhier_skipped_families") == "host,peer", c.get("memhier_skipped_families")
if "hopper_like" in c["device_backend"]:
    assert any(n.startswith("host/") for n in links) and any(n.startswith("peer/") for n in links), links
    assert len(links) == len(set(links)), links  # merged once
    assert c["memhier_link_pass"].startswith("host and peer measured before"), c.get("memhier_link_pass")
    t = json.load(open(sys.argv[1] + "/topology.json"))
    assert t["peers"] and t["peers"][0]["device"] == 1, t.get("peers")
    assert t["host_memory"]["copy"]["h2d"]["bytes_per_second"] > 0, t["host_memory"]
else:
    assert not links and "memhier_link_pass" not in c, links
PY
done
# a device that fails (a missing config) fails the whole run, the other still archives
rm -rf "$w/results2"
"$src/scripts/characterize.sh" --device "sim:$cfg" --device "sim:$w/missing.json" --parallel --plan quick --rounds 1 \
  --build-dir "$bin" --results "$w/results2" --no-plots > "$w/run2.log" 2>&1 && fail "a missing config passed"
echo PASS
