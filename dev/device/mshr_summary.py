#!/usr/bin/env python3
"""What to read off a part_mshr.sh run (issue 13): the outstanding-request design and ramps, sharing
and slices, the L2 partition map, and the L2 bandwidths by layout beside gpu-benches' gpu-l2-cache.

usage: mshr_summary.py topology.json bench.json [peer.txt]
Every figure comes from the files; nothing here is an expected value. Lines starting with CHECK say
whether a fix of the first device run shows (ok / BAD), VERDICT lines answer the issue's questions."""
import gzip
import json
import statistics
import sys

t = json.load(open(sys.argv[1]))
bench = json.load((gzip.open if sys.argv[2].endswith(".gz") else open)(sys.argv[2], "rt")).get("benchmarks", [])


def v(sec, k):
    if not isinstance(sec, dict) or k not in sec:
        return "—"
    x = sec[k]
    if x is None:
        return "null (%s)" % sec.get("provenance", {}).get(k, {}).get("reason", "?")[:150]
    return x


def entries(prefix):
    return [e for e in bench if e.get("run_name", e.get("name", "")).startswith(prefix)]


def short(e):
    return e.get("run_name", e.get("name", "")).split("/iterations")[0]


# ---- outstanding requests ----
o = t.get("outstanding_requests") or {}
print("outstanding: design=%s basis=%s unit=%s entries/SM=%s merge=%s (lower bound: %s) max_outstanding=%s (lower bound: %s) warp_load_limit=%s"
      % (v(o, "design"), o.get("design_basis"), o.get("request_unit"), v(o, "entries_per_sm"), v(o, "merge_capacity"),
         o.get("merge_capacity_is_lower_bound"), v(o, "max_outstanding_requests_per_sm"),
         o.get("max_outstanding_is_lower_bound"), v(o, "warp_load_limit")))
ramp = o.get("ramp") or {}
for m in ramp.get("models", []):
    print("  ramp model %-11s cycles: per thread %.3f, per warp load instruction %.2f, per unit %.3f; rms %.3f worst %.3f"
          % (m["unit"], m["per_thread_cycles"], m["per_instruction_cycles"], m["per_unit_cycles"], m["rms_relative"], m["worst_relative"]))
sc = ramp.get("source_comparison") or {}
if ramp:
    print("  ramp unit=%s; DRAM vs L2: limit=%s (%s) latency l2 %s dram %s" % (ramp.get("unit"), sc.get("limit"), sc.get("reason", ""),
          sc.get("latency_l2_cycles"), sc.get("latency_dram_cycles")))
for p in sc.get("pairs", []):
    print("    %s: slope x%.2f at latency x%.2f" % (p["dram"].replace("outstanding_requests/", ""), p["slope_ratio"], p["latency_ratio"]))
for s in o.get("series", [])[:80]:
    if s["saturation_threads"] is not None or s["loads"] in (1, 16) or s.get("source") == "dram":
        print("  series %-10s x%-2d %-4s threads<=%s saturation=%s steps=%d slope=%.3f cyc/thread lat %.0f..%.0f" % (
            s["pattern"], s["loads"], s.get("source", "l2"), s.get("threads_max"), s["saturation_threads"],
            s.get("steps_total", len(s["steps"])), s.get("ramp_cycles_per_thread", float("nan")),
            s["first_latency_cycles"], s["max_latency_cycles"]))
series = [e for e in entries("outstanding_requests/pattern")]
if series:
    lim = sorted({int(e.get("threads_limit", 0)) for e in series})
    ctas = sorted({int(e.get("pinned_ctas_per_sm", 0)) for e in series})
    two = max(lim) > 1024
    print("CHECK outstanding two-CTA mode: threads limit %s, pinned CTAs per SM %s: %s" % (
        lim, ctas, "ok (series reach past 1024 threads)" if two else "BAD (still one CTA: see the occupancy query)"))
for e in series:
    if e.get("invalid_samples", 0) or e.get("points_without_valid_sample", 0):
        print("  %s: %d samples measured again, %d thread counts without a valid sample" % (
            short(e), e.get("invalid_samples", 0), e.get("points_without_valid_sample", 0)))

# ---- sharing and slices ----
c = t.get("caches", {})
for n in ("l1", "texture", "readonly", "constant_l1", "constant_l15", "l2"):
    print("sharing: %-12s shared_with=%s slices_per_sm=%s" % (n, v(c.get(n), "shared_with"), v(c.get(n), "slices_per_sm")))
ev = ("none", "l1", "texture", "readonly", "constant")
rows = [e for e in entries("cache_sharing/") if "none_latency_cycles" in e]
if rows:
    print("sharing matrix (miss rate / latency vs reference):  " + "  ".join("%-12s" % x for x in ev))
    for e in rows:
        name = short(e).replace("cache_sharing/victim:", "").replace("/bytes:", " ")
        cells = ["%.2f/%.2f" % (e[x + "_miss_rate"], e[x + "_latency_cycles"] / e["none_latency_cycles"])
                 if x + "_miss_rate" in e else "—" for x in ev]
        print("  %-44s " % name + "  ".join("%-12s" % q for q in cells))
    own = {"l1": "l1", "texture": "texture", "readonly": "readonly", "constant_l1": "constant", "constant_l15": "constant"}
    good = [e for e in rows if e["none_miss_rate"] <= 0.05 and
            e.get(own[short(e).split("victim:")[1].split("/")[0]] + "_miss_rate", 0) - e["none_miss_rate"] >= 0.5]
    print("CHECK sharing fill: %d of %d victims hit after the fill with no evictor and are evicted by their own path: %s"
          % (len(good), len(rows), "ok" if good else "BAD (the re-read is still cold or the control does not evict)"))
