#!/usr/bin/env bash
# Device part (dev/device/run.sh check:SECONDS): the regression check on GPU 0 as ctest
# gpu_regression_check runs it (tests/cli/gate/run_regression_gpu_test.sh): three check runs against
# the newest committed full archive of the GPU (each must pass), then the four injected changes of
# docs/ci.md (each must be caught). Writes DIR/check.log, DIR/summary.txt and the compare outputs.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_check.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir"
s=$SECONDS
bash "$ROOT/tests/cli/gate/run_regression_gpu_test.sh" "$BIN" "$ROOT" "$dir/work" > "$dir/check.log" 2>&1
rc=$?
{
  echo "gpu_regression_check: exit $rc in $((SECONDS - s)) s"
  grep -E "^regression_check:|^injected|^PASS|^FAIL" "$dir/check.log" | sed 's/^/  /'
} | tee "$dir/summary.txt"
for i in 1 2 3; do cp "$dir/work/run$i.out" "$dir/compare_run$i.txt" 2>/dev/null; done
for k in bandwidth latency line capacity; do cp "$dir/work/inject-$k.txt" "$dir/inject_$k.txt" 2>/dev/null; done
find "$dir/work" -name traces -type d -prune -exec rm -rf {} + 2>/dev/null
exit $rc
