#!/usr/bin/env bash
# cmake --install puts the programs, the scripts and the sim configs under a prefix, and every
# installed script works from there, called from another directory with relative paths:
#   - every script another installed script calls or imports is installed beside it;
#   - every installed script's --help prints a usage text (no script lines) and exits 0;
#   - characterize.sh on a simulated device (relative config, --results, --full-traces) writes its
#     archive, full traces and plots where the caller meant, and its "done in" agrees with the archive;
#   - plot.py, archive_pack.py, archive_index.py, topology_table.py, summarize.py, inject_change.py,
#     ci_figures.py do one real thing each on that archive; regression_check.sh finds P/bin.
#   run_install_test.sh BUILD-DIR WORK-DIR SOURCE-DIR
set -uo pipefail
bin=$1; w=$2; src=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w/run/cfg"
cmake --install "$bin" --prefix "$w/prefix" > "$w/install.log" 2>&1 || { cat "$w/install.log"; fail "cmake --install"; }
p=$w/prefix; s=$p/share/memhier/scripts
for f in bin/memhier-bench bin/memhier-infer bin/memhier-compare share/memhier/scripts/characterize.sh \
         share/memhier/scripts/plot.py share/memhier/scripts/archive_pack.py share/memhier/sim/configs/plain_lru.json; do
  [ -e "$p/$f" ] || fail "$f not installed"
done

# 1. What the installed scripts call or import is installed too: `scripts/X` on a line of code of a
#    shell script, `import X` / `from X import` / `HERE, "X.py"` in a Python one.
for f in "$s"/*; do
  case "$f" in
    *.sh) deps=$(grep -vE '^\s*#' "$f" | grep -oE 'scripts/[a-z_]+\.(py|sh)' | sed 's|scripts/||') ;;
    *.py) deps=$(grep -oE '^\s*(import|from) [a-z_]+|HERE, "[a-z_]+\.(py|sh)"' "$f" | sed -E 's/.*(import|from) //; s/.*"(.*)"/\1/') ;;
  esac
  for dep in $deps; do
    case "$dep" in *.py|*.sh) ;; *) dep=$dep.py ;; esac
    if [ -f "$src/scripts/$dep" ] && [ ! -f "$s/$dep" ]; then fail "$(basename "$f") uses $dep, which is not installed"; fi
  done
done
# the check above sees them: plot.py imports plot_sm_resources, characterize.sh calls archive_pack.py
# (no `| grep -q`: it ends the pipe at its first match and the writer's broken pipe fails the
# line under pipefail)
calls=$(grep -v '^\s*#' "$s/characterize.sh")
grep -qE '^\s*import plot_sm_resources' "$s/plot.py" && grep -q 'scripts/archive_pack.py' <<<"$calls" ||
  fail "the dependency check no longer sees the scripts' calls and imports"

# 2. --help: a usage text, exit 0, no line of code.
for f in "$s"/*.sh "$s"/*.py; do
  n=$(basename "$f")
  [ "$n" = plot_sm_resources.py ] && continue  # a module of plot.py, not a program
  out=$("$f" --help 2>&1) || fail "$n --help exited $?"
  grep -qi "usage" <<<"$out" || { echo "$out"; fail "$n --help prints no usage"; }
  if grep -nE '^\s*(set -|if \[|fi$|esac|done$|case |.*;;$|import |def |sys\.)|\$\(|\$\{' <<<"$out"; then
    fail "$n --help prints script lines"
  fi
done

# plot.py falls back on /usr/bin/python3 for matplotlib
have_mpl() { python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; }

# 3. characterize.sh from the prefix, called from $w/run with paths relative to it.
cp "$p/share/memhier/sim/configs/plain_lru.json" "$w/run/cfg/my.json"
cd "$w/run" || fail "cd"
"$s/characterize.sh" --device sim:cfg/my.json --plan quick --rounds 1 --results out/res --full-traces out/full \
  > "$w/char.log" 2>&1 || { cat "$w/char.log"; fail "characterize.sh from the prefix"; }
[ ! -e "$w/run/results" ] && [ ! -e "$p/share/memhier/out" ] && [ ! -e "$p/share/memhier/results" ] ||
  fail "characterize.sh wrote outside the --results it was given"
a=$(find "$w/run/out/res" -mindepth 4 -maxdepth 4 -type d -not -name '.incomplete-*' | head -1)
[ -n "$a" ] && [ -f "$a/topology.json" ] || { cat "$w/char.log"; fail "no archive under ./out/res"; }
rel=${a#"$w/run/out/res/"}
[ -d "$w/run/out/full/$rel/traces" ] || fail "the full traces are not under ./out/full/$rel"
grep -q "plot.py failed" "$w/char.log" && { grep "plot.py failed" "$w/char.log"; fail "plot.py failed from the prefix"; }
if have_mpl; then
  [ -n "$(find "$a/plots" "$w/run/out/full/$rel/plots" -name '*.svg' 2>/dev/null | head -1)" ] ||
    { cat "$w/char.log"; fail "characterize.sh from the prefix drew no plots"; }
fi
done_s=$(sed -nE 's/.* done in ([0-9.]+) s .*/\1/p' "$w/char.log")
python3 - "$a" "$done_s" <<'PY' || fail "the archive's wall time is not the printed one"
import gzip, json, sys
c = json.load(gzip.open(sys.argv[1] + "/bench.json.gz"))["context"]
assert float(c["characterize_wall_seconds"]) == float(sys.argv[2]), (c["characterize_wall_seconds"], sys.argv[2])
PY
"$p/bin/memhier-compare" "$a" "$a" > "$w/compare.log" || fail "memhier-compare from the prefix"
grep -q "gate: PASS" "$w/compare.log" || fail "the archive does not compare PASS with itself"

