#!/usr/bin/env bash
# Device run of the issue-4 families (throughput, bank conflicts, warp access) on the lent GPU:
# build memhier-bench, run the families' full plan into $OUT/tput.json, keep SASS of the key
# kernels and, with MODE=sanitize, compute-sanitizer memcheck/racecheck on the quick plan.
#   dev/tput_device.sh [full|quick|tune|gputest|sanitize|ncu] [extra benchmark_filter]
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -euo pipefail
MODE=${1:-full}
FILTER=${2:-'^(gmem_throughput|l1_throughput|l2_throughput|smem_throughput|smem_bank_conflict|warp_access)/'}
OUT=${OUT:-/tmp/tput_out}
case "$OUT" in /*) ;; *) OUT=$(pwd)/$OUT ;; esac  # relative to the calling directory
cd "$(dirname "$0")/.."  # the checkout (build/dev below is relative to it)
mkdir -p "$OUT"
B=build/dev
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMHIER_BUILD_TESTS=OFF >/dev/null
cmake --build $B --target memhier-bench -j16 2>&1 | tail -3
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/smi.txt"
O=$B/bench/CMakeFiles/memhier_families.dir/families
if [ "$MODE" = full ] || [ "$MODE" = quick ]; then
  PLAN=full; [ "$MODE" = quick ] && PLAN=quick
  /usr/bin/time -f "bench wall %e s" $B/memhier-bench --plan=$PLAN --benchmark_filter="$FILTER" \
    --benchmark_out="$OUT/tput.json" --benchmark_out_format=json --benchmark_format=console \
    > "$OUT/bench.log" 2>&1 || echo "memhier-bench exit $?"
  grep -E "bench wall|ERROR|error" "$OUT/bench.log" | head -20
  { for f in l1_throughput l2_throughput smem_throughput warp_access gmem_throughput; do
      cuobjdump -sass $O/$f.cu.o; done; } > "$OUT/sass.txt" 2>&1 || true
  python3 - "$OUT/tput.json" <<'PY' || true
import json, sys, collections
d = json.load(open(sys.argv[1]))
fam = collections.defaultdict(list)
for b in d["benchmarks"]:
    if b.get("error_occurred"): print("ERR", b["name"], b.get("error_message")); continue
    fam[b["run_name"].split("/")[0]].append(b)
def best(f, key="bytes_per_second", filt=lambda b: True):
    xs = [b for b in fam[f] if filt(b) and key in b]
    return max(xs, key=lambda b: b[key]) if xs else None
for k in ["read", "write", "copy"]:
    b = best("gmem_throughput", filt=lambda b: "kind:" + k in b["run_name"])
    if b: print("gmem", k, "%.3f TB/s %.1f%%" % (b["bytes_per_second"] / 1e12, b["pct_of_peak"]), b["run_name"])
for f in ["l1_throughput", "l2_throughput"]:
    for b in fam[f]:
        print(f, b["run_name"].split("/", 1)[1], "%.3f TB/s %.1f B/clk/SM %.0f MHz" % (b["bytes_per_second"] / 1e12, b["bytes_per_clock_per_sm"], b["sm_clock_mhz"]))
b = best("smem_throughput", key="bytes_per_clock_per_sm")
if b: print("smem best %.1f B/clk/SM" % b["bytes_per_clock_per_sm"], b["run_name"])
for w in (4, 8, 16):
    xs = sorted((int(b["run_name"].split("stride:")[1].split("/")[0]), b["latency_cycles"]) for b in fam["smem_bank_conflict"] if "width:%d/" % w in b["run_name"])
    print("bank w%d" % w, " ".join("%d:%.1f" % x for x in xs))
for b in fam["warp_access"]: print(b["run_name"], "%.1f" % b["latency_cycles"])
PY
elif [ "$MODE" = tune ]; then
  # The tuning variants of docs/methodology.md (throughput): 16-byte streams and the L2 layouts,
  # with the baselines of the same widths beside them; a ranking per kind and an L2 table last.
  TF=${2:-'^(gmem_throughput/kind:(read|write|copy)/width:16/|l2_throughput/)'}
  /usr/bin/time -f "bench wall %e s" $B/memhier-bench --plan=full --benchmark_filter="$TF" \
    --benchmark_out="$OUT/tune.json" --benchmark_out_format=json --benchmark_format=console \
    > "$OUT/tune.log" 2>&1 || echo "memhier-bench exit $?"
  grep -E "bench wall|ERROR|error" "$OUT/tune.log" | head -10
  cuobjdump -sass $O/gmem_throughput.cu.o > "$OUT/sass_gmem.txt" 2>&1 || true
  grep -oE "(LDG|STG)\.[A-Z0-9_.:]*" "$OUT/sass_gmem.txt" | sort | uniq -c | sort -rn | head -12
  python3 - "$OUT/tune.json" <<'PY' || true
import json, sys, collections
d = json.load(open(sys.argv[1]))
bs = [b for b in d["benchmarks"] if not b.get("error_occurred")]
for b in d["benchmarks"]:
    if b.get("error_occurred"): print("ERR", b["name"], b.get("error_message"))
short = lambda n: n.split("/", 1)[1].replace("/manual_time", "").replace("/iterations:3", "")
for k in ["read", "write", "copy"]:
    xs = sorted((b for b in bs if b["run_name"].startswith("gmem_throughput/kind:" + k + "/")), key=lambda b: -b["bytes_per_second"])
    base = [b for b in xs if "access:" not in b["run_name"] and "layout:" not in b["run_name"] and "flush:" not in b["run_name"] and "ilp:16" not in b["run_name"]]
    if base: print("gmem %s baseline best %.3f TB/s %s" % (k, base[0]["bytes_per_second"] / 1e12, short(base[0]["run_name"])))
    for b in xs[:8]: print("gmem %s %.3f TB/s %s" % (k, b["bytes_per_second"] / 1e12, short(b["run_name"])))
l2 = collections.defaultdict(list)
for b in bs:
    if b["run_name"].startswith("l2_throughput/"):
        n = short(b["run_name"]); mb = int(n.split("bytes:")[1].split("/")[0]) / 1048576
        l2[round(mb, 1)].append((b["bytes_per_second"] / 1e12, n.split("/", 1)[1]))
for mb in sorted(l2):
    r = sorted(l2[mb], reverse=True)[:3]
    print("l2 %6.1f MiB " % mb + " | ".join("%.2f %s" % x for x in r))
PY
elif [ "$MODE" = gputest ]; then
  cmake -S . -B build/devt -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build/devt --target memhier_gpu_tests -j16 2>&1 | tail -1
  build/devt/tests/memhier_gpu_tests --gtest_filter='ThroughputGpu*' 2>&1 | tail -8
elif [ "$MODE" = sanitize ]; then
  # memcheck over the quick plan of every family here; racecheck where threads share memory
  # (shared-memory kernels), on one small configuration each.
  timeout 150 compute-sanitizer --tool memcheck --print-limit 5 $B/memhier-bench --plan=quick \
    --benchmark_filter="$FILTER" > "$OUT/memcheck.log" 2>&1 || true
  grep -E "ERROR SUMMARY|Invalid|error" "$OUT/memcheck.log" | head -8
  timeout 120 compute-sanitizer --tool racecheck --print-limit 5 $B/memhier-bench --plan=quick \
    --benchmark_filter='^(smem_bank_conflict|warp_access|smem_throughput/width:4)' > "$OUT/racecheck.log" 2>&1 || true
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard|error" "$OUT/racecheck.log" | head -8
elif [ "$MODE" = ncuf ]; then
  # ncu on chosen benchmarks: $2 benchmark filter, $3 kernel regex, $4 metrics, $5 launches.
  ncu --clock-control none --cache-control none --metrics "$4" -k regex:"$3" -c "${5:-4}" $B/memhier-bench --plan=full \
    --benchmark_filter="$2" > "$OUT/ncu_$(echo "$3" | tr -cd 'a-z0-9_').txt" 2>&1 || true
  grep -E "^  [a-z_]+<|^  [a-z_]+\(|void|dram__|lts__|sm__|l1tex__|gpu__" "$OUT/ncu_$(echo "$3" | tr -cd 'a-z0-9_').txt" | sed 's/  */ /g' | cut -c1-150 | head -60
elif [ "$MODE" = ncu ]; then
  ncu --metrics dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_bytes.sum.per_second,l1tex__t_bytes.sum.per_second,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second \
    -k regex:'gmem|cached_read|smem_copy' -c 12 $B/memhier-bench --plan=quick --benchmark_filter="$FILTER" 2>&1 | tail -120 > "$OUT/ncu.txt"
  tail -60 "$OUT/ncu.txt"
fi
