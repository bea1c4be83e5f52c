#!/usr/bin/env python3
"""Prints the topology of an archive (topology.json, schema memhier-topology/2 or /1) as one compact
plain-text table per section: caches, TLBs, bandwidths against the peak, shared memory, global
memory, warp access, and the measurement itself. scripts/characterize.sh prints it at the end.
A value that was not determined prints as '-' (the reason is in topology.json and report.md); a
capacity that is not exact says what it is ("50 % pt": the 50 % point of the miss-rate curve; "fit"; "driver": the device's own L2 size where the structure lacks a factor;
">=": a lower bound), equal ways print once, a TLB shows entries, reach per entry, total reach.
The levels beyond one SM (distributed_shared_memory, async_copies, host_memory, peers) and the
persisting L2 set-aside (l2_persisting: maximum, grant step, largest kept, per request) print only
where topology.json has them, a missing value as "not determined" with its reason."""
import signal
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
    mark = {"half_point": " (50 % pt)", "model_fit": " (fit)", "device": " (driver)"}.get(c.get("size_source"), "")
    return fmt_bytes(c["size_bytes"]) + mark


def ways_of(c):
    """A cache's ways: the count (memhier-topology/2), else its list by set (ways_per_set where the sets
    differ in /2; ways in /1)."""
    w = c.get("ways")
    return c.get("ways_per_set") if w is None and isinstance(c.get("ways_per_set"), list) else w


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
    sets, ways = c.get("sets"), ways_of(c)
    if sets is None and ways is None:
        return "-"
    if isinstance(ways, list) and ways and min(ways) == max(ways):
        return "%s x %s" % (fmt(sets if sets is not None else len(ways)), ways[0])
    if isinstance(ways, int) and not isinstance(ways, bool):
        return "%s x %s" % (fmt(sets), ways)
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


# ------------------------------------------------------------------------------------------------
# Levels beyond one SM (docs/methodology.md): distributed shared memory, async copies, host memory,
# peers. Printed only where topology.json has the section; a value that is absent or null prints as
# "not determined", with its reason where topology.json gives one (the key's `<key>_reason`, its
# provenance's `reason`, or the `reason` of an effect or of a figure that is null).


def clip(s, width=50):
    s = str(s)
    return s if len(s) <= width else s[:width - 3] + "..."


def nd(reason=None, width=50):
    return clip("not determined" + (": %s" % reason if reason else ""), width)


def reason_of(d, key):
    """Why d[key] is null: its `<key>_reason`, or its provenance's reason."""
    if not isinstance(d, dict):
        return None
    prov = d.get("provenance") if isinstance(d.get("provenance"), dict) else {}
    return d.get(key + "_reason") or (prov[key].get("reason") if isinstance(prov.get(key), dict) else None)


def val(d, key, f=fmt, width=50):
    """d[key] formatted, or 'not determined' with its reason."""
    d = d if isinstance(d, dict) else {}
    return f(d[key]) if d.get(key) is not None else nd(reason_of(d, key), width)


class Notes(list):
    """Cells of a wide table say only 'not determined'; their reasons follow the table as notes."""

    def cell(self, d, key, f, label):
        d = d if isinstance(d, dict) else {}
        if d.get(key) is not None:
            return f(d[key])
        if reason_of(d, key):
            self.append("%s: %s" % (label, reason_of(d, key)))
        return "not determined"

    def whole(self, label, reason):
        """A row that is null as a whole: its reason once; its cells say 'not determined'."""
        if reason:
            self.append("%s: %s" % (label, reason))
        return {}

    def show(self):
        for n in self:
            print(clip("  not determined, " + n, 100))


def rate(v):
    return "%.2f TB/s" % (v / 1e12) if v >= 1e12 else "%.1f GB/s" % (v / 1e9)


def pct(v):
    return fmt(v) + " %"


