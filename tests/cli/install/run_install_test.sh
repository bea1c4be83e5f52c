#!/usr/bin/env bash
# cmake --install puts the programs, the scripts and the sim configs under a prefix, and
# characterize.sh works from there: a simulated device, quick plan, archive under ./results.
set -uo pipefail
bin=$1; w=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w/run"
cmake --install "$bin" --prefix "$w/prefix" > "$w/install.log" 2>&1 || { cat "$w/install.log"; fail "cmake --install"; }
p=$w/prefix
for f in bin/memhier-bench bin/memhier-infer bin/memhier-compare share/memhier/scripts/characterize.sh \
         share/memhier/scripts/plot.py share/memhier/scripts/archive_pack.py share/memhier/sim/configs/plain_lru.json; do
  [ -e "$p/$f" ] || fail "$f not installed"
done
cd "$w/run" || fail "cd"
"$p/share/memhier/scripts/characterize.sh" --device "sim:$p/share/memhier/sim/configs/plain_lru.json" \
  --plan quick --rounds 1 > "$w/char.log" 2>&1 || { cat "$w/char.log"; fail "characterize.sh from the prefix"; }
a=$(find "$w/run/results" -mindepth 4 -maxdepth 4 -type d | head -1)
[ -n "$a" ] && [ -f "$a/topology.json" ] || { cat "$w/char.log"; fail "no archive under ./results"; }
"$p/bin/memhier-compare" "$a" "$a" > "$w/compare.log" || fail "memhier-compare from the prefix"
grep -q "gate: PASS" "$w/compare.log" || fail "the archive does not compare PASS with itself"
echo PASS