per_sm = [e for e in entries("caches_per_sm/")]
for e in per_sm:
    ws = sorted((int(k[1:].split("_")[0]), e[k]) for k in e if k.startswith("w") and k.endswith("_miss_rate"))
    print("  %-40s reference %.2f control %.2f  w1..: %s" % (short(e).replace("caches_per_sm/", ""), e.get("reference_miss_rate", -1),
          e.get("control_miss_rate", -1), " ".join("%.2f" % x for _, x in ws[:31])))

# ---- the L2 partition map ----
p = t.get("l2_partitions") or {}
m = p.get("map") or {}
print("l2 map: partitions=%s SMs per partition=%s unassigned=%s near=%s far=%s (from %s) cold near/far=%s/%s after_pressure=%s"
      % (v(m, "partitions"), [len(g) for g in m.get("sms_per_partition", [])], len(m.get("sms_unassigned", [])),
         v(m, "near_latency_cycles"), v(m, "far_latency_cycles"), m.get("far_latency_from"), v(m, "cold_near_latency_cycles"),
         v(m, "cold_far_latency_cycles"), m.get("after_pressure")))
print("  SMs split by the primer pass: %s of %s (about half: the primer's reads left near copies in its partition; all: they did not)"
      % (m.get("after_primer_split_sms"), sum(len(g) for g in m.get("sms_per_partition", []))))
print("  interleave=%s xor-of-offset-bits=%s page masks=%s passes=%s home fraction=%s" % (
    v(m, "interleave_bytes"), m.get("linear_in_offset_bits"), [hex(x) if isinstance(x, int) else x for x in m.get("page_offset_masks", [])],
    m.get("passes_used"), m.get("line_home_fraction")))
if m:
    ok = isinstance(m.get("partitions"), int) and m.get("sms_unassigned") == [] and m.get("far_latency_from") is not None
    print("CHECK l2 map: %s" % ("ok (every SM grouped, far-partition hits measured from %s)" % m.get("far_latency_from") if ok else
          "BAD (partitions %s, %d SMs unassigned, far latency %s)" % (m.get("partitions"), len(m.get("sms_unassigned", [])),
                                                                       m.get("far_latency_cycles"))))
for g, ids in enumerate(m.get("sms_per_partition", [])):
    print("  partition %d SMs: %s" % (g, ",".join(str(i) for i in ids)))
print("l2 replication limit: %s bytes, bracket %s; far fraction by footprint %s" % (
    v(p, "replication_limit_bytes"), p.get("replication_bracket_bytes"),
    ["%.0fMB:%.2f" % (x["bytes"] / 1e6, x["far_fraction"]) for x in p.get("far_fraction_by_footprint", [])]))
for r in p.get("bandwidth_by_readers", []):
    print("  readers/line %5.2f: %.3f TB/s" % (r["readers_per_line"], r["bytes_per_second"] / 1e12))

# ---- L2 bandwidths by layout, the peer ----
rows = {}
for e in entries("l2_throughput/"):
    n = e.get("run_name", e["name"])
    if "bytes_per_second" not in e:
        continue
    if "layout:peer" in n:
        lay = "peer/" + n.split("variant:")[1].split("/")[0] if "variant:" in n else "peer"
    else:
        lay = ("oneshot" if "layout:oneshot" in n else "bulk" if "layout:bulk" in n else "stagger" if "stagger:1" in n
               else "tile" if n.split("/iterations")[0].count("/") == 4 else None)
    if lay is None:
        continue
    mb = int(n.split("bytes:")[1].split("/")[0]) / 1e6
    rows.setdefault((lay, round(mb)), []).append((e["bytes_per_second"] / 1e12, e.get("readers_per_line", 1), short(e)))
print("L2 read bandwidth by layout and working set (best configuration; TB/s [readers per line]):")
best = {}
for lay in ("tile", "stagger", "oneshot", "bulk", "peer", "peer/l2only", "peer/rotated"):
    cells = ["%dMB %.2f[%.1f]" % (mb, max(x)[0], max(x)[1]) for (l, mb), x in sorted(rows.items()) if l == lay]
    if cells:
        print("  %-13s %s" % (lay, "  ".join(cells)))
        best[lay] = max(max(x)[0] for (l, _), x in rows.items() if l == lay)
failed = [short(e) for e in entries("l2_throughput/") if e.get("error_occurred")]
for n in failed[:6]:
    print("  FAILED %s" % n)
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
if not plateau:
    print("peer: no plateau points (see peer.txt)")
    sys.exit(0)
peer = statistics.median(plateau)
print("peer gpu-l2-cache 10-25 MB: median %.3f max %.3f TB/s over %d points" % (peer, max(plateau), len(plateau)))
if "peer" in best:
    print("VERDICT memhier's layout:peer %.3f vs the peer %.3f TB/s (%+.1f %%): %s" % (best["peer"], peer, 100 * (best["peer"] / peer - 1),
          "reproduces it" if abs(best["peer"] / peer - 1) <= 0.03 else "does not reproduce it within 3 %"))
for var, what in (("peer/l2only", "without L1 allocation"), ("peer/rotated", "without concurrent readers of a line")):
    if var in best and "peer" in best:
        print("VERDICT the peer's pattern %s: %.3f TB/s (%+.1f %% against layout:peer)" % (what, best[var], 100 * (best[var] / best["peer"] - 1)))
if "peak_bytes_per_second" in one:
    d = one["peak_bytes_per_second"] / 1e12
    print("VERDICT distinct-line %.3f vs peer plateau %.3f TB/s: %s" % (d, peer, "MET" if d >= peer else "NOT MET"))
