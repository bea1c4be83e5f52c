#!/usr/bin/env bash
# memhier-bench --memhier_serve on the simulated device: bad combinations get one clear line and
# exit 2; a served round writes the same benchmarks and counters as a process of its own
# (--plan=none --memhier_extra) would; the deferred families run while it waits and are merged
# into the plan's JSON; a bad requests file ends the serving with exit 2 and a clear line; stop
# ends it with exit 0 and no file left behind.
set -uo pipefail
bench=$1; infer=$2; src=$3; work=$4
rm -rf "$work"; mkdir -p "$work"
cfg=$src/sim/configs/hopper_like.json
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=expect_error.sh
. "$(dirname "$0")/expect_error.sh"
mkdir -p "$work/s"
expect_error "needs --memhier_serve" --device=sim:"$cfg" --memhier_defer=tlb
expect_error "needs --benchmark_out" --device=sim:"$cfg" --memhier_serve="$work/s"
expect_error "no such directory" --device=sim:"$cfg" --memhier_serve="$work/nowhere" --benchmark_out="$work/b.json"
expect_error "no family 'tlbx'" --device=sim:"$cfg" --memhier_serve="$work/s" --benchmark_out="$work/b.json" --memhier_defer=tlbx
expect_error "does not combine with --benchmark_filter" --device=sim:"$cfg" --memhier_serve="$work/s" \
  --benchmark_out="$work/b.json" --memhier_defer=tlb --benchmark_filter=pchase
expect_error "use --plan=full, quick or check" --device=sim:"$cfg" --memhier_serve="$work/s" --benchmark_out="$work/b.json" \
  --plan=none --memhier_extra="$work/b.json"

# wait_for FILE PID: until the file exists or the process has ended
wait_for() { for _ in $(seq 3000); do [ -e "$1" ] && return 0; kill -0 "$2" 2>/dev/null || { [ -e "$1" ]; return; }; sleep 0.01; done; return 1; }

# A served plan with tlb deferred, one round, stop.
d=$work/run; mkdir -p "$d/serve"
"$bench" --device=sim:"$cfg" --plan=quick --memhier_progress=0 --benchmark_out="$d/bench.json" \
  --memhier_serve="$d/serve" --memhier_defer=tlb > "$d/out" 2> "$d/err" &
pid=$!
wait_for "$d/bench.json" "$pid" || { cat "$d/err"; fail "no bench.json from the plan"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not [b for b in d["benchmarks"] if b["name"].startswith("tlb/")], "tlb ran in the plan"' \
  "$d/bench.json" || fail "the deferred family ran before the plan's JSON was written"
"$infer" --allow-errors "$d/bench.json" -o "$d/t.json" --next-requests "$d/requests-1.json" > /dev/null 2>&1 ||
  fail "memhier-infer on the plan failed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["pchase"], "no requests"' "$d/requests-1.json" ||
  fail "the quick plan's analysis asks for nothing (the test needs a round)"
cp "$d/requests-1.json" "$d/serve/.r" && mv "$d/serve/.r" "$d/serve/requests-1.json"
wait_for "$d/refine-1.json" "$pid" || { cat "$d/err"; fail "no refine-1.json"; }
touch "$d/serve/stop"
wait "$pid" || { cat "$d/err"; fail "the server exited $?"; }
ls -a "$d" | grep -q incomplete && fail "a temporary file was left behind: $(ls -a "$d")"
ls -a "$d" | grep -q '^\.deferred' && fail "a deferred part was left behind"

# The same round as a process of its own
"$bench" --device=sim:"$cfg" --plan=none --memhier_extra="$d/requests-1.json" --memhier_progress=0 \
  --benchmark_out="$work/alone/refine-1.json" > /dev/null 2> "$work/alone.err" || { cat "$work/alone.err"; fail "the lone round failed"; }
python3 - "$d/bench.json" "$d/refine-1.json" "$work/alone/refine-1.json" <<'PY' || fail "the served run differs"
import json, sys
plan, served, alone = (json.load(open(p)) for p in sys.argv[1:])
names = [b["name"] for b in plan["benchmarks"]]
assert any(n.startswith("tlb/") for n in names), "the deferred tlb runs are not merged into bench.json"
assert any(n.startswith("pchase/") for n in names)
c = plan["context"]
assert c["memhier_deferred"] == "tlb" and c["memhier_plan"] == "quick" and "deferred_wall_seconds" in c, c
assert c["memhier_failed_benchmarks"] == "0", c
sc = served["context"]
assert sc["memhier_plan"] == "none" and sc["memhier_extra"] == "requests-1.json", sc
key = lambda d: {b["name"]: {k: v for k, v in b.items() if k.endswith("_cycles") or k in ("miss_rate", "misses")}
                 for b in d["benchmarks"]}
a, b = key(served), key(alone)
assert a.keys() == b.keys(), (sorted(a.keys() ^ b.keys())[:5])
assert a == b, "counters differ"
print(len(a), "benchmarks the same served and alone")
PY

# A bad requests file ends the serving: exit 2, one clear line
d=$work/bad; mkdir -p "$d/serve"
"$bench" --device=sim:"$cfg" --plan=quick --memhier_progress=0 --benchmark_filter='^pchase' --benchmark_out="$d/bench.json" \
  --memhier_serve="$d/serve" > /dev/null 2> "$d/err" &
pid=$!
wait_for "$d/bench.json" "$pid" || fail "no bench.json (bad-request case)"
# placed whole, as characterize.sh places its requests (written beside, then renamed): a file the
# server found while echo was still writing it read as empty JSON (a CI run of 2026-11-27)
echo '{"format": "memhier-requests/1", "pchase": [{"path": "l3"}]}' > "$d/serve/.r" && mv "$d/serve/.r" "$d/serve/requests-1.json"
wait "$pid"; rc=$?
[ "$rc" = 2 ] || fail "a bad requests file: exit $rc, expected 2"
grep -q "serving stopped: .*unknown path 'l3'" "$d/err" || { cat "$d/err"; fail "no clear line for the bad requests file"; }
echo PASS
