#!/usr/bin/env bash
# scripts/characterize.sh end to end on the simulated device (quick plan, the test build's
# binaries): one archive appears with bench.json, topology.json, report.md and the index entry;
# a run that fails (a missing config) leaves no archive and no temporary directory behind; an
# existing archive is never touched.
set -uo pipefail
src=$1; bin=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$src/scripts/characterize.sh" --device "sim:$src/sim/configs/plain_lru.json" --plan quick --rounds 2 \
  --build-dir "$bin" --results "$work/results" > "$work/log" 2>&1 || { cat "$work/log"; fail "characterize exited $?"; }
mapfile -t archives < <(find "$work/results" -mindepth 4 -maxdepth 4 -type d | grep -v '/\.incomplete-')
[ "${#archives[@]}" = 1 ] || fail "expected one archive, found ${#archives[@]}"
a=${archives[0]}
for f in bench.json.gz topology.json report.md traces.pack.gz; do [ -s "$a/$f" ] || fail "$f missing in $a"; done
[ -d "$a/traces" ] && fail "unpacked traces left in $a"
python3 "$src/scripts/archive_pack.py" size "$a" --limit 2000000 || fail "archive over 2 MB"
grep -q "archive: $a" "$work/log" || fail "the archive path was not printed"
grep -q "^Caches" "$work/log" || fail "the topology table was not printed"
python3 -c 'import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); assert "characterize_wall_seconds" in d["context"]' "$a/bench.json.gz" ||
  fail "no characterize_wall_seconds in the context"
# one memhier-bench served the rounds (refine-N.json say plan none and their requests file), the
# deferral went through (the context names it), no protocol file is left in the archive
python3 - "$a" <<'PY' || fail "the served rounds left no trace in the archive"
import glob, gzip, json, os, sys
a = sys.argv[1]
c = json.load(gzip.open(os.path.join(a, "bench.json.gz")))["context"]
assert "memhier_deferred" in c and "deferred_wall_seconds" in c, c
assert "deferred" in c["characterize_stages"], c["characterize_stages"]
refs = sorted(glob.glob(os.path.join(a, "refine-*.json.gz")))
assert refs, "no refinement round"
for i, f in enumerate(refs, 1):
    rc = json.load(gzip.open(f))["context"]
    assert rc["memhier_plan"] == "none" and rc["memhier_extra"].startswith("requests-"), rc
assert not glob.glob(os.path.join(a, ".serve*")) and not glob.glob(os.path.join(a, "*incomplete*"))
PY
if [ -f "$src/scripts/archive_index.py" ]; then
  grep -q "$(basename "$a")" "$work/results/index.json" || fail "index.json does not list the archive"
fi
before=$(find "$work/results" -type f | sort | xargs md5sum | md5sum)

# a failing run: clear message, non-zero exit, nothing left behind, nothing touched
if "$src/scripts/characterize.sh" --device "sim:$work/missing.json" --plan quick --build-dir "$bin" \
     --results "$work/results" > "$work/log2" 2>&1; then
  fail "a missing config did not fail"
fi
grep -q "missing.json" "$work/log2" || { cat "$work/log2"; fail "the error does not name the config"; }
[ -z "$(find "$work/results" -name '.incomplete-*')" ] || fail "a temporary directory was left behind"
after=$(find "$work/results" -type f | sort | xargs md5sum | md5sum)
[ "$before" = "$after" ] || fail "the failing run changed the results tree"
echo "PASS"