def fmt_effect(e, reason=None):
    """An effect {cycles, decided, noise_cycles, reason}: the difference and what was decided ('none':
    within the noise; else what depends), or not determined with the reason."""
    decided = e.get("decided") if isinstance(e, dict) else None
    if decided in (None, False) or e.get("cycles") is None:
        return nd((e.get("reason") if isinstance(e, dict) else None) or reason, 70)
    what = str(e.get("reason") or "decided") if decided is True else "no effect" if decided == "none" else str(decided)
    noise = " (noise %s)" % fmt(e["noise_cycles"]) if e.get("noise_cycles") is not None else ""
    return clip("%s cycles: %s%s" % (fmt(e["cycles"]), what, noise), 70)


def fmt_cluster_latency(v):
    """One cluster size's remote latency: a number, or {rank: cycles} as the remote ranks' range."""
    if not isinstance(v, dict):
        return fmt(v)
    if "latency_cycles" in v:
        return val(v, "latency_cycles")
    remote = [x for r, x in v.items() if str(r) != "0" and isinstance(x, (int, float))]
    if not remote:
        return "not determined"
    return fmt(min(remote)) if min(remote) == max(remote) else "%s-%s" % (fmt(min(remote)), fmt(max(remote)))


def by_key(d, f, width=70):
    """'k: v, ...' of a {key: value} map in natural key order, 'not determined' where null."""
    if not isinstance(d, dict) or not d:
        return nd(None, width)
    return clip(", ".join("%s: %s" % (k, "not determined" if v is None else f(v))
                          for k, v in sorted(d.items(), key=lambda kv: natural(kv[0]))), width)


def dsmem_tables(s):
    spread = s.get("latency_spread_cycles")
    remote = val(s, "latency_cycles", width=70)
    if s.get("latency_cycles") is not None and isinstance(spread, list) and len(spread) == 2 and None not in spread:
        remote += " (%s-%s over clusters)" % (fmt(spread[0]), fmt(spread[1]))
    rows = [["remote latency", remote], ["local latency (rank 0)", val(s, "local_latency_cycles", width=70)],
            ["remote latency by cluster", by_key(s.get("by_cluster"), fmt_cluster_latency)]]
    rows += [[label, fmt_effect(s.get(k), reason_of(s, k))] for k, label in (
        ("rank_effect", "rank effect"), ("cluster_effect", "cluster-size effect"), ("sm_pair_effect", "SM-pair effect"))
        if k in s or k != "sm_pair_effect"]
    table("Distributed shared memory (latencies in cycles)", ["what", "value"], rows)
    bw = s.get("bandwidth") if isinstance(s.get("bandwidth"), dict) else {}
    rows, notes = [], Notes()
    for op in ("read", "write"):
        b = bw.get(op) if isinstance(bw.get(op), dict) else notes.whole(op, reason_of(bw, op) or
                                                                         reason_of(s, "bandwidth"))
        rows.append([op] + [notes.cell(b, k, f, "%s %s" % (op, k)) for k, f in (
            ("local_bytes_per_clock_per_sm", fmt), ("remote_bytes_per_clock_per_sm", fmt),
            ("remote_bytes_per_second", rate), ("remote_over_local", lambda v: fmt(v, 2)))])
    table("Distributed shared memory bandwidth",
          ["op", "local B/clk/SM", "remote B/clk/SM", "remote", "remote/local"], rows)
    notes.show()


ASYNC_METHODS = ("plain", "cp_async", "bulk", "tensor")
ASYNC_CELLS = (("l2_bytes_per_second", rate), ("l2_pct_of_l2_peak", pct), ("dram_bytes_per_second", rate),
               ("dram_pct_of_peak", pct))


def fmt_chunk_latency(d):
    """{chunk bytes: cycles} as '1 KiB: 732, 16 KiB: 1212'."""
    return by_key({fmt_bytes(int(k)) if str(k).isdigit() else k: v for k, v in d.items()}, fmt, 30) \
        if isinstance(d, dict) else fmt(d)


