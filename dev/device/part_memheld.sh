#!/usr/bin/env bash
# Device part (dev/device/run.sh memheld:SECONDS): a characterization while another process holds
# most of the GPU's memory (issue 29 item 4). A python3/PyTorch process takes all but HELD_FREE_GIB
# (default 8) GiB, then characterize.sh runs (no plots) into DIR/results; the holder ends after it.
# The summary shows what report.md and topology.json say of it: the measurement lines (contended,
# evidence, the memory free at the start and what it limited) and the TLB section's reasons.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -uo pipefail
dir=${1:?usage: part_memheld.sh DIR}
: "${ROOT:?ROOT not set (run through dev/device/run.sh)}" "${BIN:?BIN not set}"
mkdir -p "$dir/results"
sum=$dir/summary.txt; : > "$sum"
say() { echo "$*" | tee -a "$sum"; }
python3 - "${HELD_FREE_GIB:-8}" > "$dir/holder.log" 2>&1 <<'PY' &
import sys, time, torch
free, total = torch.cuda.mem_get_info()
keep = int(float(sys.argv[1]) * 2**30)
n = max(0, free - keep)
x = torch.empty(n, dtype=torch.uint8, device="cuda")
x.fill_(1)
torch.cuda.synchronize()
print("holding %.1f GiB of %.1f GiB (free before: %.1f GiB)" % (n / 2**30, total / 2**30, free / 2**30), flush=True)
time.sleep(600)
PY
holder=$!
for i in $(seq 60); do grep -q holding "$dir/holder.log" 2>/dev/null && break; sleep 1; done
say "holder: $(head -1 "$dir/holder.log")"
s=$SECONDS
"$ROOT/scripts/characterize.sh" --no-plots --no-build --build-dir "$BIN" --results "$dir/results" > "$dir/characterize.log" 2>&1
rc=$?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
say "characterize with memory held: rc=$rc in $((SECONDS - s)) s"
a=$(grep -o 'archive: .*' "$dir/characterize.log" | tail -1 | cut -d' ' -f2)
if [ -n "$a" ]; then
  say "report.md, measurement and TLB lines:"
  grep -E "^> \*\*This run|device memory free|evidence:|another process shared|not seen|limited by the device memory" "$a/report.md" | cut -c1-600 | sed 's/^/  /' | tee -a "$sum"
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print("  topology measurement.memory:", json.dumps(t["measurement"].get("memory")))' "$a/topology.json" | tee -a "$sum"
  cp "$a/report.md" "$dir/report_memheld.md"
fi
grep -E "warning|busy" "$dir/characterize.log" | head -3 | sed 's/^/  /' | tee -a "$sum"
rm -rf "$dir/results"
exit $rc
