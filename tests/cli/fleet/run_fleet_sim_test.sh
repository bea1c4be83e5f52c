#!/usr/bin/env bash
# memhier-compare --fleet on simulated boards (docs/ci.md, Fleets): four "boards" of one simulated
# GPU model (plain_lru with the noise model, each its own seed and gpu_uuid): three whose L2 hit
# latency differs by 0, +6 and +12 cycles (board-to-board variation within the gate's threshold of
# a fleet) and one slowed board (L2 +30 cycles, DRAM +60). The fleet of four names the slowed board
# and only it (exit 6); the three others form a fleet with no board outside (exit 0); their JSON
# report as --baseline turns the +12-cycle difference between two of them, WORSE for the plain
# two-archive gate (exit 1), into SAME (exit 0), while the slowed board stays WORSE against it.
set -uo pipefail
src=$1; bin=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cmp_tool=$bin/memhier-compare

python3 - "$src/sim/configs/plain_lru.json" "$work" <<'PY' || fail "could not write the configs"
import copy, json, sys
c = json.load(open(sys.argv[1])); out = sys.argv[2]
boards = {"fast-1": (21, 0, 0), "fast-2": (22, 6, 0), "fast-3": (23, 12, 0), "slow": (24, 30, 60)}
for name, (seed, l2, dram) in boards.items():
    d = copy.deepcopy(c)
    d["noise"] = {"jitter_cycles": 4, "outlier_rate": 0.0005, "outlier_cycles": 400, "seed": seed}
    d["context"]["gpu_uuid"] = "GPU-sim-" + name
    next(l for l in d["levels"] if l["name"] == "l2")["hit_latency_cycles"] += l2
    d["dram_latency_cycles"] += dram
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
json.dump({"dram_delta": boards["slow"][2]}, open(out + "/injected.json", "w"))
PY

for b in fast-1 fast-2 fast-3 slow; do
  "$src/scripts/characterize.sh" --device "sim:$work/$b.json" --plan quick --rounds 1 --no-plots --build-dir "$bin" \
    --results "$work/boards/$b" > "$work/$b.log" 2>&1 || { tail -20 "$work/$b.log"; fail "characterize $b exited $?"; }
  arch=$(find "$work/boards/$b" -mindepth 4 -maxdepth 4 -type d | head -1)
  [ -n "$arch" ] || fail "no archive for $b"
  ln -sfn "$arch" "$work/$b"
done

run() {  # run <name> <expected exit> <memhier-compare args...>
  local name=$1 want=$2; shift 2
  "$cmp_tool" "$@" > "$work/$name.out" 2> "$work/$name.err"; local rc=$?
  [ "$rc" = "$want" ] || { cat "$work/$name.out" "$work/$name.err"; fail "$name: exit $rc, expected $want"; }
  echo "ok: $name (exit $rc)"
}
has() { grep -Eq "$2" "$work/$1.out" || { cat "$work/$1.out"; fail "$1: no line matches '$2'"; }; }

# the fleet of four (a directory: every archive below it) names the slowed board, and only it
run fleet4 6 --fleet "$work/boards"
has fleet4 "^fleet: OUTLIER - 1 of 4 boards outside: GPU-sim-slow "
has fleet4 "^DRAM latency .*GPU-sim-slow"
if grep -E "^[a-zA-Z].* GPU-sim-fast" "$work/fleet4.out" | grep -v "^GPU-sim-fast"; then fail "fleet4: a fast board named"; fi
# the layout fits 100 columns; an archive path is as long as the caller's directory makes it, so the
# work directory counts as one character (CI clones deeper than a developer's checkout)
sed "s|$work|W|g" "$work/fleet4.out" | awk 'length > 100 { exit 1 }' || fail "fleet4: a line is longer than 100 columns"
[ "$(wc -l < "$work/fleet4.out")" -le 50 ] || fail "fleet4: more than one screen ($(wc -l < "$work/fleet4.out") lines)"
run fleet4_json 6 --fleet "$work/boards" --format=json -o "$work/fleet4.json"
run fleet4_md 6 --fleet --format=markdown "$work/fast-1" "$work/fast-2" "$work/fast-3" "$work/slow"
has fleet4_md "\\*\\*GPU-sim-slow"
python3 - "$work/fleet4.json" "$work/injected.json" <<'PY' || fail "fleet4.json"
import json, sys
r = json.load(open(sys.argv[1])); dram_delta = json.load(open(sys.argv[2]))["dram_delta"]
assert r["format"] == "memhier-fleet/1" and r["exit_code"] == 6, r["exit_code"]
assert r["outside"] == ["GPU-sim-slow"], r["outside"]
assert sorted(b["name"] for b in r["boards"]) == ["GPU-sim-fast-1", "GPU-sim-fast-2", "GPU-sim-fast-3", "GPU-sim-slow"]
dram = next(f for f in r["figures"] if f["id"] == "global_memory.dram_latency_cycles")
[o] = dram["outliers"]
assert o["board"] == "GPU-sim-slow" and o["worse"], o
# the injected DRAM delay, within the noise's jitter (0-4 cycles a side)
assert abs(o["deviation"] - dram_delta) <= 8, (o["deviation"], dram_delta)
print("ok: fleet4.json names GPU-sim-slow, DRAM latency %+.1f cycles (injected %+d)" % (o["deviation"], dram_delta))
PY

# the three others: no board outside; their board-to-board spread as the two-archive gate's baseline
run fleet3 0 --fleet --format=json -o "$work/fleet3.json" "$work/fast-1" "$work/fast-2" "$work/fast-3"
run fleet3_console 0 --fleet "$work/fast-1" "$work/fast-2" "$work/fast-3"
has fleet3_console "^fleet: PASS - 3 boards"
run gate_plain 1 "$work/fast-1" "$work/fast-3"
has gate_plain "^l2 hit latency .* WORSE"
run gate_baseline 0 --all --baseline "$work/fleet3.json" "$work/fast-1" "$work/fast-3"  # --all: SAME rows too
has gate_baseline "^l2 hit latency .* SAME .*\\[[0-9]+\\]"
has gate_baseline "within the fleet's board-to-board spread"
has gate_baseline "^gate: PASS"
run gate_baseline_slow 1 --baseline "$work/fleet3.json" "$work/fast-1" "$work/slow"
has gate_baseline_slow "^DRAM latency .* WORSE"
# bad input: one line, exit 2; another GPU model's fleet as a baseline: exit 4
run bad_baseline 2 --baseline "$work/fast-1.json" "$work/fast-1" "$work/fast-3"
[ "$(wc -l < "$work/bad_baseline.err")" = 1 ] || fail "bad_baseline: not one line on stderr"
run fleet_of_nothing 2 --fleet "$work/nothing-here"
python3 - "$work/fleet3.json" "$work/other_gpu.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["gpu"] = "Another GPU"; json.dump(r, open(sys.argv[2], "w"))
PY
run baseline_other_gpu 4 --baseline "$work/other_gpu.json" "$work/fast-1" "$work/fast-3"
echo "PASS"
