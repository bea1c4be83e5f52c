#!/usr/bin/env bash
# cli_doc_paths_detects: check_doc_paths.py catches what it is for, on a scratch copy of the docs:
# a page naming a script that does not exist, and an option table stating another default than
# characterize.sh --help.
set -euo pipefail
src=$1 work=$2
rm -rf "$work"; mkdir -p "$work"
cp -r "$src/README.md" "$src/docs" "$src/scripts" "$src/results" "$work/"
mkdir -p "$work/results"
for d in tests sim bench analysis kernels runtime common tools dev cmake .ci; do [ -e "$src/$d" ] && ln -s "$src/$d" "$work/$d"; done
python3 "$src/tests/cli/docs/check_doc_paths.py" "$work" > /dev/null || { echo "FAIL: the unchanged copy does not pass"; exit 1; }
echo 'Run `scripts/no_such_script.sh` first.' >> "$work/docs/usage.md"
sed -i 's/wait up to S seconds (default 600)/wait up to S seconds (default 700)/' "$work/docs/usage.md"
out=$(python3 "$src/tests/cli/docs/check_doc_paths.py" "$work" || true)
grep -q "names scripts/no_such_script.sh, which does not exist" <<<"$out" || { echo "FAIL: a missing script was not caught"; echo "$out"; exit 1; }
grep -q "wait-idle default '700'" <<<"$out" || { echo "FAIL: a wrong default was not caught"; echo "$out"; exit 1; }
echo PASS
