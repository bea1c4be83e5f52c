#!/usr/bin/env bash
# A simulated device archives outside the tracked results/ (ctest cli_results_sim_default).
# usage: check_sim_default.sh <source-dir> <build-dir> <work-dir>
#
# In a scratch git copy of the checkout's scripts, sim configs, results/README.md and .gitignore (the
# index of its empty results/ written by scripts/archive_index.py): the README's no-GPU trial without --results leaves `git status --porcelain` empty,
# its archive lies under sim-results/ and the last line says so; simulated and real devices in one
# run without --results are refused (one line, exit 2). That simulated archive planted under
# results/ fails scripts/results_retention.py check, one line naming it.
set -uo pipefail
src=$1; bin=$2; work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work/repo"
r=$work/repo
( cd "$src" && tar --exclude=node_modules --exclude=__pycache__ -cf - scripts sim/configs .gitignore CMakeLists.txt \
    results/README.md ) | tar -xf - -C "$r" || fail "copying the checkout"
python3 "$r/scripts/archive_index.py" "$r/results" > /dev/null || fail "archive_index.py"
git -C "$r" init -q && git -C "$r" add -A && git -C "$r" -c user.name=t -c user.email=t@t commit -q -m scratch ||
  fail "git init of the scratch copy"

cd "$r" || fail "cd $r"
scripts/characterize.sh --device sim:sim/configs/plain_lru.json --plan quick --rounds 1 --no-plots --build-dir "$bin" \
  > "$work/log" 2>&1 || { cat "$work/log"; fail "the sim trial exited $?"; }
dirty=$(git status --porcelain --untracked-files=all)
[ -z "$dirty" ] || { cat "$work/log"; fail "the sim trial dirtied the checkout: $dirty"; }
mapfile -t archives < <(find "$r/sim-results" -mindepth 4 -maxdepth 4 -type d -name '*Z' | grep -v '/\.incomplete-')
[ "${#archives[@]}" = 1 ] || fail "expected one archive under sim-results/, found ${#archives[@]}"
a=${archives[0]}
[ -s "$a/bench.json.gz" ] && [ -s "$a/topology.json" ] || fail "incomplete archive $a"
[ -z "$(find "$r/results" -mindepth 1 -maxdepth 1 -name 'sm_*')" ] || fail "the trial wrote under results/"
tail -1 "$work/log" | grep -q "^simulated device: archived under $r/sim-results (outside the tracked results/" ||
  fail "the last line does not say where the archive went: $(tail -1 "$work/log")"

# simulated and real devices at once, no --results: refused before anything runs
out=$(scripts/characterize.sh --device sim:sim/configs/plain_lru.json --device cuda:0 --build-dir "$bin" 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q -- "need --results DIR" <<<"$out" ||
  fail "sim and cuda devices without --results: exit $rc, $out"
[ -z "$(git status --porcelain --untracked-files=all)" ] || fail "the refused run dirtied the checkout"

# the archive planted under results/: check fails and names it (one line per violation)
python3 scripts/results_retention.py check results > "$work/check0" 2>&1 || { cat "$work/check0"; fail "check before planting"; }
rel=${a#"$r/sim-results/"}
mkdir -p "results/$(dirname "$rel")" && cp -r "$a" "results/$rel"
python3 scripts/archive_index.py results > /dev/null || fail "archive_index.py"
python3 scripts/results_retention.py check results > "$work/check1" 2>&1; rc=$?
cat "$work/check1"
[ "$rc" = 1 ] || fail "check passed a simulated archive under results/ (exit $rc)"
grep -q "^results/$rel: archive not kept: a simulated device's archive (device_backend sim:" "$work/check1" ||
  fail "check did not name the simulated archive"
[ "$(grep -c "^results/" "$work/check1")" = 1 ] || fail "expected one violation line"
echo PASS