# 4. The other scripts, one real use each, relative paths from $w/run.
ra=out/res/$rel
if have_mpl; then
  python3 "$s/plot.py" "$ra" -o plots-again > "$w/plot.log" 2>&1 || { cat "$w/plot.log"; fail "plot.py"; }
  ls plots-again/*.svg > /dev/null 2>&1 || fail "plot.py -o plots-again wrote no SVG there"
else
  python3 "$s/plot.py" "$ra" > "$w/plot.log" 2>&1; rc=$?
  [ $rc = 3 ] && grep -q "matplotlib" "$w/plot.log" || { cat "$w/plot.log"; fail "plot.py without matplotlib: exit $rc"; }
fi
cp -r "$ra" copy
python3 "$s/archive_pack.py" unpack copy && [ -f copy/bench.json ] && [ -d copy/traces ] || fail "archive_pack.py unpack"
python3 "$s/archive_pack.py" pack copy && [ -f copy/bench.json.gz ] && [ -f copy/traces.pack.gz ] || fail "archive_pack.py pack"
python3 "$s/archive_pack.py" size copy --limit 2000000 > /dev/null || fail "archive_pack.py size"
python3 "$s/archive_index.py" out/res -o idx.json && grep -q "$(basename "$a")" idx.json || fail "archive_index.py out/res -o idx.json"
# whole outputs first, then grep: `| grep -q` ends the pipe at the first match, and the writer's
# broken pipe fails the line under pipefail (seen on a 16-core GPU host)
python3 "$s/topology_table.py" "$ra" > "$w/table.txt" && grep -q "^Caches" "$w/table.txt" || fail "topology_table.py"
python3 "$s/summarize.py" "$ra" > "$w/summary.txt" && grep -qE "^benchmarks [1-9]" "$w/summary.txt" || fail "summarize.py"
python3 "$s/inject_change.py" "$ra" injected --kind latency > /dev/null && [ -f injected/topology.json ] || fail "inject_change.py"
python3 "$s/ci_figures.py" "$ra" copy > "$w/ci_figures.log" 2>&1; rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$w/ci_figures.log"; fail "ci_figures.py exited $rc (did it find $p/bin/memhier-compare?)"; }
# regression_check.sh: the programs of P/bin, paths relative to the caller (no GPU here: it skips)
"$s/regression_check.sh" --results out/res > "$w/reg.log" 2>&1; rc=$?
case $rc in 0|1|3|4|77) ;; *) cat "$w/reg.log"; fail "regression_check.sh from the prefix exited $rc" ;; esac
"$s/regression_check.sh" --build nowhere > "$w/reg2.log" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "$w/run/nowhere/memhier-compare" "$w/reg2.log" || { cat "$w/reg2.log"; fail "regression_check.sh --build is not taken relative to the caller"; }
echo PASS
