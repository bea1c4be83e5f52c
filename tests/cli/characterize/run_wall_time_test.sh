#!/usr/bin/env bash
# characterize.sh records the wall time and stages of each run as it prints them, and takes every
# path relative to the calling directory. Two simulated devices in one call (--device twice: the
# per-device loop of --all), called from another directory with relative paths (sim configs,
# --build-dir, --results, --full-traces):
#   - one archive per device under ./res, its full traces under ./full/<archive path>/traces;
#   - each device's "done in X s (stages)" line equals its archive's characterize_wall_seconds and
#     characterize_stages (bench.json.gz context, topology.json device section, report.md);
#   - the stages run from the plan to the packing, each device its own (one "plan" each), and their
#     sum does not exceed the wall time.
#   run_wall_time_test.sh SOURCE-DIR BUILD-DIR WORK-DIR
set -uo pipefail
src=$1; bin=$2; work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work/caller/cfg"
cp "$src/sim/configs/plain_lru.json" "$work/caller/cfg/a.json"
cp "$src/sim/configs/hopper_like.json" "$work/caller/cfg/b.json"
cd "$work/caller" || fail "cd"
relbin=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1]))' "$bin")
"$src/scripts/characterize.sh" --device sim:cfg/a.json --device=sim:cfg/b.json --plan quick --rounds 1 --no-plots \
  --build-dir "$relbin" --results res --full-traces full > "$work/log" 2>&1 || { cat "$work/log"; fail "characterize exited $?"; }
mapfile -t done_lines < <(grep -E "\] device sim:.* done in " "$work/log")
mapfile -t archives < <(sed -n 's/^archive: //p' "$work/log")
[ "${#done_lines[@]}" = 2 ] && [ "${#archives[@]}" = 2 ] || { cat "$work/log"; fail "expected two 'done in' lines and two archives"; }
for i in 0 1; do
  a=${archives[$i]}
  case "$a" in "$work/caller/res/"*) ;; *) fail "archive $a is not under ./res of the caller" ;; esac
  [ -d "$a" ] || fail "$a missing"
  [ -d "$work/caller/full/${a#"$work/caller/res/"}/traces" ] || fail "the full traces of $a are not under ./full"
  python3 - "$a" "${done_lines[$i]}" "$work/caller/cfg/$([ $i = 0 ] && echo a || echo b).json" <<'PY' || fail "device $i: the archive does not record the run as printed"
import gzip, json, os, re, sys
a, line, cfg = sys.argv[1:4]
m = re.search(r"device sim:(\S+) done in ([0-9.]+) s \((.*)\)$", line)
assert m, line
assert m.group(1) == cfg, ("the device line names", m.group(1), "not", cfg)
wall, stages = m.group(2), m.group(3)
ctx = json.load(gzip.open(os.path.join(a, "bench.json.gz")))["context"]
# the same number everywhere (report.md writes 4.0 as 4)
assert float(ctx["characterize_wall_seconds"]) == float(wall), (ctx["characterize_wall_seconds"], wall)
assert ctx["characterize_stages"] == stages, (ctx["characterize_stages"], stages)
dev = json.load(open(os.path.join(a, "topology.json")))["device"]
assert float(dev["characterize_wall_seconds"]) == float(wall) and dev["characterize_stages"] == stages, dev
# memhier-topology/2: the --context value a JSON number, the inputs the archive's files by name
assert isinstance(dev["characterize_wall_seconds"], (int, float)), dev["characterize_wall_seconds"]
inputs = json.load(open(os.path.join(a, "topology.json")))["inputs"]
assert inputs and all("/" not in p and os.path.exists(os.path.join(a, p + ".gz")) for p in inputs), inputs
r = re.search(r"characterization wall time: ([0-9.]+) s", open(os.path.join(a, "report.md")).read())
assert r and float(r.group(1)) == float(wall), (r and r.group(1), wall)
names = [s.rsplit(" ", 1)[0] for s in stages.split(", ")]
secs = [float(s.rsplit(" ", 1)[1]) for s in stages.split(", ")]
assert names[0] == "plan" and names.count("plan") == 1, names       # this device's stages only
assert "deferred" in names and names[-1] == "pack", names           # up to the archive
assert sum(secs) <= float(wall) + 0.1, (sum(secs), wall)
PY
done
[ "${archives[0]}" != "${archives[1]}" ] || fail "one archive for two devices"
# nothing written beside the scripts or the build
[ -z "$(find "$src/scripts" "$src/sim/configs" -newer "$work/caller/cfg/b.json" -name '*.json' 2>/dev/null)" ] ||
  fail "files written under the source tree"
echo PASS
