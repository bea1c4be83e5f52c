#!/usr/bin/env bash
# Device part (dev/device/run.sh ecosystem:SECONDS): what a user of the installed package and of
# the device listing sees on a GPU host: `memhier-bench --device=list`, the install tests (the
# package config with find_package from a consumer project, every installed script from the
# prefix) and the wall-time test under this host's CMake and Google Benchmark, and memhier-compare
# on two bench.json files of the gate part's archives (no noise model: exit 5) against the same
# pair as archives. Writes DIR/device-list.txt, DIR/ctest.log, DIR/compare-*.txt, DIR/summary.txt.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_ecosystem.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
sum=$dir/summary.txt
: > "$sum"
"$BIN/memhier-bench" --device=list > "$dir/device-list.txt" 2>&1
echo "device list rc=$?" >> "$sum"
sed 's/^/  /' "$dir/device-list.txt" >> "$sum"
ctest --test-dir "$BIN" -R '^(cli_bench_device_list|cli_install_consumer|cli_install_characterize|cli_characterize_wall_time)$' \
  --output-on-failure > "$dir/ctest.log" 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' "$dir/ctest.log" | tail -1)" >> "$sum"
grep -E '^ *[0-9]+/[0-9]+ Test' "$dir/ctest.log" | sed 's/^ */  /' >> "$sum"
mapfile -t archives < <(find "$dir/../gate/results" -mindepth 4 -maxdepth 4 -type d 2>/dev/null | sort)
if [ "${#archives[@]}" -ge 2 ]; then
  a=${archives[0]} b=${archives[1]}
  "$BIN/memhier-compare" "$a/bench.json.gz" "$b/bench.json.gz" > "$dir/compare-bench-json.txt" 2>&1
  echo "compare two bench.json files rc=$? ($(grep '^gate:' "$dir/compare-bench-json.txt"))" >> "$sum"
  "$BIN/memhier-compare" "$a" "$b" > "$dir/compare-archives.txt" 2>&1
  echo "compare the same pair as archives rc=$? ($(grep '^gate:' "$dir/compare-archives.txt"))" >> "$sum"
else
  echo "compare: fewer than two gate archives" >> "$sum"
fi
cat "$sum"
