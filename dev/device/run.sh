#!/usr/bin/env bash
# One device call (the `device` tool's run): build `release` once, then run the named parts, each
# into $OUT/<part>/ with its own log and time limit, then pack everything into at most 8 files.
#
# usage: dev/device/run.sh PART[:SECONDS] ...      e.g. dev/device/run.sh smoke:120 tlb:200
#
# A part is dev/device/part_<name>.sh, called as `part_<name>.sh DIR` with BIN (the release
# build directory) and ROOT (the checkout) in the environment. It writes what it produced under
# DIR (archives under DIR/results/ when it characterizes) and a short table into DIR/summary.txt.
# Everything comes back as $OUT/device.tgz (all parts) plus $OUT/summary.txt (all tables).
# DEADLINE (seconds from the start, default 570) bounds the whole call: a part gets at most what is
# left before it (minus 20 s for packing), and a part that would get less than 30 s is skipped.
# MEMHIER_SOURCE_REVISION: the revision to stamp into the analyzer (cmake/Revision.cmake), e.g.
# `MEMHIER_SOURCE_REVISION=$(git describe --always --dirty --abbrev=12)` written out in the call:
# the device's copy of the checkout may carry an older .git, whose describe names the wrong commit.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
OUT=${OUT:-/tmp/memhier-device-out}
case "$OUT" in /*) ;; *) OUT=$(pwd)/$OUT ;; esac  # relative to the calling directory
cd "$(dirname "$0")/../.."
export ROOT=$(pwd)
mkdir -p "$OUT/work"
export BIN=$ROOT/build/release
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
# PREBUILT=DIR (relative to the checkout): programs built elsewhere and carried with the call
# (memhier-bench, memhier-infer, memhier-compare, tests/memhier_gpu_tests, their shared libraries
# under DIR/lib); nothing is built. For a call with too little device time left for a build.
if [ -n "${PREBUILT:-}" ]; then
  export BIN=$ROOT/$PREBUILT LD_LIBRARY_PATH=$ROOT/$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader > "$OUT/work/build.log" 2>&1
  "$BIN/memhier-bench" --help > /dev/null 2>> "$OUT/work/build.log"
  rc=$?
  echo "prebuilt $PREBUILT (not built here) rc=$rc ($(head -1 "$OUT/work/build.log"))" | tee "$OUT/summary.txt"
else
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  if [ ! -f "$BIN/build.ninja" ]; then cmake --preset release; fi
  cmake --build --preset release
} > "$OUT/work/build.log" 2>&1
rc=$?
echo "build rc=$rc in $((SECONDS - t0)) s ($(head -1 "$OUT/work/build.log"))" | tee "$OUT/summary.txt"
fi
if [ $rc -ne 0 ]; then tail -40 "$OUT/work/build.log"; fi
if [ $rc -eq 0 ]; then
  for spec in "$@"; do
    part=${spec%%:*}; limit=${spec#*:}; [ "$limit" = "$spec" ] && limit=300
    left=$(( ${DEADLINE:-570} - (SECONDS - t0) - 20 ))
    if [ "$left" -lt 30 ]; then echo "part $part skipped: ${left} s left before the deadline" | tee -a "$OUT/summary.txt"; continue; fi
    [ "$limit" -gt "$left" ] && limit=$left
    dir=$OUT/work/$part; mkdir -p "$dir"
    s=$SECONDS
    timeout -k 10 "$limit" bash "dev/device/part_$part.sh" "$dir" > "$OUT/work/$part.log" 2>&1
    prc=$?
    echo "part $part rc=$prc in $((SECONDS - s)) s (limit $limit)" | tee -a "$OUT/summary.txt"
    [ -f "$dir/summary.txt" ] && sed 's/^/  /' "$dir/summary.txt" >> "$OUT/summary.txt"
    [ $prc -ne 0 ] && tail -15 "$OUT/work/$part.log" | sed 's/^/  | /' >> "$OUT/summary.txt"
  done
fi
(cd "$OUT/work" && tar czf "$OUT/device.tgz" .) && rm -rf "$OUT/work"
echo "total $((SECONDS - t0)) s; $(du -h "$OUT/device.tgz" | cut -f1) packed"
cat "$OUT/summary.txt"
