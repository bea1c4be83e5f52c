#!/usr/bin/env bash
# Keeps what a device call's parts need to be read later, small enough for results/ (≤ 2 MB per
# part): the summaries, the analyzer's topology.json and report.md, the benchmark JSON compressed,
# the plots, the sanitizer and SASS-check verdicts; never raw traces, SASS dumps or peer builds
# (they stay in the call's device.tgz). The parts' bench.json files are plain inputs of
# memhier-infer (`memhier-infer bench.json.gz refine-1.json.gz ...` analyzes them again).
#
# usage: dev/device/keep_parts.sh UNPACKED_DEVICE_TGZ DEST PART...
#   e.g. dev/device/keep_parts.sh /tmp/dev results/sm_90/nvidia-h100-80gb-hbm3/580.159.04/parts-20261123T154100Z tlb mshr
# Refuses an existing DEST (an archive is never overwritten).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -euo pipefail
src=${1:?usage: keep_parts.sh SRC DEST PART...}; dest=${2:?DEST}; shift 2
[ -e "$dest" ] && { echo "keep_parts.sh: $dest exists; not overwriting" >&2; exit 1; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
for p in "$@"; do
  [ -d "$src/$p" ] || { echo "keep_parts.sh: no part $p in $src" >&2; continue; }
  mkdir -p "$dest/$p"
  [ -f "$src/$p.log" ] && tail -200 "$src/$p.log" > "$dest/$p/part.log"
  (cd "$src/$p" && find . -maxdepth 2 -type f \( -name 'summary.txt' -o -name 'report.md' -o -name 'topology*.json' \
      -o -name '*.md' -o -name 'tlb_curves.tsv' -o -name 'sass_windows.txt' -o -name '*_summary.txt' \
      -o -name 'memcheck.log' -o -name 'racecheck.log' -o -name 'sanitizer.log' -o -name 'gputests.log' -o -name '*.xml' \) -print0 |
    while IFS= read -r -d '' f; do mkdir -p "$dest/$p/$(dirname "$f")"; cp "$f" "$dest/$p/$f"; done)
  (cd "$src/$p" && find . -maxdepth 2 -type f -name '*.json' ! -name 'topology*.json' -size +0 -print0 |
    while IFS= read -r -d '' f; do mkdir -p "$dest/$p/$(dirname "$f")"; gzip -9c "$f" > "$dest/$p/$f.gz"; done)
  [ -d "$src/$p/plots" ] && cp -r "$src/$p/plots" "$dest/$p/"
  # bench.json names its trace directory; the traces stay in device.tgz (not kept here)
  kb=$(du -sk "$dest/$p" | cut -f1)
  if [ "$kb" -gt 2000 ] && [ -d "$dest/$p/plots" ]; then rm -rf "$dest/$p/plots"; echo "$p: plots left out (${kb} kB with them)"; fi
  echo "$p: $(du -sh "$dest/$p" | cut -f1)"
done
# the whole folder within 2 MB too: the plots of the largest parts go first
while [ "$(du -sk "$dest" | cut -f1)" -gt 2000 ]; do
  big=$(cd "$dest" && du -sk */plots 2>/dev/null | sort -nr | head -1 | cut -f2)
  [ -n "$big" ] || break
  rm -rf "${dest:?}/$big"; echo "$big left out (the folder over 2 MB with it)"
done
