#!/usr/bin/env python3
"""A static site of the memhier archives under results/ (docs/site.md).

usage: python3 scripts/site.py [RESULTS] [-o SITE] [--compare MEMHIER_COMPARE] [--vendor NODE_MODULES]

Writes SITE/index.html (every archive by architecture, GPU and driver, newest first, with its
headline figures and the gate verdict against the previous archive of the same GPU),
SITE/archive/<id>.html (the topology as tables, from report.md, and the archive's curves drawn in
the browser), SITE/compare.html (two archives: memhier-compare's headline and their curves
overlaid) and SITE/data/ (each archive's plot data as gzip-compressed JSON in a JS file, so that
the pages work from file:// as well as from any static host). The plots are drawn by uPlot, the one
plotting library, copied from npm at the version scripts/site/package-lock.json pins.

  RESULTS            results directory with index.json (default results)
  -o SITE            output directory (default site); replaced whole
  --compare PATH     memhier-compare binary: gate verdicts and the compare pages' headlines are
                     computed at build time (without it the pages say that they were not)
  --vendor DIR       a node_modules directory holding uplot (default scripts/site/node_modules;
                     when absent, `npm ci` installs the pinned version there)

A broken archive (missing or unreadable topology.json, bench.json or directory) gets a page that
says what is wrong; the build goes on. Exit status: 0, 2 on bad input (no index.json, no uplot).
"""
import argparse
import base64
import concurrent.futures
import gzip
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import archive_pack  # noqa: E402  (scripts/archive_pack.py)
import plot  # noqa: E402  (scripts/plot.py: bench.json loading and trace reading)

ASSETS = os.path.join(HERE, "site")
# The plot families, in the order the pages show them (site.js reads the names from the manifest).
FAMILIES = {"pchase": "P-chase: latency and miss rate vs footprint", "tlb": "TLB steps", "bandwidth": "Bandwidth sweeps",
            "bank_conflict": "Shared-memory bank-conflict law", "spectrum": "Latency spectrum",
            "outstanding": "Outstanding-request ramps"}
# The load path of each P-chase path and the caches whose edges are marked on its curves.
PATH_CACHES = {"global_ca": ["l1", "l2"], "ldg": ["readonly", "l2"], "texture": ["texture", "l2"],
               "global_cg": ["l2"], "constant": ["constant_l1", "constant_l15"], "shared": []}


def die(msg, code=2):
    print("site.py: " + msg, file=sys.stderr)
    sys.exit(code)


def esc(x):
    return html.escape(str(x), quote=True)


def archive_id(path):
    return re.sub(r"[^A-Za-z0-9._-]", "_", path)


# ------------------------------------------------------------------------------------------------
# Formatting: every figure the pages print, in the unit its magnitude calls for (the plots' axes are
# the browser's, site.js). topology.json's device values are strings in memhier-topology/1 and JSON
# numbers and booleans in /2; both are read.


def num(v):
    """A number from a JSON number or a numeric string; None for anything else (booleans too)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            try:
                f = float(v.strip())
            except ValueError:
                return None
            return f if math.isfinite(f) else None
    return None


def flag(v):
    """A boolean from JSON true/false or the strings "true"/"false"; None otherwise."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    return None


def sig(v):
    """A scaled value (1 <= |v| < 1024 mostly): 2 decimals below 10, 1 below 100, none above."""
    s = "%.2f" % v if abs(v) < 10 else "%.1f" % v if abs(v) < 100 else "%.0f" % v
    return s.rstrip("0").rstrip(".") if "." in s else s


def fmt_bytes(v):
    v = num(v)
    if v is None:
        return "—"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= div:
            return "%s %s" % (sig(v / div), unit)
    return "%s B" % sig(v)


def fmt_num(v, unit=""):
    v = num(v)
    if v is None:
        return "—"
    s = ("%.1f" % v).rstrip("0").rstrip(".")
    return s + (" " + unit if unit else "")


def fmt_rate(v):
    """Bytes per second: TB/s, GB/s, MB/s or kB/s by magnitude (a host copy is 55 GB/s, not 0.055 TB/s)."""
    v = num(v)
    if v is None:
        return "—"
    for unit, div in (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if abs(v) >= div:
            return "%s %s" % (sig(v / div), unit)
    return "%s B/s" % sig(v)


def fmt_ways(w):
    """A cache's ways: a count (memhier-topology/2; l2_sets in /1), or a list by set (/1 always; /2's
    ways_per_set, only where the sets differ)."""
    if isinstance(w, list):
        counts = [c for c in (num(x) for x in w) if c is not None]
        if not counts:
            return "—"
        lo, hi = min(counts), max(counts)
        return "%d" % lo if lo == hi else "%d–%d (by set)" % (lo, hi)
    n = num(w)
    return "—" if n is None else "%d" % n


def ways_of(c):
    """A cache's ways: `ways`, or /2's `ways_per_set` where the sets differ (`ways` null)."""
    if not isinstance(c, dict):
        return None
    return c.get("ways_per_set") if c.get("ways") is None and isinstance(c.get("ways_per_set"), list) else c.get("ways")


def fmt_geometry(ways, sets):
    w, s = fmt_ways(ways), num(sets)
    if w == "—" and s is None:
        return "—"
    return "%s ways × %s sets" % (w if w != "—" else "?", "{:,}".format(s).replace(",", " ") if s is not None else "?")


def get(d, *keys):
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def headline(topo):
    """[(label, text)] of the figures the index shows, all from topology.json."""
    c = lambda name, key: get(topo, "caches", name, key)
    return [
        ("L1 size", fmt_bytes(c("l1", "size_bytes"))),
        ("L1 hit", fmt_num(c("l1", "hit_latency_cycles"), "cyc")),
        ("L2 size", fmt_bytes(c("l2", "size_bytes"))),
        ("L2 hit", fmt_num(c("l2", "hit_latency_cycles"), "cyc")),
        ("DRAM latency", fmt_num(get(topo, "global_memory", "dram_latency_cycles"), "cyc")),
        ("DRAM read", fmt_rate(get(topo, "global_memory", "peak_read_bytes_per_second"))),
        ("L2 bandwidth", fmt_rate(get(topo, "l2_bandwidth", "peak_bytes_per_second"))),
    ]


def geometry(topo):
    """[(label, text)]: the sets and ways the archive page adds to the headline."""
    return [
        ("L1 geometry", fmt_geometry(ways_of(get(topo, "caches", "l1")), get(topo, "caches", "l1", "sets"))),
        ("L2 geometry", fmt_geometry(get(topo, "l2_sets", "ways"), get(topo, "l2_sets", "sets"))),
        ("SMs", fmt_num(get(topo, "device", "sm_count"))),
        ("clock throttled", {True: "yes", False: "no"}.get(flag(get(topo, "device", "sm_clock_throttled")), "—")),
    ]


def wall_text(topo):
    w = num(get(topo, "device", "characterize_wall_seconds"))
    return "—" if w is None else "%s s" % sig(w)


# ------------------------------------------------------------------------------------------------
# Markdown (report.md) to HTML: the subset analysis/report writes (headings, tables, lists, code)


def md_inline(text):
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) >= 2:
            out.append("<code>%s</code>" % esc(p[1:-1]))
            continue
        p = esc(p)
        p = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", p)
        p = re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r'<a href="\2">\1</a>', p)
        p = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r"\1", p)  # links into the archive (plots/): text only
        out.append(p)
    return "".join(out)


