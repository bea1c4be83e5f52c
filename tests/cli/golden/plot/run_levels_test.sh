#!/usr/bin/env bash
# The level families beyond one SM in scripts/plot.py and scripts/topology_table.py
# (tests/cli/levels_plots.cmake), on synthetic data that make_levels.py writes here.
# usage: run_levels_test.sh plot  <plot.py> <sim_small archive> <work-dir>
#        run_levels_test.sh table <topology_table.py> <base topology.json | -> <work-dir>
# plot: each family draws its own plots (never the generic <family>_counters), the link figures of
#   the context are drawn, a partial family draws what it holds, and the other families' SVGs are
#   byte-identical with and without the level families in the archive. Exit 77 without matplotlib.
# table: the new sections' rows (values, 'not determined' with the reasons, rows <= 100 columns),
#   and the output of a topology without them unchanged by their presence.
set -u
mode=$1 script=$2 data=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

LEVEL_PLOTS="async_copy_bandwidth_vs_chunk async_copy_latency async_copy_multicast dsmem_bandwidth
dsmem_latency_vs_rank host_bandwidth_vs_ctas_per_sm host_copy_vs_bytes host_latency
peer_dst_1_bandwidth_vs_ctas_per_sm peer_dst_1_copy_vs_bytes peer_dst_1_latency
peer_dst_2_bandwidth_vs_ctas_per_sm peer_dst_2_copy_vs_bytes peer_dst_2_latency"

