#!/usr/bin/env bash
# Device part (dev/device/run.sh gputests:SECONDS): the gpu-labelled tests natively (ctest -L gpu),
# the failures with their output. Writes DIR/gputests.log and DIR/summary.txt. Never rebuilds.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=$1; mkdir -p "$DIR"
BIN=${BIN:?BIN (release build directory) not set}
(cd "$BIN" && ctest -L gpu --output-on-failure) > "$DIR/gputests.log" 2>&1
rc=$?
{
  echo "ctest -L gpu: exit $rc $(grep -E 'tests passed|tests failed' "$DIR/gputests.log" | tail -1)"
  grep -E "\(Failed\)|\(Timeout\)|Not Run|\*\*\*Skipped|SKIP" "$DIR/gputests.log" | head -8 | sed 's/^/  /'
} | tee "$DIR/summary.txt"
exit $rc
