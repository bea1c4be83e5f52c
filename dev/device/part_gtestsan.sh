#!/usr/bin/env bash
# Device part (dev/device/run.sh gtestsan:SECONDS): compute-sanitizer memcheck and racecheck over
# the gpu tests that GTEST_FILTER names (default: the P-chase tests, PchaseGpu.*), for a kernel
# changed since the last sanitize part; then the same tests natively with their recorded properties.
# Writes DIR/memcheck.log, DIR/racecheck.log, DIR/native.xml and DIR/summary.txt. Never rebuilds.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
DIR=$1; mkdir -p "$DIR"
BIN=${BIN:?BIN (release build directory) not set}
T=$BIN/tests/memhier_gpu_tests
[ -x "$T" ] || T=$(find "$BIN" -name memhier_gpu_tests -type f -perm -u+x | head -1)
[ -x "$T" ] || { echo "gtestsan: no memhier_gpu_tests under $BIN" | tee "$DIR/summary.txt"; exit 1; }
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
filter=${GTEST_FILTER:-PchaseGpu.*}
: > "$DIR/summary.txt"
for tool in memcheck racecheck; do
  "$SAN" --tool "$tool" --error-exitcode 9 "$T" --gtest_filter="$filter" > "$DIR/$tool.log" 2>&1
  echo "$tool ($filter): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$DIR/$tool.log" | tail -1) $(grep -cE '^\[       OK' "$DIR/$tool.log") passed $(grep -cE '^\[  FAILED' "$DIR/$tool.log") failed" | tee -a "$DIR/summary.txt"
done
"$T" --gtest_filter="$filter" --gtest_output=xml:"$DIR/native.xml" > "$DIR/native.log" 2>&1
echo "native ($filter): exit $? $(grep -E '^\[  (PASSED|FAILED)' "$DIR/native.log" | tr '\n' ' ')" | tee -a "$DIR/summary.txt"
grep -oE '(split|whole)_[0-9]+="[0-9.]+"' "$DIR/native.xml" | sed 's/^/  /' | tee -a "$DIR/summary.txt"
