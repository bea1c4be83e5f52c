#!/usr/bin/env python3
"""Prints the topology of an archive (topology.json, schema memhier-topology/1) as one compact
plain-text table per section: caches, TLBs, bandwidths against the peak, shared memory, global
memory, warp access, and the measurement itself. scripts/characterize.sh prints it at the end.
A value that was not determined prints as '-' (the reason is in topology.json and report.md); a
capacity that is not exact says what it is ("50 % pt": the 50 % point of the miss-rate curve; "fit";
">=": a lower bound), equal ways print once, a TLB shows entries, reach per entry, total reach."""
import json
import os
import re
import sys


def fmt_bytes(v):
    if v is None:
        return "-"
    v = float(v)
    for unit, f, digits in (("GiB", 1 << 30, 2), ("MiB", 1 << 20, 2), ("KiB", 1 << 10, 1)):
        if v >= f:
            return ("%d %s" % (v // f, unit)) if v % f == 0 else ("%.*f %s" % (digits, v / f, unit))
    return "%d B" % v


def fmt_capacity(c):
    """The capacity, marked when it is not exact: the 50 % point, a fit, or a lower bound."""
    if c.get("size_bytes") is None:
        lb = c.get("size_bytes_lower_bound")
        return ">= " + fmt_bytes(lb) if lb is not None else "-"
    mark = {"half_point": " (50 % pt)", "model_fit": " (fit)"}.get(c.get("size_source"), "")
    return fmt_bytes(c["size_bytes"]) + mark


def fmt_ways(ways):
    """Equal ways once ("4"), unequal as their range ("2-4, unequal")."""
    if not isinstance(ways, list) or not ways:
        return fmt(ways)
    lo, hi = min(ways), max(ways)
    return str(lo) if lo == hi else "%d-%d, unequal" % (lo, hi)


def fmt_index(v):
    if isinstance(v, list):
        return "fully assoc." if not v else "bits %s-%s" % (v[0], v[-1])
    return fmt(v)


def fmt_penalty(c):
    if c.get("miss_penalty_cycles") is None and c.get("miss_penalty_lower_bound_cycles") is not None:
        return ">= " + fmt(c["miss_penalty_lower_bound_cycles"])
    return fmt(c.get("miss_penalty_cycles"))


def fmt_sets_ways(c):
    sets, ways = c.get("sets"), c.get("ways")
    if sets is None and ways is None:
        return "-"
    if isinstance(ways, list) and ways and min(ways) == max(ways):
        return "%s x %s" % (fmt(sets if sets is not None else len(ways)), ways[0])
    return "%s sets, ways %s" % (fmt(sets), fmt_ways(ways))


def natural(name):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(name))]


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
            page = fmt_bytes(c.get("page_bytes")) if c.get("page_bytes") is not None else (
                "<= " + fmt_bytes(c["page_bytes_at_most"]) if c.get("page_bytes_at_most") is not None else "-")
            tlbs.append([name, fmt(c.get("entries")), fmt_bytes(c.get("reach_per_entry_bytes")),
                         fmt_bytes(c.get("size_bytes")), page, fmt_sets_ways(c), fmt(c.get("replacement")),
                         fmt_penalty(c)])
            continue
        rows.append([name, fmt_capacity(c), fmt_bytes(c.get("line_bytes")),
                     fmt_bytes(c.get("sector_bytes")), fmt(c.get("sets")), fmt_ways(c.get("ways")),
                     fmt(c.get("replacement")), fmt_index(c.get("index_bits")), fmt(c.get("hit_latency_cycles")),
                     fmt(c.get("miss_penalty_cycles"))])
    table("Caches (latencies in cycles)", ["cache", "capacity", "line", "sector", "sets", "ways per set", "policy",
                                           "set index", "hit", "miss penalty"], rows)
    table("TLBs (miss penalty in cycles)", ["tlb", "entries", "reach/entry", "total reach", "page", "sets x ways",
                                            "policy", "miss penalty"], tlbs)
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
        table("Shared memory", ["latency (cycles)", "banks", "bank width", "copy peak (B/clk/SM)"],
              [[fmt(s.get("latency_cycles")), fmt(s.get("banks")), fmt_bytes(s.get("bank_width_bytes")),
                fmt(s.get("peak_bytes_per_clock_per_sm"))]])
    spec = g.get("latency_spectrum") or {}
    srows = [[p, e.get("pattern"), fmt(e.get("p")), fmt(e.get("cycles"), 0)] for p, lst in sorted(spec.items())
             for e in sorted(lst, key=lambda e: natural(e.get("pattern")))]
    table("Latency spectrum (cycles)", ["path", "pattern", "P", "cycles"], srows)
    w = t.get("warp_access") or {}
    wrows = []
    for mem in ("shared", "constant", "global", "texture"):
        m = w.get(mem)
        if isinstance(m, dict):
            wrows.append([mem] + [fmt(m.get(k)) for k in ("broadcasts", "serves_parallel", "needs_alignment", "needs_contiguity")])
    table("Warp access (004)", ["memory", "broadcast", "parallel", "alignment", "contiguity"], wrows)
    m = t.get("measurement", {}) or {}
    extra = []
    for k, label, unit in (("characterize_wall_seconds", "characterization wall time", "s"),
                           ("plan_wall_seconds", "plan wall time", "s"),
                           ("sm_clock_measured_mhz_end", "SM clock at the end", "MHz"),
                           ("sm_clock_throttled", "SM clock throttled", "")):
        if k in dev:
            v = dev[k]
            if v in ("true", "false"):
                v = v == "true"
            try:
                v = float(v) if not isinstance(v, bool) else v
            except (TypeError, ValueError):
                pass
            extra.append([label, (fmt(v, 1) + " " + unit).strip()])
    for k, label in (("clock_overhead_pair_cycles", "timer overhead, two clock reads"),
                     ("clock_overhead_fine_cycles", "timer overhead, fine runs")):
        if k in m:
            extra.append([label, fmt(m[k]) + " cycles" if m[k] is not None else "-"])
    table("Measurement", ["what", "value"], extra)


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print("usage: topology_table.py <archive-dir | topology.json>\n\n" + (__doc__ or "").strip())
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit("usage: topology_table.py <archive-dir | topology.json>")
    main(sys.argv[1])
