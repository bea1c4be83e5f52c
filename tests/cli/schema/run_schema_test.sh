#!/usr/bin/env bash
# topology.json memhier-topology/2 from a committed memhier-topology/1 archive (docs/formats.md,
# "Topology report"): memhier-infer --from-topology writes it again as /2 (device values as numbers
# and booleans, --context typed alike, inputs by name, a cache's ways one count), and memhier-compare
# finds no difference between the /1 archive and its /2 twin (the same bench.json): exit 0, every
# figure SAME (or INFO), caches.l1.ways SAME at 4.
# usage: run_schema_test.sh <memhier-infer> <memhier-compare> <archive> <work>
set -u
infer=$1 compare=$2 archive=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/v1" "$work/v2" || fail "cannot make $work"
for d in v1 v2; do cp "$archive/bench.json.gz" "$work/$d/" || fail "no bench.json.gz in $archive"; done
cp "$archive/topology.json" "$work/v1/"
python3 - "$work/v1/topology.json" <<'PY' || fail "the committed archive is not a memhier-topology/1 file with ways by set"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["schema"] == "memhier-topology/1" and isinstance(t["caches"]["l1"]["ways"], list), t["schema"]
assert isinstance(t["device"]["sm_count"], str) and "/" in t["inputs"][0]
PY
"$infer" --from-topology "$work/v1/topology.json" --context characterize_wall_seconds=12.5 \
  --context note_text=fast -o "$work/v2/topology.json" || fail "memhier-infer --from-topology failed on a /1 file"
python3 - "$work/v1/topology.json" "$work/v2/topology.json" <<'PY' || fail "the /2 file's types"
import json, sys
v1, v2 = (json.load(open(p)) for p in sys.argv[1:])
assert v2["schema"] == "memhier-topology/2", v2["schema"]
d = v2["device"]
assert d["sm_count"] == int(v1["device"]["sm_count"]) and isinstance(d["sm_count"], int), d["sm_count"]
assert d["sm_clock_throttled"] is (v1["device"]["sm_clock_throttled"] == "true"), d["sm_clock_throttled"]
assert d["characterize_wall_seconds"] == 12.5 and d["note_text"] == "fast", d
assert d["compute_capability"] == v1["device"]["compute_capability"] and isinstance(d["compute_capability"], str)
assert d["driver_version"] == v1["device"]["driver_version"]
assert v2["inputs"] == [p.rsplit("/", 1)[-1] for p in v1["inputs"]] and all("/" not in p for p in v2["inputs"]), v2["inputs"]
for name, c in v2["caches"].items():
    w = v1["caches"][name]["ways"]
    if isinstance(w, list) and len(set(w)) == 1:
        assert c["ways"] == w[0] and "ways_per_set" not in c, (name, c["ways"])
    elif isinstance(w, list):
        assert c["ways"] is None and c["ways_per_set"] == w, name
    else:
        assert c["ways"] == w, name
assert v2["l2_sets"]["ways"] == v1["l2_sets"]["ways"]
PY
"$compare" --format=json "$work/v1" "$work/v2" > "$work/compare.json" 2> "$work/compare.err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$work/compare.err"; fail "memhier-compare exit $rc for a /1 archive and its /2 twin"; }
python3 - "$work/compare.json" <<'PY' || fail "memhier-compare saw the schema as a difference"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["gate"]["result"] == "pass" and not j["gate"]["structural_changes"], j["gate"]
changed = [f["id"] for f in j["figures"] if f["verdict"] not in ("SAME", "INFO")]
assert not changed, changed
ways = {f["id"]: f for f in j["figures"] if f["id"] == "caches.l1.ways"}
assert ways and ways["caches.l1.ways"]["verdict"] == "SAME" and ways["caches.l1.ways"]["base"] == 4, ways
PY
echo PASS