plot_checks() {
  local py=$1
  # 1. The four families alone: exactly their plots, printed, none failed.
  mkdir -p "$work/levels"
  "$py" "$here/make_levels.py" bench - "$work/levels/bench.json" || fail "make_levels.py bench"
  "$py" "$script" "$work/levels" >"$work/levels.log" 2>&1 || { cat "$work/levels.log"; fail "plot.py exited $?"; }
  cat "$work/levels.log"
  grep -q "not plotted" "$work/levels.log" && fail "a level family failed to plot"
  got=$(cd "$work/levels/plots" && ls | sed 's/\.svg$//' | sort | tr '\n' ' ')
  want=$(echo $LEVEL_PLOTS | tr ' ' '\n' | sort | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "level plots: got [$got] want [$want]"
  for f in $LEVEL_PLOTS; do
    grep -q "<svg" "$work/levels/plots/$f.svg" || fail "$f.svg is not SVG"
    grep -q "$work/levels/plots/$f.svg" "$work/levels.log" || fail "$f.svg written but not printed"
  done
  # the context's link figures are drawn (the legend names them)
  grep -q "link (PCIe Gen5 x16)" "$work/levels/plots/host_bandwidth_vs_ctas_per_sm.svg" || fail "no host link line"
  grep -q "link (NV18)" "$work/levels/plots/peer_dst_2_copy_vs_bytes.svg" || fail "no peer link line"
  grep -q "theoretical DRAM" "$work/levels/plots/async_copy_bandwidth_vs_chunk.svg" || fail "no DRAM peak line"
  grep -q "rank 0: local" "$work/levels/plots/dsmem_latency_vs_rank.svg" || fail "local rank not marked"

  # 2. Partial families (dsmem latency only, host copies only, no link keys): what they hold, no
  #    generic plot, no failure.
  mkdir -p "$work/partial"
  "$py" - "$work/levels/bench.json" "$work/partial/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [b for b in d["benchmarks"] if b["name"].startswith(("dsmem/op:latency", "host/op:copy"))]
for k in [k for k in d["context"] if "link" in k or k == "peer_devices"]:
    del d["context"][k]
json.dump(d, open(sys.argv[2], "w"))
PY
  "$py" "$script" "$work/partial" >"$work/partial.log" 2>&1 || { cat "$work/partial.log"; fail "plot.py on a partial archive"; }
  grep -q "not plotted" "$work/partial.log" && { cat "$work/partial.log"; fail "a partial family failed"; }
  got=$(ls "$work/partial/plots" | tr '\n' ' ')
  [ "$got" = "dsmem_latency_vs_rank.svg host_copy_vs_bytes.svg " ] || fail "partial archive: $got"

  # 3. The other families' plots are the same bytes with the level families beside them.
  mkdir -p "$work/mixed"
  "$py" "$here/make_levels.py" bench "$data/bench.json" "$work/mixed/bench.json" || fail "make_levels.py on sim_small"
  ln -s "$(cd "$data" && pwd)/traces" "$work/mixed/traces"
  "$py" "$script" "$data" -o "$work/base" >"$work/base.log" 2>&1 || { cat "$work/base.log"; fail "plot.py on sim_small"; }
  "$py" "$script" "$work/mixed" >"$work/mixed.log" 2>&1 || { cat "$work/mixed.log"; fail "plot.py on sim_small + levels"; }
  for f in "$work"/base/*.svg; do
    cmp -s "$f" "$work/mixed/plots/$(basename "$f")" || fail "$(basename "$f") differs with the level families present"
  done
  extra=$(cd "$work/mixed/plots" && for f in *.svg; do [ -e "$work/base/$f" ] || echo "${f%.svg}"; done | sort | tr '\n' ' ')
  [ "$extra" = "$want" ] || fail "sim_small + levels: new plots [$extra] want [$want]"
  ls "$work/mixed/plots" | grep -Eq "^(dsmem|async_copy|host|peer)_counters" && fail "a level family got the generic plot"
  echo "levels plots: all checks passed"
}

table_checks() {
  local py=python3
  "$py" "$here/make_levels.py" topology "$data" "$work/topology.json" || fail "make_levels.py topology"
  "$py" "$here/make_levels.py" topology-null "$data" "$work/null.json" || fail "make_levels.py topology-null"
  if [ "$data" = "-" ]; then
    echo '{"device": {"gpu_name": "synthetic H100", "sm_tag": "sm_90"}}' >"$work/base.json"
  else  # the committed topology without the level sections it may already hold
    "$py" -c 'import json, sys
t = json.load(open(sys.argv[1]))
for k in ("distributed_shared_memory", "async_copies", "host_memory", "peers"):
    t.pop(k, None)
json.dump(t, open(sys.argv[2], "w"))' "$data" "$work/base.json" || fail "could not strip the base topology"
  fi
  "$py" "$script" "$work/base.json" >"$work/base.txt" || fail "topology_table.py on the base topology"
  "$py" "$script" "$work/topology.json" >"$work/levels.txt" || fail "topology_table.py with the level sections"
  "$py" "$script" "$work/null.json" >"$work/null.txt" || fail "topology_table.py with null sections"
  cat "$work/levels.txt"
  grep -Eq "^(Distributed|Async|Host memory|Peer)" "$work/base.txt" && fail "level tables printed without their sections"
  while IFS= read -r re; do
    grep -Eq "$re" "$work/levels.txt" || fail "no line matching: $re"
  done <<'RE'
^remote latency +194\.0 \(180\.0-212\.0 over clusters\)
^local latency \(rank 0\) +30\.0
^remote latency by cluster +2: 192\.0, 4: 193\.0-195\.0, 8: 196\.0, 16: not determined
^rank effect +2\.0 cycles: no effect \(noise 12\.0\)
^cluster-size effect +not determined: only 1 rank 1 over cluster sizes measured
^SM-pair effect +31\.0 cycles: depends on SM pair \(noise 12\.0\)
^read +110\.0 +28\.0 +7\.30 TB/s +0\.25
^write +not determined +not determined
^  not determined, write: no write benchmarks in the archive
^bulk +5\.00 TB/s +91\.0 % +2\.90 TB/s +87\.0 % +1 KiB: 932, 16 KiB: 1412
^  not determined, tensor l2_bytes_per_second: tensor maps refused by the driver
^fastest from L2 +bulk
^multicast, cluster 2 +7\.20 TB/s delivered, 4\.50 TB/s read from L2
^Host memory \(PCIe Gen5 x16, 63\.0 GB/s per direction\)
^latency +2900\.0 cycles, 1465\.0 ns
^cached in the L2 +no
^write \(SM\) +not determined: host write failed
^copy bidir +96\.4 GB/s +76\.5 %
^managed: first touch +25\.3 us
^GPU 1 +link +NV18, 450\.0 GB/s per direction
^ +latency +1900\.0 cycles, 960\.0 ns
^ +latency by state +cold: 1900\.0, warm: 1850\.0, owner: 1400\.0
^ +cached in +owner_l2
^ +copy bidir +740\.0 GB/s +82\.2 %
^GPU 2 +link +link not determined, rate not determined
^ +latency +not determined: peer access refused
^ +cached in +not determined: cold and warm states
^ +read \(SM\) +not determined: no peer read measured
RE
  for t in "Distributed shared memory" "Async copies" "Host memory" "Peer GPUs"; do
    grep -q -A1 "^$t\$" "$work/null.txt" || fail "null section $t: no title"
  done
  grep -q "^not determined: no peers benchmarks in the archive" "$work/null.txt" || fail "null section without its reason"
  "$py" - "$work/base.txt" "$work/levels.txt" "$work/null.txt" <<'PY' || fail "widths or base output"
import sys
base, levels, null = (open(p).read().rstrip("\n").split("\n\n") for p in sys.argv[1:])  # a block per table
titles = ("Distributed shared memory", "Async copies", "Host memory", "Peer GPUs")
for name, blocks in (("levels", levels), ("null", null)):
    new = [b for b in blocks if b.startswith(titles)]
    wide = [l for b in new for l in b.splitlines() if len(l.rstrip()) > 100]
    if wide:
        sys.exit("%s: %d rows over 100 columns: %s" % (name, len(wide), wide[0]))
    if len(new) < 4 or [b for b in blocks if not b.startswith(titles)] != base:
        sys.exit("%s: the tables of a topology without the level sections changed" % name)
PY
  echo "levels tables: all checks passed"
}

case $mode in
  plot)
    py=""
    for c in python3 /usr/bin/python3; do
      if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
    done
    [ -n "$py" ] || { echo "SKIP: no python3 with matplotlib (apt-get install python3-matplotlib)"; exit 77; }
    plot_checks "$py" ;;
  table) table_checks ;;
  *) fail "mode $mode: plot or table" ;;
esac
