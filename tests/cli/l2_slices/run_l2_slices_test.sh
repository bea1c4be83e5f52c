#!/usr/bin/env bash
# The l2_slices family end to end on simulated devices (issue 20 item 1; docs/methodology.md,
# section l2_slices): memhier-bench runs the fingerprint and the contention run on hopper_like and
# unlike_hopper; memhier-infer writes the l2_slices section and report.md's table. Without a
# partition map (the simulated device has no l2_partitions family) the contention classes over
# every probe must be the configs' slices (40; 16), every probe agreeing with them, so the count per
# partition is decided and the total (which needs the partitions) null with its reason — except on
# hopper_like, whose 8 MiB L2 does not divide among 40 slices: there the count is a lower bound;
# unlike_hopper's XOR hash must come out as a 4-bit matrix over exactly its mask bits; the quick
# plan runs both benchmarks; plain_lru (no l2_slices block) none.
#   run_l2_slices_test.sh SOURCE-DIR BUILD-DIR WORK-DIR
set -uo pipefail
src=$1; bin=$2; work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
run() {  # run NAME CONFIG [FLAGS...]
  local d=$work/$1 cfg=$2
  shift 2
  mkdir -p "$d"
  "$bin/memhier-bench" --device="sim:$cfg" --memhier_progress=0 --benchmark_filter='^l2_slices/' \
    --benchmark_out="$d/bench.json" --benchmark_out_format=json "$@" > "$d/bench.log" 2>&1 ||
    { tail -20 "$d/bench.log"; fail "memhier-bench on $cfg"; }
}
infer() {
  local d=$work/$1
  "$bin/memhier-infer" "$d/bench.json" -o "$d/topology.json" --report "$d/report.md" > "$d/infer.log" 2>&1 ||
    { tail -20 "$d/infer.log"; fail "memhier-infer on $1"; }
}
run like "$src/sim/configs/hopper_like.json" && infer like
run unlike "$src/sim/configs/unlike_hopper.json" && infer unlike
run quick "$src/sim/configs/hopper_like.json" --plan=quick
# plain_lru has no l2_slices: no benchmark of the family in its plan
"$bin/memhier-bench" --device="sim:$src/sim/configs/plain_lru.json" --memhier_progress=0 --benchmark_filter='^l2_slices/' \
  --benchmark_out="$work/plain.json" --benchmark_out_format=json > "$work/plain.log" 2>&1
rc=$?
{ [ "$rc" != 0 ] && grep -q "no benchmark of this plan matches the filter" "$work/plain.log"; } ||
  { cat "$work/plain.log"; fail "plain_lru: expected no l2_slices benchmark (exit $rc)"; }
python3 - "$work" <<'PY' || fail "checks"
import json, sys
w = sys.argv[1]
def sec(name):
    return json.load(open("%s/%s/topology.json" % (w, name)))["l2_slices"]
def want(ok, what):
    if not ok:
        print("FAIL:", what); sys.exit(1)
like, unlike = sec("like"), sec("unlike")
for name, s, k in (("hopper_like", like, 40), ("unlike_hopper", unlike, 16)):
    c = s["contention"]
    want(c["every_probe"]["classes"] == k, "%s: %s classes over every probe, want %d" % (name, c["every_probe"]["classes"], k))
    want(c["every_probe"]["uncovered_lines"] == 0 and c["every_probe"]["conflicting_lines"] == 0, name + ": every line in one class")
    want(c["every_probe"]["disagreeing_records"] == 0, name + ": every probe sees one slice function")
    if name == "hopper_like":  # 40 slices do not divide its 8 MiB L2 (65536 lines): a lower bound
        want(s["slices_per_partition"] is None and s.get("slices_per_partition_at_least") == k,
             "hopper_like: at least %d, not a value: %s" % (k, s.get("slices_per_partition_at_least")))
        want("do not divide" in s["provenance"]["slices_per_partition"]["reason"], "hopper_like: the reason says why")
    else:
        want(s["slices_per_partition"] == k, "%s: %s slices per partition without a map, want %d" % (name, s["slices_per_partition"], k))
        want(s["slices"] is None and "partitions" in s["provenance"]["slices"]["reason"], name + ": no total without the map's partitions")
h = unlike["hash"]
want(h["xor_of_offset_bits"] and h["index_bits"] == 4, "unlike_hopper: a 4-bit XOR hash: %s" % h)
want(sorted(h["bits_that_change_the_slice"]) == [7, 10, 12, 13, 15, 16, 20], "unlike_hopper: its mask bits")
want(not like["hash"]["xor_of_offset_bits"], "hopper_like: modulo, not an XOR")
fp = unlike["bit_distances"]
far = sorted(int(b) for b, v in fp.items() if v["near_share"] == 0)
near = sorted(int(b) for b, v in fp.items() if v["near_share"] == 1)
want(far == [7, 10, 12, 13, 15, 16, 20], "unlike_hopper: the bits that move a line by the fingerprint: %s" % far)
want(all(b not in far for b in near), "near and far bits disjoint")
want("## L2 slices" in open(w + "/like/report.md").read(), "report.md has the L2 slices table")
q = [x["name"] for x in json.load(open(w + "/quick/bench.json"))["benchmarks"]]
want(sum(n.startswith("l2_slices/op:") for n in q) == 2, "the quick plan runs both benchmarks: %s" % q)
print("ok: hopper_like at least 40 (its L2 does not divide), unlike_hopper 16 slices per partition; the XOR matrix and bits")
PY
