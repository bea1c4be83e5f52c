#!/usr/bin/env python3
"""Prints the topology of an archive (topology.json, schema memhier-topology/1) as one compact
plain-text table per section: caches, TLBs, bandwidths against the peak, shared memory, global
memory, warp access, and the measurement itself. scripts/characterize.sh prints it at the end.
A value that was not determined prints as '-' (the reason is in topology.json and report.md)."""
import json
import os
import sys


def fmt_bytes(v):
    if v is None:
        return "-"
    v = float(v)
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= f and v % (f // 4 or 1) == 0:
            return "%g %s" % (v / f, unit)
    return "%d B" % v


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return ("%%.%df" % digits) % v
    if isinstance(v, list):
        if len(v) > 4 and len(set(map(str, v))) == 1:
            return "%d x %s" % (len(v), v[0])
        s = ",".join(str(x) for x in v)
        return s if len(s) <= 18 else s[:15] + "..."
    return str(v)


def table(title, header, rows):
    if not rows:
        return
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print("\n" + title)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def tbps(v):
    return "-" if v is None else "%.2f TB/s" % (v / 1e12)


def main(path):
    if os.path.isdir(path):
        path = os.path.join(path, "topology.json")
    try:
        t = json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit("topology_table.py: %s: %s" % (path, e))
    dev = t.get("device", {})
    print("%s (%s, driver %s)" % (dev.get("gpu_name", "?"), dev.get("sm_tag", dev.get("compute_capability", "?")),
                                  dev.get("driver_version", "?")))
    caches = t.get("caches", {})
    rows, tlbs = [], []
    for name, c in sorted(caches.items()):
        if c.get("present") is False:
            rows.append([name, "(none on this path)", "", "", "", "", "", "", "", ""])
            continue
        if name.endswith("_tlb"):
            tlbs.append([name, fmt_bytes(c.get("page_bytes")), fmt_bytes(c.get("reach_per_entry_bytes")),
                         fmt(c.get("entries")), fmt_bytes(c.get("size_bytes")), fmt(c.get("sets")),
                         fmt(c.get("ways")), fmt(c.get("replacement")), fmt(c.get("miss_penalty_cycles"))])
            continue
        rows.append([name, fmt_bytes(c.get("size_bytes")), fmt_bytes(c.get("line_bytes")),
                     fmt_bytes(c.get("sector_bytes")), fmt(c.get("sets")), fmt(c.get("ways")),
                     fmt(c.get("replacement")), fmt(c.get("index_bits")), fmt(c.get("hit_latency_cycles")),
                     fmt(c.get("miss_penalty_cycles"))])
    table("Caches", ["cache", "size", "line", "sector", "sets", "ways", "policy", "index", "hit cyc", "miss pen"], rows)
    table("TLBs", ["tlb", "page", "entry reach", "entries", "reach", "sets", "ways", "policy", "miss pen"], tlbs)
    g = t.get("global_memory", {}) or {}
    peak = g.get("theoretical_bytes_per_second")
    bw = []
    for k in ("read", "write", "copy"):
        v = g.get("peak_%s_bytes_per_second" % k)
        if v is not None:
            bw.append(["DRAM " + k, tbps(v), fmt(100.0 * v / peak if peak else None) + " %"])
    for key, label in (("l2_bandwidth", "L2 read"), ("l1_bandwidth", "L1 read")):
        b = t.get(key) or {}
        if b.get("peak_bytes_per_second") is not None:
            bw.append([label, tbps(b["peak_bytes_per_second"]),
                       (fmt(b.get("pct_of_peak")) + " %") if b.get("pct_of_peak") is not None else "no documented peak"])
    table("Bandwidth", ["level", "peak", "of theoretical"], bw)
    s = t.get("shared_memory", {}) or {}
    if s:
        table("Shared memory", ["latency cyc", "banks", "bank width", "peak B/clk/SM"],
              [[fmt(s.get("latency_cycles")), fmt(s.get("banks")), fmt_bytes(s.get("bank_width_bytes")),
                fmt(s.get("peak_bytes_per_clock_per_sm"))]])
    spec = g.get("latency_spectrum") or {}
    srows = [[p, e.get("pattern"), fmt(e.get("p")), fmt(e.get("cycles"), 0)] for p, lst in sorted(spec.items()) for e in lst]
    table("Latency spectrum (cycles)", ["path", "pattern", "P", "cycles"], srows)
    w = t.get("warp_access") or {}
    wrows = []
    for mem in ("shared", "constant", "global", "texture"):
        m = w.get(mem)
        if isinstance(m, dict):
            wrows.append([mem] + [fmt(m.get(k)) for k in ("broadcasts", "serves_parallel", "needs_alignment", "needs_contiguity")])
    table("Warp access (004)", ["memory", "broadcast", "parallel", "alignment", "contiguity"], wrows)
    m = t.get("measurement", {}) or {}
    ctx = dev
    extra = []
    for k in ("characterize_wall_seconds", "plan_wall_seconds", "sm_clock_measured_mhz_end", "sm_clock_throttled"):
        if k in ctx:
            extra.append([k, ctx[k]])
    for k in ("clock_overhead_pair_cycles", "clock_overhead_fine_cycles"):
        if k in m:
            extra.append([k, m[k]])
    table("Measurement", ["what", "value"], extra)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: topology_table.py <archive-dir | topology.json>")
    main(sys.argv[1])