def async_tables(s):
    methods = {k: v for k, v in s["methods"].items() if not k.endswith("_reason")} \
        if isinstance(s.get("methods"), dict) else {}
    rows, notes = [], Notes()
    for m in [m for m in ASYNC_METHODS if m in methods] + sorted(m for m in methods if m not in ASYNC_METHODS):
        c = methods[m] if isinstance(methods[m], dict) else notes.whole(m, s["methods"].get(m + "_reason"))
        rows.append([m] + [notes.cell(c, k, f, "%s %s" % (m, k)) for k, f in ASYNC_CELLS + (
            ("latency_cycles", fmt_chunk_latency),)])
    table("Async copies into shared memory", ["method", "from L2", "of L2 peak", "from DRAM", "of peak",
                                              "latency (cycles)"], rows)
    notes.show()
    fastest = s.get("fastest")
    extra = [] if isinstance(s.get("methods"), dict) else [["methods", nd(s.get("methods_reason"), 70)]]
    if "multicast" not in s and "multicast_reason" in s:
        extra.append(["multicast", nd(s["multicast_reason"], 70)])
    if "fastest" in s:
        extra += [["fastest from L2", val(fastest, "l2", width=70)],
                  ["fastest from DRAM", val(fastest, "dram", width=70)]]
    mc = s.get("multicast")
    for c in sorted(mc, key=natural) if isinstance(mc, dict) else []:
        if c.endswith("_reason"):
            continue
        extra.append(["multicast, cluster %s" % c, nd(mc.get(c + "_reason"), 70) if not isinstance(mc[c], dict) else
                      "%s delivered, %s read from L2" % (val(mc[c], "bytes_per_second", rate, 30),
                                                         val(mc[c], "source_bytes_per_second", rate, 30))])
    table("Async copies: fastest, multicast", ["what", "value"], extra)


def fmt_link_bw(parent, key):
    """[value, of link] of parent[key] = {bytes_per_second, pct_of_link}, or not determined."""
    d = parent.get(key) if isinstance(parent, dict) else None
    if not isinstance(d, dict):
        return [nd(reason_of(parent, key)), ""]
    if d.get("bytes_per_second") is None:
        return [nd(reason_of(d, "bytes_per_second") or d.get("reason")), ""]
    return [rate(d["bytes_per_second"]), pct(d["pct_of_link"]) if d.get("pct_of_link") is not None else ""]


def link_rows(s, copies, cached):
    """[what, value, of link] rows of a link section: latency, where it is cached (the key `cached`),
    read/write, copies."""
    cyc, ns = s.get("latency_cycles"), s.get("latency_ns")
    lat = ", ".join(x for x in (cyc is not None and fmt(cyc) + " cycles", ns is not None and fmt(ns) + " ns") if x)
    rows = [["latency", lat or nd(reason_of(s, "latency_cycles")), ""]]
    by = s.get("latency_by_state") if isinstance(s.get("latency_by_state"), dict) else {}
    if by:
        states = ("cold", "warm", "owner")
        order = [k for k in states if k in by] + sorted(k for k in by if k not in states)
        rows.append(["latency by state", clip(", ".join("%s: %s" % (k, val(by, k)) for k in order)), ""])
    rows.append(["cached in" + (" the L2" if cached == "cached_in_l2" else ""), val(s, cached), ""])
    rows += [["%s (SM)" % op] + fmt_link_bw(s, op) for op in ("read", "write")]
    cp = s.get("copy") if isinstance(s.get("copy"), dict) else {"_reason": reason_of(s, "copy")}
    return rows + [["copy %s" % d] + fmt_link_bw(cp, d) if d in cp else ["copy %s" % d, nd(cp.get("_reason")), ""]
                   for d in copies]


def fmt_link(s):
    """'NV18, 450.0 GB/s per direction', what of it is known."""
    bps = s.get("link_bytes_per_second")
    return "%s, %s" % (s.get("link") or "link not determined",
                       "%s per direction" % rate(bps) if bps is not None else "rate not determined")


def host_table(s):
    link = fmt_link(s)
    rows = link_rows(s, ("h2d", "d2h", "bidir"), "cached_in_l2")
    m = s.get("managed")
    rows += [["managed: first touch", val(m, "fault_latency_us", lambda v: fmt(v) + " us"), ""],
             ["managed: migration", val(m, "migration_bytes_per_second", rate), ""]]
    table("Host memory (%s)" % clip(link, 70), ["what", "value", "of link"], rows)


