#!/usr/bin/env bash
# plot.py test (tests/cli/plot.cmake): usage run_plot_test.sh <plot.py> <archive> <work-dir>
# Exit 77 (skipped) when no python3 with matplotlib is found.
set -u
plot=$1 archive=$2 work=$3
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with matplotlib (apt-get install python3-matplotlib)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

# 1. The whole small archive: every family gets its plot.
"$py" "$plot" "$archive" -o "$work/all" >"$work/all.log" 2>&1 || { cat "$work/all.log"; fail "plot.py exited $?"; }
cat "$work/all.log"
for f in pchase_global_ca_latency_vs_footprint pchase_global_ca_latency_vs_stride pchase_global_ca_capacity_vs_carveout \
         pchase_global_ca_trace_32768_4 pchase_global_cg_latency_vs_footprint tlb_vs_footprint \
         latency_spectrum_global_cg_patterns latency_spectrum_global_cg_trace gmem_throughput_vs_ctas_cta_size_ilp \
         l1_throughput_vs_working_set l2_throughput_vs_working_set smem_throughput_vs_warps smem_throughput_vs_ilp \
         smem_bank_conflict_vs_stride warp_access_latency_cycles clock_overhead_clock_overhead_cycles \
         outstanding_requests_counters; do
  svg=$work/all/$f.svg
  [ -s "$svg" ] || fail "$f.svg not written"
  grep -q "<svg" "$svg" || fail "$f.svg is not SVG"
  grep -q "$svg" "$work/all.log" || fail "$f.svg written but not printed"
done
grep -q "not plotted" "$work/all.log" && fail "a family failed to plot"

# 2. An archive with one family only (and no traces): the others are skipped, no crash; default
#    output directory <archive>/plots.
mkdir -p "$work/tlb_only"
"$py" - "$archive/bench.json" "$work/tlb_only/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [b for b in d["benchmarks"] if b["name"].startswith("tlb/")]
json.dump(d, open(sys.argv[2], "w"))
PY
"$py" "$plot" "$work/tlb_only" >"$work/tlb.log" 2>&1 || { cat "$work/tlb.log"; fail "plot.py on a tlb-only archive"; }
[ "$(ls "$work/tlb_only/plots")" = "tlb_vs_footprint.svg" ] || fail "tlb-only archive: $(ls "$work/tlb_only/plots")"

# 2b. The spectrum's paired revisit counters (revisit_<g>_paired[_before]_cycles, since 2026-11-23)
#     are not bars of their own and do not stop the family (they did: "invalid literal for int()").
mkdir -p "$work/paired"
"$py" - "$archive/bench.json" "$work/paired/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [b for b in d["benchmarks"] if b["name"].startswith("latency_spectrum/")]
for b in d["benchmarks"]:
    b["revisit_64_paired_cycles"], b["revisit_64_paired_before_cycles"] = 301.0, 290.0
json.dump(d, open(sys.argv[2], "w"))
PY
"$py" "$plot" "$work/paired" >"$work/paired.log" 2>&1 || { cat "$work/paired.log"; fail "plot.py with paired counters"; }
grep -q "not plotted" "$work/paired.log" && { cat "$work/paired.log"; fail "paired counters stopped the spectrum plot"; }
ls "$work/paired/plots" | grep -q "latency_spectrum_.*_patterns.svg" || fail "no spectrum patterns plot: $(ls "$work/paired/plots")"

# 3. Bad input: one line, exit 2.
"$py" "$plot" "$work/does_not_exist" >"$work/bad.log" 2>&1
rc=$?
[ $rc = 2 ] || fail "missing archive: exit $rc, expected 2"
grep -q "no such file or directory" "$work/bad.log" || fail "missing archive: $(cat "$work/bad.log")"
echo '{"context": {}, "benchmarks": []}' >"$work/foreign.json"
"$py" "$plot" "$work/foreign.json" >"$work/bad.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "not written by memhier-bench" "$work/bad.log" || fail "foreign JSON: exit $rc $(cat "$work/bad.log")"
echo "plot.py: all checks passed"