def md_cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def markdown(text):
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>%s</pre>" % esc("\n".join(lines[i + 1:j])))
            i = j + 1
            continue
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m:
            level = min(6, len(m.group(1)) + 1)  # the page's own h1 stays the only h1
            out.append("<h%d>%s</h%d>" % (level, md_inline(m.group(2)), level))
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?[\s:|-]+\|[\s:|-]*$", lines[i + 1]):
            head = md_cells(line)
            aligns = ["right" if c.endswith(":") else "left" for c in md_cells(lines[i + 1])]
            rows, j = [], i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append(md_cells(lines[j]))
                j += 1
            al = lambda k: ' style="text-align:right"' if k < len(aligns) and aligns[k] == "right" else ""
            t = ["<table class=md><thead><tr>%s</tr></thead><tbody>" %
                 "".join("<th%s>%s</th>" % (al(k), md_inline(c)) for k, c in enumerate(head))]
            for r in rows:
                t.append("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (al(k), md_inline(c)) for k, c in enumerate(r)))
            out.append("".join(t) + "</tbody></table>")
            i = j
            continue
        if re.match(r"\s*([-*]|\d+\.)\s+", line):
            items, j = [], i
            while j < len(lines) and (re.match(r"\s*([-*]|\d+\.)\s+", lines[j]) or
                                      (lines[j].startswith("  ") and lines[j].strip() and items)):
                if re.match(r"\s*([-*]|\d+\.)\s+", lines[j]):
                    items.append(re.sub(r"^\s*([-*]|\d+\.)\s+", "", lines[j]))
                else:
                    items[-1] += " " + lines[j].strip()
                j += 1
            out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % md_inline(x) for x in items))
            i = j
            continue
        if not line.strip():
            i += 1
            continue
        para, j = [], i
        while j < len(lines) and lines[j].strip() and not re.match(r"(#{1,6}\s|\s*\||```|\s*([-*]|\d+\.)\s)", lines[j]):
            para.append(lines[j].strip())
            j += 1
        if not para:  # a line no rule took: keep it as text
            para, j = [line.strip()], i + 1
        out.append("<p>%s</p>" % md_inline(" ".join(para)))
        i = j
    return "\n".join(out)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def report_sections(text):
    """report.md split at its '## ' headings outside code blocks: (intro, [(title, body)]); the
    intro without the report's own '# ' title (the page has its own)."""
    intro, sections, fence = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and re.match(r"##\s", line):
            sections.append((line[2:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        elif not re.match(r"#\s", line):
            intro.append(line)
    return "\n".join(intro), [(t, "\n".join(b)) for t, b in sections]


# ------------------------------------------------------------------------------------------------
# Plot data: one spec per plot, from bench.json (and traces) like scripts/plot.py, edges from the topology


# A bandwidth plot of more series than this draws its best few (the highest peaks) at first; the
# legend lists them all, and the others are a click away.
MAX_SHOWN = 12
BEST_SHOWN = 6


def spec(pid, family, title, xlabel, ylabel, series, kind="line", xscale="linear", xfmt="num", marks=None,
         categories=None, note="", hmarks=None, best=False):
    """One plot. marks: vertical lines the analyzer inferred ({x, kind, label}); hmarks: horizontal
    lines ({y, kind, label}, e.g. the theoretical peak); best: draw the BEST_SHOWN series of the
    highest peaks when there are more than MAX_SHOWN (the rest are listed, hidden)."""
    series = [s for s in series if s["x"]]
    shown = None
    if best and len(series) > MAX_SHOWN:
        peak = lambda i: max((y for y in series[i]["y"] if y is not None), default=float("-inf"))
        shown = sorted(sorted(range(len(series)), key=peak, reverse=True)[:BEST_SHOWN])
    return {"id": pid, "family": family, "title": title, "xlabel": xlabel, "ylabel": ylabel, "kind": kind,
            "xscale": xscale, "xfmt": xfmt, "marks": marks or [], "hmarks": hmarks or [], "categories": categories,
            "note": note, "shown": shown, "series": series,
            "points": sum(sum(1 for y in s["y"] if y is not None) for s in series)}


def natural(text):
    """Sort key: the numbers in a label by value ("stride 2 MiB" before "stride 16 MiB")."""
    return [(0, float(t), "") if re.fullmatch(r"\d+(\.\d+)?", t) else (1, 0.0, t) for t in re.split(r"(\d+(?:\.\d+)?)", text) if t]


def sweep(entries, key_fn, x_fn, y_fn, min_points=2):
    """[(key, xs, ys)] sorted by key; one point per entry (keys must make x unique in a series)."""
    out = {}
    for e in entries:
        x, y = x_fn(e), y_fn(e)
        if x is None or y is None:
            continue
        out.setdefault(key_fn(e), {})[x] = y
    res = []
    for k in sorted(out, key=lambda k: natural(repr(k))):
        pts = sorted(out[k].items())
        if len(pts) >= min_points:
            res.append((k, [p[0] for p in pts], [p[1] for p in pts]))
    return res


def rest_key(e, *drop):
    return tuple((k, v) for k, v in e.params.items() if k not in drop)


def rest_label(key):
    return " ".join("%s=%s" % kv for kv in key) or "all"


def cache_marks(topo, caches, lo, hi):
    """Capacity and onset of each cache, as vertical marks where they fall in [lo, hi]."""
    marks = []
    for name in caches:
        c = get(topo, "caches", name) or {}
        by_co = c.get("size_bytes_by_carveout") if isinstance(c.get("size_bytes_by_carveout"), dict) else None
        if by_co:
            vals = [("capacity", "carveout %s %%" % co, v) for co, v in by_co.items()]
            vals += [("onset", "carveout %s %%" % co, v)
                     for co, v in (c.get("onset_size_bytes_by_carveout") or {}).items()]
        else:
            vals = [("capacity", "", c.get("size_bytes")), ("onset", "", c.get("onset_size_bytes"))]
        for what, extra, v in vals:
            if isinstance(v, (int, float)) and lo <= v <= hi:
                marks.append({"x": v, "kind": what, "label": "%s %s%s" % (name, what, " (%s)" % extra if extra else "")})
    return marks


def pchase_specs(entries, topo):
    out = []
    order = list(PATH_CACHES)
    for path in sorted({e.p("path", "?") for e in entries}, key=lambda p: (order.index(p) if p in order else len(order), p)):
        cap = [e for e in entries if e.p("path", "?") == path and e.p("mode") in ("count", "classic")]
        key = lambda e: (e.p("mode"), e.pn("stride"), e.p("carveout", "-"), e.p("warm", "1"))
        lab = lambda k: "%s stride %s B%s%s" % (k[0], k[1], "" if k[2] == "-" else " carveout %s%%" % k[2],
                                                "" if k[3] == "1" else " cold")
        lat = sweep(cap, key, lambda e: e.pn("bytes"), plot.counter("latency_cycles"))
        if not lat:
            continue
        xs = [x for _, s, _ in lat for x in s]
        marks = cache_marks(topo, PATH_CACHES.get(path, []), min(xs), max(xs))
        out.append(spec("pchase_%s_latency" % path, "pchase", "P-chase %s: latency vs footprint" % path,
                        "footprint", "latency (cycles)",
                        [{"label": lab(k), "x": x, "y": y} for k, x, y in lat],
                        xscale="log", xfmt="bytes", marks=marks,
                        note="Dotted lines: the capacity and where misses begin (onset) that the analyzer inferred "
                             "(topology.json), where they fall within the footprints measured."))
        mr = sweep(cap, key, lambda e: e.pn("bytes"), plot.counter("miss_rate"))
        if mr:
            out.append(spec("pchase_%s_miss_rate" % path, "pchase", "P-chase %s: miss rate vs footprint" % path,
                            "footprint", "miss rate", [{"label": lab(k), "x": x, "y": y} for k, x, y in mr],
                            xscale="log", xfmt="bytes", marks=marks))
    return out


def tlb_specs(entries, topo):
    out = []
    for alloc in sorted({e.p("alloc", "") for e in entries}):
        es = [e for e in entries if e.p("alloc", "") == alloc and e.pn("seed", 0) == 0]
        ser = sweep(es, lambda e: e.pn("stride"), lambda e: e.pn("bytes"), plot.counter("latency_cycles"))
        if not ser:
            continue
        xs = [x for _, s, _ in ser for x in s]
        marks = [m for m in cache_marks(topo, ["l1_tlb", "l2_tlb", "l3_tlb"], min(xs), max(xs)) if m["kind"] == "capacity"]
        for m in marks:
            m["label"] = m["label"].replace("capacity", "reach")
        out.append(spec("tlb_%s" % (alloc or "sweep"), "tlb", "TLB (%s): latency vs footprint" % (alloc or "32-bit sweep"),
                        "footprint", "latency (cycles)",
                        [{"label": "stride %s" % fmt_bytes(k), "x": x, "y": y} for k, x, y in ser],
                        xscale="log", xfmt="bytes", marks=marks,
                        note="Dotted lines: the total reach of each TLB level (entries × reach per entry, topology.json)."))
    return out


def throughput_specs(fam, entries, ctx):
    out = []
    gb = lambda e: None if e.counters.get("bytes_per_second") is None else e.counters["bytes_per_second"] / 1e9
    key = next((k for k in plot.WS_KEYS if len({e.pn(k) for e in entries if e.pn(k) is not None}) >= 2), None)
    if key:
        per_clk = any("bytes_per_clock_per_sm" in e.counters for e in entries)
        yfn = plot.counter("bytes_per_clock_per_sm") if per_clk else gb
        ser = sweep(entries, lambda e: rest_key(e, key), lambda e: e.pn(key), yfn)
        if ser:
            out.append(spec("%s_vs_working_set" % fam, "bandwidth", "%s: bandwidth vs working-set size" % fam,
                            "working set", "bytes/clock/SM" if per_clk else "GB/s",
                            [{"label": rest_label(k), "x": x, "y": y} for k, x, y in ser], xscale="log", xfmt="bytes",
                            best=True))
    if len({e.pn("ctas") for e in entries if e.pn("ctas") is not None}) >= 2:
        panels = {}
        for e in entries:
            if key and e.pn(key) is not None:
                continue  # those are the working-set sweep's
            panels.setdefault((e.p("kind", ""), e.p("width", "")), []).append(e)
        for (kind, width), es in sorted(panels.items()):
            ser = sweep(es, lambda e: rest_key(e, "ctas", "kind", "width"), lambda e: e.pn("ctas"), gb)
            if not ser:
                continue
            what = " ".join(x for x in (kind, "width %s B" % width if width else "") if x)
            peak = num(ctx.get("theoretical_dram_bytes_per_second")) if fam == "gmem_throughput" else None
            hm = [{"y": peak / 1e9, "kind": "peak", "label": "theoretical DRAM peak %s" % fmt_rate(peak)}] if peak else []
            out.append(spec("%s_vs_ctas%s" % (fam, "_" + "_".join(x for x in (kind, width) if x) if what else ""),
                            "bandwidth", "%s%s: bandwidth vs CTAs per SM" % (fam, " " + what if what else ""),
                            "CTAs", "GB/s", [{"label": rest_label(k), "x": x, "y": y} for k, x, y in ser],
                            xscale="log", hmarks=hm, best=True,
                            note="Dash-dot line: the theoretical DRAM peak (bench.json's context: 2 × memory clock × bus "
                                 "width)." if peak else ""))
    return out


def smem_specs(entries, topo):
    out = []
    ser = sweep([e for e in entries if e.family == "smem_bank_conflict"], lambda e: e.p("width", ""),
                lambda e: e.pn("stride"), plot.counter("latency_cycles"))
    if ser:
        law = get(topo, "shared_memory", "conflict_law") or {}
        note = ""
        if law.get("cycles_per_wavefront") is not None:
            note = "Law (topology.json): %s; base %s cycles by width, %.2f cycles per wavefront (r² %.4f, %s samples)." % (
                law.get("model", ""), ", ".join("%s B: %.1f" % kv for kv in sorted((law.get("base_cycles_by_width") or {}).items(),
                                                                                  key=lambda kv: int(kv[0]))),
                law["cycles_per_wavefront"], law.get("r2") or 0, law.get("samples"))
        out.append(spec("smem_bank_conflict", "bank_conflict", "shared-memory bank conflicts: latency vs stride",
                        "stride (elements)", "latency (cycles)",
                        [{"label": "%s-byte access" % k, "x": x, "y": y} for k, x, y in ser], note=note))
    tp = [e for e in entries if e.family == "smem_throughput"]
    per_clk = any("bytes_per_clock_per_sm" in e.counters for e in tp)
    yfn = plot.counter("bytes_per_clock_per_sm") if per_clk else (lambda e: (e.counters.get("bytes_per_second") or 0) / 1e9 or None)
    ser = sweep(tp, lambda e: (e.p("width", ""), e.pn("ilp", 0), e.pn("ctas_per_sm", 0)),
                lambda e: plot.active_warps(e, {}), yfn)
    if ser:
        out.append(spec("smem_throughput_vs_warps", "bandwidth", "shared memory: throughput vs active warps per SM",
                        "active warps per SM", "bytes/clock/SM" if per_clk else "GB/s",
                        [{"label": "width %s B ILP %s, %s CTAs/SM" % k, "x": x, "y": y} for k, x, y in ser], xscale="log",
                        best=True))
    return out


def spectrum_specs(entries, trace_dir):
    out = []
    for e in entries:
        path = e.p("path", "?")
        pats = [(p, e.counters["%s_cycles" % p]) for p in plot.SPECTRUM_LABELS if "%s_cycles" % p in e.counters]
        pats += sorted(((k[:-7], v) for k, v in e.counters.items() if re.fullmatch(r"revisit_\d+_cycles", k)),
                       key=lambda kv: int(kv[0][8:]))
        if pats:
            out.append(spec("spectrum_%s_patterns" % path, "spectrum", "latency spectrum %s: median latency by pattern" % path,
                            "pattern", "median latency (cycles)",
                            [{"label": "median", "x": list(range(len(pats))), "y": [v for _, v in pats]}],
                            kind="bars", categories=[p for p, _ in pats]))
        tp = plot.find_trace(trace_dir, e.canonical()) if trace_dir else None
        tr = plot.read_trace(tp) if tp else None
        if tr and tr[1] and len(tr[1][0]) >= 3:
            names = dict(kv.split("=", 1) for kv in tr[0].get("labels", "").split() if "=" in kv)
            groups = {}
            for k, r in enumerate(tr[1]):
                groups.setdefault(r[2], ([], []))
                groups[r[2]][0].append(k)
                groups[r[2]][1].append(r[1])
            out.append(spec("spectrum_%s_trace" % path, "spectrum", "latency spectrum %s: every access" % path,
                            "access number", "latency (cycles)",
                            [{"label": names.get(str(lab), str(lab)), "x": g[0], "y": g[1]} for lab, g in sorted(groups.items())],
                            kind="points"))
    return out


def outstanding_specs(entries, trace_dir):
    by_pattern = {}
    for e in entries:
        if "pattern" not in e.params:
            continue
        tp = plot.find_trace(trace_dir, e.canonical()) if trace_dir else None
        tr = plot.read_trace(tp) if tp else None
        if tr and tr[1]:
            src = e.params.get("source", tr[0].get("source", "l2"))
            by_pattern.setdefault(e.params["pattern"], []).append((src, int(e.params.get("loads", 1)), tr[1]))
    out = []
    for pattern, ser in sorted(by_pattern.items()):
        ser.sort(key=lambda s: (s[0] != "l2", s[1]))
        out.append(spec("outstanding_%s" % pattern, "outstanding", "outstanding requests, pattern %s: latency vs threads" % pattern,
                        "threads on one SM", "latency (cycles)",
                        [{"label": "%d load%s, %s" % (loads, "" if loads == 1 else "s", src),
                          "x": [r[0] for r in rows], "y": [r[1] for r in rows]} for src, loads, rows in ser]))
    return out


def archive_plots(entries, ctx, trace_dir, topo):
    fam = lambda f: [e for e in entries if e.family == f]
    specs = pchase_specs(fam("pchase"), topo)
    specs += tlb_specs(fam("tlb"), topo)
    for f in ("gmem_throughput", "l1_throughput", "l2_throughput"):
        specs += throughput_specs(f, fam(f), ctx)
    specs += smem_specs(entries, topo)
    specs += spectrum_specs(fam("latency_spectrum"), trace_dir)
    specs += outstanding_specs(fam("outstanding_requests"), trace_dir)
    order = list(FAMILIES)
    return sorted(specs, key=lambda p: order.index(p["family"]) if p["family"] in order else len(order))


# ------------------------------------------------------------------------------------------------
# Archives


class Archive:
    def __init__(self, root, item):
        self.item, self.path = item, item["path"]
        self.id = archive_id(self.path)
        self.dir = os.path.join(root, self.path)
        self.utc = item.get("utc", "")
        self.problems, self.topo, self.report, self.plots, self.ctx = [], None, None, [], {}
        self.prev = None  # the previous usable archive of the same GPU
        self.gate = None  # the compare result against prev

    @property
    def usable(self):
        return self.topo is not None

    def load(self):
        if not os.path.isdir(self.dir):
            self.problems.append("the archive directory %s is missing" % self.path)
            return self
        tp = os.path.join(self.dir, "topology.json")
        if not os.path.exists(tp):
            self.problems.append("topology.json is missing: the analysis did not finish, so there are no "
                                 "topology tables, inferred edges, headline figures or gate verdict")
        else:
            try:
                with open(tp) as f:
                    t = json.load(f)
                if not isinstance(t, dict) or not isinstance(t.get("caches"), dict):
                    raise ValueError("not a memhier-topology document (no caches)")
                self.topo = t
            except (OSError, ValueError) as ex:
                self.problems.append("topology.json is not readable (%s): no topology tables, inferred edges, "
                                     "headline figures or gate verdict" % str(ex)[:200])
        rp = os.path.join(self.dir, "report.md")
        if os.path.exists(rp):
            try:
                with open(rp, encoding="utf-8", errors="replace") as f:
                    self.report = f.read()
            except OSError as ex:
                self.problems.append("report.md is not readable (%s)" % ex)
        else:
            self.problems.append("report.md is missing")
        bench = archive_pack.bench_path(self.dir)
        try:
            if not bench:
                raise ValueError("no bench.json or bench.json.gz")
            j = archive_pack.load_json(bench)
            if not isinstance(j, dict) or not isinstance(j.get("benchmarks"), list) or "memhier_version" not in (j.get("context") or {}):
                raise ValueError("not memhier-bench's Google Benchmark JSON")
            _, self.ctx, entries, trace_dir = plot.load_archive(self.dir)
            self.plots = archive_plots(entries, self.ctx, trace_dir, self.topo or {})
        except (OSError, ValueError, SystemExit) as ex:
            self.problems.append("the measurements are not readable (%s): no plots" % (str(ex)[:200] or "bench.json"))
        return self

    def summary(self):
        it = self.item
        return {"id": self.id, "path": self.path, "gpu": it.get("gpu"), "gpu_slug": it.get("gpu_slug"), "sm": it.get("sm"),
                "driver": it.get("driver"), "utc": self.utc, "plan": it.get("plan"), "problems": self.problems,
                "usable": self.usable}


def run_compare(tool, a, b, ignore_device=False):
    cmd = [tool, "--format=json"] + (["--ignore-device"] if ignore_device else []) + [a.dir, b.dir]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as ex:
        return {"error": "memhier-compare did not run: %s" % ex, "exit_code": None}
    try:
        d = json.loads(p.stdout)
    except ValueError:
        return {"error": "memhier-compare exit %d: %s" % (p.returncode, (p.stderr.strip() or "no output")[:300]),
                "exit_code": p.returncode}
    d["exit_code"] = p.returncode
    d.pop("detail", None)
    for side, arc in (("base", a), ("new", b)):
        d.setdefault(side, {})["id"] = arc.id
    d["ignore_device"] = ignore_device
    return present_compare(d)


# Gate results without verdicts: side by side (different GPUs, --ignore-device), refused, no verdict.
NO_VERDICT = ("none", "refused", "refused_conditions", "no_verdict")
# The verdicts that carry a colour, where the gate judged. Any other (INFO, NOT-COMPARABLE,
# ANALYZER-CHANGED, one a later memhier-compare adds) is shown in the text's own colour.
TONES = {"PASS": "good", "SAME": "good", "FAIL": "bad", "WORSE": "bad", "CHANGED": "bad", "BETTER": "better"}


def judged(c):
    """Whether memhier-compare gave verdicts for this pair (not side by side, refused or without one)."""
    return bool(c) and "error" not in c and (c.get("gate") or {}).get("result") not in NO_VERDICT


def tone(verdict, has_verdicts=True):
    return TONES.get(verdict, "") if has_verdicts else ""


def verdict_text(c):
    if c is None:
        return "—"
    if "error" in c:
        return "no verdict (%s)" % c["error"]
    g = c.get("gate") or {}
    r = g.get("result", "?")
    if r == "pass":
        return "PASS"
    if r == "fail":
        what = []
        if g.get("worse"):
            what.append("%d worse" % len(g["worse"]))
        if g.get("structural_changes"):
            what.append("%d structural changed" % len(g["structural_changes"]))
        return "FAIL (%s)" % ", ".join(what) if what else "FAIL"
    return r.upper().replace("_", " ")


def value_text(fid, kind, v):
    """A figure's value as the compare page prints it: its unit scaled to its magnitude."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        if "ways" in fid.rsplit(".", 1)[-1]:
            return fmt_ways(v)
        if len(v) > 2 and all(x == v[0] for x in v):
            return "%s (each of %d)" % (value_text(fid, kind, v[0]), len(v))
        t = json.dumps(v, ensure_ascii=False)
        return t if len(t) <= 60 else t[:57] + "…]"
    if isinstance(v, dict):
        t = json.dumps(v, ensure_ascii=False)
        return t if len(t) <= 60 else t[:57] + "…}"
    if "bytes_per_second" in fid:
        return fmt_rate(v)
    if "per_clock" in fid:
        return "%s B/clk" % sig(v)
    if kind == "latency" or fid.endswith("_cycles"):
        return fmt_num(v, "cyc")
    if "bytes" in fid:
        return fmt_bytes(v)
    return ("%d" % v) if float(v).is_integer() else ("%.4g" % v)


def change_text(f, side):
    """new/base between two GPUs (side by side); else the change: cycles for a latency, % for the rest."""
    b, n = num(f.get("base")), num(f.get("new"))
    both = b is not None and n is not None and not isinstance(f.get("base"), str) and not isinstance(f.get("new"), str)
    if side:
        if both and b != 0:
            return "×%.2f" % (n / b)
        if f.get("base") == f.get("new"):
            return "="
        return "" if f.get("base") is None or f.get("new") is None else "differs"
    if both:
        if n == b:
            return ""
        if f.get("kind") == "latency":
            return "%+.1f cyc" % (n - b)
        if num(f.get("change")) is None:
            return "new"
        return "0.0 %" if abs(100 * f["change"]) < 0.05 else "%+.1f %%" % (100 * f["change"])
    if f.get("base") is None or f.get("new") is None or f.get("base") == f.get("new"):
        return ""
    return "differs"


def present_compare(c):
    """memhier-compare's JSON with what the page prints added: whether it judged, the tones, the
    values in their units. The page formats nothing itself."""
    if "error" in c:
        return c
    has = judged(c)
    side = (c.get("gate") or {}).get("result") == "none"
    c["verdicts"] = has
    c["side_by_side"] = side
    c["gate_tone"] = tone(verdict_text(c).split(" ")[0], has)
    for f in c.get("figures") or []:
        f["tone"] = tone(f.get("verdict"), has)
        f["base_text"] = value_text(f.get("id", ""), f.get("kind"), f.get("base"))
        f["new_text"] = value_text(f.get("id", ""), f.get("kind"), f.get("new"))
        f["change_text"] = change_text(f, side)
        f["differs"] = f.get("base") != f.get("new")
    return c


# ------------------------------------------------------------------------------------------------
# Pages


def data_js(var, key, obj):
    blob = base64.b64encode(gzip.compress(json.dumps(obj, separators=(",", ":")).encode(), mtime=0)).decode()
    return "(window.%s = window.%s || {})[%s] = \"%s\";\n" % (var, var, json.dumps(key), blob)


def page(title, body, depth=0, kind="", attrs=""):
    up = "../" * depth
    return """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<link rel="stylesheet" href="%svendor/uPlot.min.css"><link rel="stylesheet" href="%ssite.css">
</head><body data-page="%s" data-root="%s" %s>
<nav><a href="%sindex.html">memhier results</a> · <a href="%scompare.html">compare two archives</a></nav>
%s
<script src="%sdata/manifest.js"></script><script src="%svendor/uPlot.iife.min.js"></script><script src="%ssite.js"></script>
</body></html>
""" % (esc(title), up, up, kind, up, attrs, up, up, body, up, up, up)


def compare_href(a, b, depth=0):
    return "%scompare.html?a=%s&amp;b=%s" % ("../" * depth, a, b)


def figures_html(pairs):
    """(label, value) pairs as a grid of small boxes (the summary's headline figures)."""
    return '<dl class="figures">%s</dl>' % "".join('<div><dt>%s</dt><dd>%s</dd></div>' % (esc(k), esc(v)) for k, v in pairs)


def gate_html(c, href, against=""):
    v = verdict_text(c)
    t = tone(v.split(" ")[0], judged(c))
    return '<a class="verdict%s" href="%s">%s</a>%s' % (" tone-" + t if t else "", href, esc(v),
                                                       " vs %s" % esc(against) if against else "")


def index_page(archives, cmp_note, cross):
    rows = []
    groups = {}
    for a in archives:
        groups.setdefault(a.item.get("sm", "?"), {}).setdefault((a.item.get("gpu", "?"), a.item.get("gpu_slug", "")), {}) \
              .setdefault(a.item.get("driver", "?"), []).append(a)
    heads = [h for h, _ in headline({})]
    for sm in sorted(groups):
        rows.append("<h2>%s</h2>" % esc(sm))
        for (gpu, slug_), drivers in sorted(groups[sm].items()):
            rows.append("<h3>%s</h3>" % esc(gpu))
            for drv in sorted(drivers, reverse=True):
                rows.append("<h4>driver %s</h4>" % esc(drv))
                rows.append("<table class=archives><thead><tr><th>archive (UTC)</th><th>plan</th><th>wall</th>%s"
                            "<th>gate vs previous of this GPU</th></tr></thead><tbody>" % "".join("<th>%s</th>" % esc(h) for h in heads))
                for a in sorted(drivers[drv], key=lambda a: a.utc, reverse=True):
                    figs = headline(a.topo) if a.usable else [(h, "—") for h in heads]
                    if not a.usable:
                        gate = '<span class="verdict tone-bad">broken: %s</span>' % esc(a.problems[0] if a.problems else "")
                    elif a.prev is None:
                        gate = "first archive of this GPU"
                    elif a.gate is None:
                        gate = 'not computed (memhier-compare not available) · <a href="%s">curves</a>' % compare_href(a.prev.id, a.id)
                    else:
                        gate = gate_html(a.gate, compare_href(a.prev.id, a.id), a.prev.utc)
                    rows.append('<tr data-archive="%s"><td><a href="archive/%s.html">%s</a></td><td>%s</td><td>%s</td>%s<td>%s</td></tr>' % (
                        esc(a.id), esc(a.id), esc(a.utc), esc(a.item.get("plan", "")), esc(wall_text(a.topo)),
                        "".join("<td>%s</td>" % esc(v) for _, v in figs), gate))
                rows.append("</tbody></table>")
    cross_html = ""
    if cross:
        cross_html = "<h2>Across GPUs</h2><ul>%s</ul>" % "".join(
            '<li><a href="%s">%s vs %s</a> (newest of each, <code>--ignore-device</code>: side by side, no verdicts)</li>' % (
                compare_href(a.id, b.id), esc(a.item.get("gpu")), esc(b.item.get("gpu"))) for a, b in cross)
    body = """<h1>memhier results</h1>
<p>Every archive of <code>results/</code> (results/index.json), by architecture, GPU and driver, newest first.
Figures from each archive's topology.json; the gate verdict is memhier-compare's against the previous archive of the
same GPU (docs/ci.md). Click an archive for its topology and curves, a verdict for the comparison.</p>
%s
%s
%s""" % (cmp_note, "\n".join(rows), cross_html)
    return page("memhier results", body, 0, "index")


def toc_html(families, sections):
    fam = "".join('<li><a href="#family-%s">%s</a> <span class="count">%d</span></li>' % (esc(f), esc(FAMILIES.get(f, f)), n)
                  for f, n in families)
    sec = "".join('<li><a href="#topo-%s">%s</a></li>' % (esc(slug(t)), md_inline(t)) for t, _ in sections)
    return ('<nav id="toc" aria-label="contents"><h2>Contents</h2><ol>'
            '<li><a href="#summary">Summary</a></li>'
            '<li><a href="#topology">Topology</a>%s</li>'
            '<li><a href="#curves">Curves</a>%s</li></ol>'
            '<p><button type="button" class="expand-all">expand all</button> '
            '<button type="button" class="collapse-all">collapse all</button></p></nav>') % (
        "<ol>%s</ol>" % sec if sec else "", "<ol>%s</ol>" % fam if fam else "")


def archive_page(a, cmp_note):
    it = a.item
    msgs = ""
    if a.problems:
        msgs = '<div class="problem" role="alert"><strong>%s</strong><ul>%s</ul></div>' % (
            "This archive is broken." if not a.usable else "Parts of this archive are missing.",
            "".join("<li>%s</li>" % esc(p) for p in a.problems))
    intro, sections = report_sections(a.report or "")
    summary_md = next((b for t, b in sections if t.lower() == "summary"), "")
    sections = [(t, b) for t, b in sections if t.lower() != "summary"]
    figs = figures_html(headline(a.topo) + [("wall", wall_text(a.topo))] + geometry(a.topo)) if a.usable else ""
    links = ""
    if a.prev:
        links = '<p class="links"><a href="%s">compare with the previous archive of this GPU (%s)</a>%s</p>' % (
            compare_href(a.prev.id, a.id, 1), esc(a.prev.utc),
            " — gate: " + gate_html(a.gate, compare_href(a.prev.id, a.id, 1)) if a.gate else "")
    families = []
    for p in a.plots:
        if not families or families[-1][0] != p["family"]:
            families.append([p["family"], 0])
        families[-1][1] += 1
    if a.report:
        topo = "".join('<details class="section" id="topo-%s"><summary>%s</summary>%s</details>' % (
            esc(slug(t)), md_inline(t), markdown(b)) for t, b in sections)
    else:
        topo = '<p class="problem">No report.md in this archive.</p>'
    body = """<h1>%s <small>%s · driver %s · %s</small></h1>
<p class=path><code>results/%s</code> · plan %s</p>
%s<div class="top"><section id="summary"><h2>Summary</h2>%s%s%s%s%s</section>%s</div>
<section id="topology"><h2>Topology <small>(the archive's report.md)</small></h2>%s</section>
<section id="curves"><h2>Curves</h2><p>Drawn in your browser from the archive's bench.json and traces; open a family to
draw its plots (drag to zoom, double-click to reset, click a legend entry to hide or show it).</p>
<div class="line-key"></div><div id="plot-list"><p class="loading">loading the data…</p></div></section>""" % (
        esc(it.get("gpu", "?")), esc(it.get("sm", "")), esc(it.get("driver", "")), esc(a.utc), esc(a.path),
        esc(it.get("plan", "")), msgs, figs, markdown(intro), markdown(summary_md), links, cmp_note if a.prev else "",
        toc_html(families, sections), topo)
    return page("%s %s — memhier" % (it.get("gpu", "?"), a.utc), body, 1, "archive", 'data-archive="%s"' % esc(a.id))


def compare_page(cmp_note):
    body = """<h1>Compare two archives</h1>
<form id="picker">base <select id="pick-a" name="a"></select> new <select id="pick-b" name="b"></select>
<button type="submit">compare</button></form>
<p id="pairs-note">memhier-compare's verdicts are computed when the site is built, for the pairs listed below
(each archive against the previous one of its GPU, and the newest of each GPU against the newest of the others, with
<code>--ignore-device</code>: side by side, no verdicts); any two archives can be overlaid.</p>%s
<details id="pairs"><summary>the precomputed pairs and their gate verdicts</summary><ul id="pair-list"></ul></details>
<section id="headline"></section>
<section id="curves"><h2>Curves overlaid</h2><p>Open a family to draw its plots.
<button type="button" class="expand-all">expand all</button> <button type="button" class="collapse-all">collapse all</button></p>
<div class="line-key"></div><div id="plot-list"></div></section>""" % cmp_note
    return page("compare — memhier", body, 0, "compare")


# ------------------------------------------------------------------------------------------------


def vendor_uplot(vendor, out):
    with open(os.path.join(ASSETS, "package-lock.json")) as f:
        want = json.load(f)["packages"]["node_modules/uplot"]["version"]
    if vendor is None:
        vendor = os.path.join(ASSETS, "node_modules")
        if not os.path.exists(os.path.join(vendor, "uplot", "package.json")):
            print("site.py: installing uplot %s (npm ci in %s)" % (want, ASSETS), file=sys.stderr)
            try:
                subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", ASSETS], check=True,
                               stdout=sys.stderr)
            except (OSError, subprocess.CalledProcessError) as ex:
                die("uplot %s is not installed and npm ci failed (%s); give --vendor DIR" % (want, ex))
    pkg = os.path.join(vendor, "uplot", "package.json")
    try:
        with open(pkg) as f:
            have = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        die("%s: no uplot package (npm ci --prefix scripts/site)" % vendor)
    if have != want:
        die("%s: uplot %s, but scripts/site/package-lock.json pins %s" % (vendor, have, want))
    os.makedirs(os.path.join(out, "vendor"))
    for f in ("uPlot.iife.min.js", "uPlot.min.css"):
        shutil.copy(os.path.join(vendor, "uplot", "dist", f), os.path.join(out, "vendor", f))
    shutil.copy(os.path.join(vendor, "uplot", "LICENSE"), os.path.join(out, "vendor", "uPlot.LICENSE"))
    return have


def main():
    ap = argparse.ArgumentParser(description="A static site of the memhier archives (docs/site.md).")
    ap.add_argument("results", nargs="?", default="results", help="results directory with index.json (default results)")
    ap.add_argument("-o", "--output", default="site", help="output directory (default site; replaced whole)")
    ap.add_argument("--compare", help="memhier-compare binary (gate verdicts, compare headlines)")
    ap.add_argument("--vendor", help="node_modules directory holding uplot (default scripts/site/node_modules)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel memhier-compare runs")
    args = ap.parse_args()
    t0 = time.time()
    idx_path = os.path.join(args.results, "index.json")
    try:
        with open(idx_path) as f:
            idx = json.load(f)
        items = idx["archives"]
        if not isinstance(items, list):
            raise ValueError("archives is not a list")
    except (OSError, ValueError, KeyError, TypeError) as ex:
        die("%s: not an archive index (%s)" % (idx_path, ex))
    out = os.path.abspath(args.output)
    if os.path.exists(out):
        if not os.path.exists(os.path.join(out, "index.html")) and os.listdir(out):
            die("%s exists and is not a site (no index.html): not replacing it" % args.output)
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "archive"))
    os.makedirs(os.path.join(out, "data", "compare"))
    uplot_version = vendor_uplot(args.vendor, out)
    for f in ("site.js", "site.css"):
        shutil.copy(os.path.join(ASSETS, f), os.path.join(out, f))

    archives = [Archive(args.results, it) for it in items if isinstance(it, dict) and it.get("path")]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(lambda a: a.load(), archives))
    for sk in idx.get("skipped") or []:  # unreadable bench.json: listed by archive_index.py
        p = sk.get("path") if isinstance(sk, dict) else str(sk)
        if p:
            a = Archive(args.results, {"path": p, "gpu": "(unreadable archive)", "sm": p.split("/")[0]})
            a.problems.append("results/index.json lists it as skipped: %s" % (sk.get("reason", "unreadable") if isinstance(sk, dict) else "unreadable"))
            archives.append(a)

    # pairs: each usable archive against the previous usable one of its GPU; the newest of each GPU against the others
    by_gpu = {}
    for a in sorted(archives, key=lambda a: a.utc):
        if a.usable:
            a.prev = by_gpu.get(a.item.get("gpu_slug"))
            by_gpu[a.item.get("gpu_slug")] = a
    newest = sorted(by_gpu.values(), key=lambda a: a.item.get("gpu_slug", ""))
    cross = [(newest[i], newest[j]) for i in range(len(newest)) for j in range(i + 1, len(newest))]
    pairs = [(a.prev, a, False) for a in archives if a.prev] + [(a, b, True) for a, b in cross]
    tool = args.compare
    if tool and not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print("site.py: %s is not an executable: no gate verdicts" % tool, file=sys.stderr)
        why = "%s is not an executable file" % tool
        tool = None
    else:
        why = "scripts/site.py was run without --compare"
    results = {}
    if tool:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futs = {pool.submit(run_compare, tool, a, b, ign): (a, b) for a, b, ign in pairs}
            for fu, (a, b) in futs.items():
                results[(a.id, b.id)] = fu.result()
        cmp_note = ""
    else:
        cmp_note = ('<p class="problem" id="no-compare">memhier-compare was not available when this site was built '
                    '(%s): no gate verdicts and no comparison headlines; the curves can still be overlaid.</p>' % esc(why))
    for a in archives:
        if a.prev:
            a.gate = results.get((a.prev.id, a.id))
    for (ida, idb), c in results.items():
        with open(os.path.join(out, "data", "compare", "%s--%s.js" % (ida, idb)), "w") as f:
            f.write(data_js("MEMHIER_COMPARE", "%s--%s" % (ida, idb), c))
    for a in archives:
        with open(os.path.join(out, "data", a.id + ".js"), "w") as f:
            f.write(data_js("MEMHIER_DATA", a.id, {"id": a.id, "plots": a.plots}))
        with open(os.path.join(out, "archive", a.id + ".html"), "w") as f:
            f.write(archive_page(a, cmp_note))
    manifest = {"archives": [a.summary() for a in sorted(archives, key=lambda a: (a.item.get("gpu_slug", ""), a.utc), reverse=True)],
                "pairs": [{"a": a.id, "b": b.id, "ignore_device": ign, "computed": (a.id, b.id) in results,
                           "verdict": verdict_text(results.get((a.id, b.id))) if (a.id, b.id) in results else None}
                          for a, b, ign in pairs],
                "compare_available": bool(tool), "uplot": uplot_version, "families": FAMILIES}
    with open(os.path.join(out, "data", "manifest.js"), "w") as f:
        f.write("window.MEMHIER_SITE = %s;\n" % json.dumps(manifest, indent=1))
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(index_page(sorted(archives, key=lambda a: a.utc, reverse=True), cmp_note, cross))
    with open(os.path.join(out, "compare.html"), "w") as f:
        f.write(compare_page(cmp_note))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    broken = sum(1 for a in archives if not a.usable)
    print("site.py: %s: %d archives (%d broken), %d plots, %d comparisons, %.1f MB, %.1f s" % (
        args.output, len(archives), broken, sum(len(a.plots) for a in archives), len(results), size / 1e6, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
