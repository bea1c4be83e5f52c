#!/usr/bin/env python3
"""What to read off a part_mshr.sh run (issue 13): the outstanding-request design, sharing and
slices, the L2 partition map, and the L2 bandwidths by layout beside gpu-benches' gpu-l2-cache.

usage: mshr_summary.py topology.json bench.json [peer.txt]
Every figure comes from the files; nothing here is an expected value."""
import json, sys, statistics
t = json.load(open(sys.argv[1]))
def v(sec, k):
    if not isinstance(sec, dict) or k not in sec: return "—"
    x = sec[k]
    if x is None: return "null (%s)" % sec.get("provenance", {}).get(k, {}).get("reason", "?")[:110]
    return x
o = t.get("outstanding_requests") or {}
print("outstanding: design=%s entries/SM=%s merge=%s max_outstanding=%s (lower bound: %s) warp_load_limit=%s"
      % (v(o, "design"), v(o, "entries_per_sm"), v(o, "merge_capacity"), v(o, "max_outstanding_requests_per_sm"),
         o.get("max_outstanding_is_lower_bound"), v(o, "warp_load_limit")))
for s in o.get("series", [])[:60]:
    if s["saturation_threads"] is not None or s["loads"] in (1, 16):
        print("  series %-10s x%-2d saturation=%s steps=%d knee=%s lat %.0f..%.0f" % (s["pattern"], s["loads"],
              s["saturation_threads"], s.get("steps_total", len(s["steps"])), s["knee_threads"], s["first_latency_cycles"], s["max_latency_cycles"]))
bad = [(e["run_name"].split("/iterations")[0], e.get("invalid_samples", 0), e.get("points_without_valid_sample", 0))
       for e in json.load(open(sys.argv[2])).get("benchmarks", [])
       if e.get("run_name", "").startswith("outstanding_requests/pattern") and
       (e.get("invalid_samples", 0) or e.get("points_without_valid_sample", 0))]
for n, inv, lost in bad[:8]:
    print("  %s: %d samples measured again, %d thread counts without a valid sample" % (n, inv, lost))
c = t.get("caches", {})
for n in ("l1", "texture", "readonly", "constant_l1", "constant_l15", "l2"):
    print("sharing: %-12s shared_with=%s slices_per_sm=%s" % (n, v(c.get(n), "shared_with"), v(c.get(n), "slices_per_sm")))
# the sharing matrix: each victim footprint's re-read after each evictor (miss rate / latency ratio)
b0 = json.load(open(sys.argv[2]))
ev = ("none", "l1", "texture", "readonly", "constant")
rows = [e for e in b0.get("benchmarks", []) if e.get("run_name", "").startswith("cache_sharing/") and "none_latency_cycles" in e]
if rows:
    print("sharing matrix (miss rate / latency vs reference):  " + "  ".join("%-12s" % x for x in ev))
    for e in rows:
        name = e["run_name"].split("/iterations")[0].replace("cache_sharing/victim:", "").replace("/bytes:", " ")
        cells = ["%.2f/%.2f" % (e[x + "_miss_rate"], e[x + "_latency_cycles"] / e["none_latency_cycles"])
                 if x + "_miss_rate" in e else "—" for x in ev]
        print("  %-44s " % name + "  ".join("%-12s" % c for c in cells))
p = t.get("l2_partitions") or {}
m = p.get("map") or {}
print("l2 map: partitions=%s SMs per partition=%s near=%s far=%s cold near/far=%s/%s interleave=%s xor-of-offset-bits=%s passes=%s"
      % (v(m, "partitions"), [len(g) for g in m.get("sms_per_partition", [])], v(m, "near_latency_cycles"),
         v(m, "far_latency_cycles"), v(m, "cold_near_latency_cycles"), v(m, "cold_far_latency_cycles"),
         v(m, "interleave_bytes"), m.get("linear_in_offset_bits"), m.get("passes_used")))
print("l2 replication limit: %s bytes, bracket %s" % (v(p, "replication_limit_bytes"), p.get("replication_bracket_bytes")))
for r in p.get("bandwidth_by_readers", []):
    print("  readers/line %5.2f: %.3f TB/s" % (r["readers_per_line"], r["bytes_per_second"] / 1e12))
# L2 bandwidths: ours by layout at 0.2-0.5 x L2, and the peer's plateau at 10-25 MB
b = json.load(open(sys.argv[2]))
rows = {}
for e in b.get("benchmarks", []):
    n = e.get("run_name", e["name"])
    if not n.startswith("l2_throughput/") or "bytes_per_second" not in e: continue
    lay = ("peer" if "layout:peer" in n else "oneshot" if "layout:oneshot" in n else "bulk" if "layout:bulk" in n
           else "stagger" if "stagger:1" in n else "tile")
    mb = int(n.split("bytes:")[1].split("/")[0]) / 1e6
    rows.setdefault((lay, round(mb)), []).append((e["bytes_per_second"] / 1e12, e.get("readers_per_line", 1), n))
print("L2 read bandwidth by layout and working set (best configuration; TB/s [readers per line]):")
for lay in ("tile", "stagger", "oneshot", "bulk", "peer"):
    cells = ["%dMB %.2f[%.1f]" % (mb, max(x)[0], max(x)[1]) for (l, mb), x in sorted(rows.items()) if l == lay]
    if cells: print("  %-8s %s" % (lay, "  ".join(cells)))
l2 = t.get("l2_bandwidth") or {}
one = l2.get("one_reader_per_line") or {}
sh = l2.get("shared_lines") or {}
if "peak_bytes_per_second" in one:
    print("L2 one reader per line: %.3f TB/s  %s" % (one["peak_bytes_per_second"] / 1e12, one.get("benchmark")))
if "peak_bytes_per_second" in sh:
    print("L2 shared lines:        %.3f TB/s  %s (readers/line %s)" % (sh["peak_bytes_per_second"] / 1e12, sh.get("benchmark"), sh.get("readers_per_line")))
pts = []
try:
    for line in open(sys.argv[3] if len(sys.argv) > 3 else ""):
        f = line.split()
        if len(f) >= 9 and f[1] == "kB" and f[3] == "kB" and f[7] == "GB/s":
            pts.append((float(f[2]) / 1024, float(f[6]) / 1e3))
except OSError:
    pass
plateau = [bw for mb, bw in pts if 10 <= mb <= 25]
if plateau:
    print("peer gpu-l2-cache 10-25 MB: median %.3f max %.3f TB/s over %d points (its pattern: layout:peer above)"
          % (statistics.median(plateau), max(plateau), len(plateau)))
    if "peak_bytes_per_second" in one:
        print("VERDICT distinct-line %.3f vs peer plateau %.3f TB/s: %s" % (one["peak_bytes_per_second"] / 1e12,
              statistics.median(plateau), "MET" if one["peak_bytes_per_second"] / 1e12 >= statistics.median(plateau) else "NOT MET"))
else:
    print("peer: no plateau points (see peer.txt)")
