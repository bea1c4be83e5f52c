#!/usr/bin/env bash
# scripts/doc_figures.py catches a figure that no longer matches its data (exit 1), refuses a
# marker left open or an unknown figure (exit 2), and --update puts the figure back.
set -uo pipefail
src=$1; w=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
df="python3 $src/scripts/doc_figures.py --results $src/results"
want=$($df --list | awk '$1 == "runs:nvidia-h100-80gb-hbm3" { print $2 }')
[ -n "$want" ] || fail "no runs:nvidia-h100-80gb-hbm3 figure (no kept H100 archive?)"
printf 'We kept <!-- fig:runs:nvidia-h100-80gb-hbm3 -->%s<!-- /fig --> runs.\n' "$want" > "$w/ok.md"
$df "$w/ok.md" > "$w/ok.log" || { cat "$w/ok.log"; fail "a true figure is reported out of date"; }
printf 'We kept <!-- fig:runs:nvidia-h100-80gb-hbm3 -->%s<!-- /fig --> runs.\n' "$((want + 7))" > "$w/stale.md"
$df "$w/stale.md" > "$w/stale.log"; rc=$?
[ $rc -eq 1 ] && grep -q "fig:runs:nvidia-h100-80gb-hbm3 says '$((want + 7))', the data say '$want'" "$w/stale.log" ||
  { cat "$w/stale.log"; fail "a stale figure: exit $rc, want 1 naming it"; }
$df --update "$w/stale.md" > /dev/null && cmp -s "$w/stale.md" "$w/ok.md" || fail "--update did not put the figure back"
printf 'open <!-- fig:runs:nvidia-h100-80gb-hbm3 -->5 and no end\n' > "$w/open.md"
$df "$w/open.md" 2> "$w/open.err"; rc=$?
[ $rc -eq 2 ] && grep -q "without its <!-- /fig -->" "$w/open.err" || fail "a marker left open: exit $rc, want 2"
printf '<!-- fig:speed_of_light -->1<!-- /fig -->\n' > "$w/unknown.md"
$df "$w/unknown.md" 2> "$w/unknown.err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown figure 'speed_of_light'" "$w/unknown.err" || fail "an unknown figure: exit $rc, want 2"
echo PASS
