#!/usr/bin/env bash
# The compare gate proven in both directions on simulated archives with the noise model
# (docs/ci.md): two back-to-back characterizations of one noisy device (different seeds) compare
# "no change", exit 0; devices with the L1 hit latency 10 cycles higher or the
# L1 capacity halved give WORSE (exit 1) or CHANGED (exit 3); a halved line size injected into an
# H100 archive gives CHANGED (exit 3); a 5 % bandwidth drop injected into
# the H100-shaped golden archive gives WORSE (exit 1). Archives are packed (traces.pack.gz,
# bench.json.gz) and the analyzer reads them back to the same topology.
set -uo pipefail
src=$1; bin=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cmp_tool=$bin/memhier-compare

# configs: plain_lru with noise (jitter 4 cycles, 1 in 2000 accesses +400 cycles), seeds 11 and 12
python3 - "$src/sim/configs/plain_lru.json" "$work" <<'PY' || fail "could not write the configs"
import copy, json, sys
c = json.load(open(sys.argv[1])); out = sys.argv[2]
c["noise"] = {"jitter_cycles": 4, "outlier_rate": 0.0005, "outlier_cycles": 400, "seed": 11}
def l1(cfg): return next(l for l in cfg["levels"] if l["name"] == "l1")
import os
seed_a, seed_b = (int(x) for x in os.environ.get("GATE_SEEDS", "11,12").split(","))
c["noise"]["seed"] = seed_a
variants = {"a": {"seed": seed_a}, "b": {"seed": seed_b}, "latency": {"hit": 10}, "capacity": {"sets": 32}}
for name, v in variants.items():
    d = copy.deepcopy(c)
    d["noise"]["seed"] = v.get("seed", 13)
    if "hit" in v: l1(d)["hit_latency_cycles"] += v["hit"]
    if "line" in v:  # same capacity, half the line: twice the sets
        l1(d)["line_bytes"] = v["line"]; l1(d)["sets"] *= 2; l1(d)["size_bytes"] = l1(d)["sets"] * l1(d)["ways"] * v["line"]
    if "sets" in v: l1(d)["sets"] = v["sets"]; l1(d)["size_bytes"] = v["sets"] * l1(d)["ways"] * l1(d)["line_bytes"]
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
PY

for v in a b latency capacity; do
  full=(); [ "$v" = a ] && full=(--full-traces "$work/full")
  "$src/scripts/characterize.sh" --device "sim:$work/$v.json" --plan "${GATE_PLAN:-full}" --rounds 2 --build-dir "$bin" \
    --results "$work/results-$v" "${full[@]}" > "$work/$v.log" 2>&1 || { tail -20 "$work/$v.log"; fail "characterize $v exited $?"; }
  arch=$(find "$work/results-$v" -mindepth 4 -maxdepth 4 -type d | head -1)
  [ -n "$arch" ] || fail "no archive for $v"
  ln -sfn "$arch" "$work/$v"
done
a=$work/a
[ -f "$a/traces.pack.gz" ] && [ -f "$a/bench.json.gz" ] && [ ! -d "$a/traces" ] || fail "archive not packed: $(ls "$a")"
n_full=$(find "$work/full" -name '*.trace' | wc -l)
[ "$n_full" -gt 10 ] || fail "--full-traces kept $n_full traces outside the archive"
# plots drawn again from the packed archive (trace plots need the pack)
python3 "$src/scripts/plot.py" "$a" -o "$work/replot" > "$work/replot.log" 2>&1 || fail "plot.py on a packed archive"
ls "$work/replot" | grep -q "_trace_" || { cat "$work/replot.log"; fail "no trace plot from the packed archive"; }
# read back unchanged: the analyzer on the packed archive gives the archived topology
"$bin/memhier-infer" --allow-errors "$a" -o "$work/reread.json" || fail "memhier-infer cannot read the packed archive"
python3 - "$a/topology.json" "$work/reread.json" <<'PY' || fail "topology from the packed archive differs"
import json, sys
x, y = (json.load(open(p)) for p in sys.argv[1:3])
for t in (x, y): t.pop("inputs", None)
sys.exit(0 if x == y else 1)
PY

check() {  # check <name> <expected exit> <base> <new> [regex...]; CMP_FLAGS: memhier-compare's flags
  local name=$1 want=$2 base=$3 new=$4; shift 4
  "$cmp_tool" ${CMP_FLAGS:-} "$base" "$new" > "$work/$name.out" 2>&1; local rc=$?
  [ "$rc" = "$want" ] || { cat "$work/$name.out"; fail "$name: exit $rc, expected $want"; }
  for re in "$@"; do grep -Eq "$re" "$work/$name.out" || { cat "$work/$name.out"; fail "$name: no line matches '$re'"; }; done
  awk 'length > 100 { exit 1 }' "$work/$name.out" || fail "$name: a line is longer than 100 columns"
  echo "ok: $name (exit $rc)"
}
CMP_FLAGS=--all check back_to_back 0 "$a" "$work/b" "^gate: PASS" "l1 size +.*SAME" "^re-analyzed both archives"
check back_to_back_reversed 0 "$work/b" "$a" "^gate: PASS"
check latency_rise 1 "$a" "$work/latency" "^l1 hit latency .*\\+1[0-9]\\.[0-9] cy +WORSE" "^gate: FAIL"
check capacity_halved 3 "$a" "$work/capacity" "^l1 size +3[0-9]\\.[0-9] KiB +1[0-9]\\.[0-9] KiB .*CHANGED"
python3 "$src/scripts/inject_change.py" "$a" "$work/inj_latency" --kind latency >/dev/null || fail "inject latency"
# an injected change is in the archived topology (and bench.json), not in the traces: as archived
CMP_FLAGS=--as-archived check latency_injected 1 "$a" "$work/inj_latency" "hit latency .*WORSE"
g=$src/tests/cli/golden/compare/base
python3 "$src/scripts/inject_change.py" "$g" "$work/inj_bw" --kind bandwidth >/dev/null || fail "inject bandwidth"
CMP_FLAGS=--as-archived check bandwidth_drop 1 "$g" "$work/inj_bw" "DRAM read bandwidth .*-5\\.0 % +WORSE"
# line sizes: the quick plan leaves the simulated lines undetermined, so the H100 archive's
# constant L1 line (64 B) is halved in a copy (cli_gate_h100_archives does the same for every pair)
h=$(ls -d "$src"/results/sm_90/*/*/[0-9]*Z 2>/dev/null | head -1)
if [ -n "$h" ]; then
  python3 "$src/scripts/inject_change.py" "$h" "$work/inj_line" --kind line >/dev/null || fail "inject line"
  CMP_FLAGS=--as-archived check line_halved 3 "$h" "$work/inj_line" "line +64 B +32 B .*CHANGED"
fi
"$cmp_tool" --survey "$a" "$work/capacity" > /dev/null || fail "--survey did not relax the gate"
"$cmp_tool" --fail-on=worse "$a" "$work/capacity" > /dev/null || fail "--fail-on=worse failed on a structural change"
echo "PASS"
