#!/usr/bin/env bash
# gpu_regression_check (label gpu): scripts/regression_check.sh on GPU 0 against the newest full
# archive of the same GPU under results/, three times: each must PASS (exit 0: no false alarm of
# the check plan against a full characterization). Then each change docs/ci.md injects (bandwidth
# -5 %, latency +10 cycles, line halved, capacity halved; scripts/inject_change.py) into the first
# check run's archive must be caught against that run, as archived: exit 1 (worse) or 3 (changed).
# Skips (77) without a GPU, memhier-bench or an archive of this GPU.
# usage: run_regression_gpu_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -uo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
for i in 1 2 3; do
  rc=0
  bash "$src/scripts/regression_check.sh" --build-dir "$bin" --results "$src/results" --keep "$work/run$i" \
    > "$work/run$i.out" 2> "$work/run$i.err" || rc=$?
  [ $rc = 77 ] && { cat "$work/run$i.out"; exit 77; }
  grep "^regression_check:" "$work/run$i.err"
  [ $rc = 0 ] || { cat "$work/run$i.out"; tail -5 "$work/run$i.err"; fail "check run $i against the newest archive: exit $rc, not 0"; }
done
base=$(grep -o 'base archive .*' "$work/run1.err" | head -1 | cut -d' ' -f3)
new=$(find "$work/run1/results" -mindepth 4 -maxdepth 4 -type d | head -1)
[ -d "$base" ] && [ -d "$new" ] || fail "no base ($base) or check archive ($new)"
for kind in bandwidth:1 latency:1 line:3 capacity:3; do
  k=${kind%%:*} want=${kind#*:}
  python3 "$src/scripts/inject_change.py" "$new" "$work/inject-$k" --kind "$k" > /dev/null || fail "inject_change.py --kind $k"
  rc=0
  # against the check run itself, as archived: the change lives in the copy's topology.json
  # (line, capacity), which an analysis of the raw data would replace (scripts/ci_figures.py does the same)
  "$bin/memhier-compare" --as-archived "$new" "$work/inject-$k" > "$work/inject-$k.txt" 2>&1 || rc=$?
  echo "injected $k: memhier-compare exit $rc ($(grep -m1 '^gate:' "$work/inject-$k.txt"))"
  [ $rc = "$want" ] || { head -30 "$work/inject-$k.txt"; fail "the check plan missed the injected $k change (exit $rc, wanted $want)"; }
done
echo "PASS: 3 check runs passed against $(basename "$base"); every injected change caught"