def peers_table(peers):
    rows = []
    for p in peers:
        if not isinstance(p, dict):
            continue
        pr = [["link", fmt_link(p), ""]] + link_rows(p, ("uni", "bidir"), "cached_in")
        rows += [["GPU %s" % fmt(p.get("device"))] + pr[0]] + [[""] + r for r in pr[1:]]
    table("Peer GPUs", ["peer", "what", "value", "of link"], rows)


def persisting_table(s):
    """The persisting L2 set-aside (l2_persisting): the maximum, the grant's step, the largest kept, the
    control, then kept per request (of the window; of what was granted)."""
    frac = lambda v: fmt(100.0 * v) + " %"
    rows = [["set-aside at most", val(s, "max_bytes", fmt_bytes), ""],
            ["granted in steps of", val(s, "grant_step_bytes", fmt_bytes),
             ("rounded %s; %s %% of the L2" % (s.get("grant_rounding"), fmt(100.0 * s["grant_step_of_l2"], 2))
              if s.get("grant_step_of_l2") is not None else ("rounded %s" % s["grant_rounding"] if s.get("grant_rounding") else ""))],
            ["largest kept", val(s, "largest_kept_bytes", fmt_bytes),
             "of the maximum " + frac(s["kept_of_max"]) if s.get("kept_of_max") is not None else ""],
            ["kept without a set-aside", val(s, "control_kept_bytes", fmt_bytes),
             "request 0 with a persisting window (no window-free control)" if s.get("control_access_policy_window")
             else ("no access policy window" if "control_access_policy_window" in s else "")],
            ["minimum set-aside under a window", val(s, "minimum_set_aside_bytes", fmt_bytes, 60),
             ("%s grant steps" % fmt(s["minimum_set_aside_of_step"], 2)) if s.get("minimum_set_aside_of_step") is not None else ""]]
    for r in s.get("by_request") or []:
        if not isinstance(r, dict):
            continue
        what = "request %s, window %s, %s" % (val(r, "requested_bytes", fmt_bytes), val(r, "window_bytes", fmt_bytes),
                                              "hitRatio " + fmt(r.get("hit_ratio"), 2) if r.get("access_policy_window", True)
                                              else "no access policy (control)")
        note = []
        if r.get("set_aside_bytes") is not None:
            note.append("granted " + fmt_bytes(r["set_aside_bytes"]))
        if r.get("kept_of_granted") is not None:
            note.append("kept " + frac(r["kept_of_granted"]) + " of it")
        if r.get("probe_span_reason"):
            note.append("probe saw the first " + frac(r["probe_span_bytes"] / r["window_bytes"]) + " only")
        rows.append([clip(what, 60), val(r, "kept_bytes", fmt_bytes, 40), "; ".join(note)])
    table("L2 persisting", ["what", "value", "note"], rows)


def level_tables(t):
    for key, title, fn, kind in (("distributed_shared_memory", "Distributed shared memory", dsmem_tables, dict),
                                 ("async_copies", "Async copies", async_tables, dict),
                                 ("host_memory", "Host memory", host_table, dict),
                                 ("peers", "Peer GPUs", peers_table, list),
                                 ("l2_persisting", "L2 persisting", persisting_table, dict)):
        if key not in t:
            continue
        if isinstance(t[key], kind):
            fn(t[key])
        else:
            print("\n%s\n%s" % (title, nd(t.get(key + "_reason"), 90)))


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
                     fmt_bytes(c.get("sector_bytes")), fmt(c.get("sets")), fmt_ways(ways_of(c)),
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
    level_tables(t)
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
    # a reader that stops early (`| head`) ends the output quietly, as other Unix tools do
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print("usage: topology_table.py <archive-dir | topology.json>\n\n" + (__doc__ or "").strip())
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit("usage: topology_table.py <archive-dir | topology.json>")
    main(sys.argv[1])
