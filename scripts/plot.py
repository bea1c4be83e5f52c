#!/usr/bin/env python3
"""Plots of one memhier archive (bench.json, traces/) as SVG files.

usage: python3 scripts/plot.py <archive-dir | bench.json> [-o plots-dir]

Writes into <archive>/plots/ (or -o) and prints every file it wrote. Families are found by the
name prefix of the benchmarks (family/key:value/...); a family this script has no special plot
for gets the generic one (each counter against each numeric parameter). Families absent from
the archive are skipped, so it works on any archive, real or simulated (--device sim:...).
docs/methodology.md section `compare` lists the plots.
Exit status: 0 (also when nothing was plottable), 2 on bad input, 3 when matplotlib is missing.
"""
import argparse
import io
import json
import math
import os
import re
import sys
from collections import OrderedDict, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import archive_pack  # noqa: E402  (scripts/archive_pack.py: plain, gzip and packed archive files)

RUNNER_SUFFIXES = {"iterations", "repeats", "threads", "min_time", "min_warmup_time"}
TIME_SUFFIXES = {"manual_time", "real_time", "process_time"}
STANDARD_KEYS = {"family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads",
                 "iterations", "real_time", "cpu_time"}
SPECTRUM_LABELS = ["first_far", "cold_far", "cold_near", "near_hit", "far_revisit", "far_new_line", "same_line"]
MAX_SERIES = 10


def die(msg, code=2):
    print("plot.py: " + msg, file=sys.stderr)
    sys.exit(code)


# ------------------------------------------------------------------------------------------------
# Loading


def parse_name(name):
    """'fam/k:v/...' -> (family, OrderedDict params), dropping Google Benchmark's suffixes."""
    parts = name.split("/")
    params = OrderedDict()
    for i, p in enumerate(parts[1:], start=1):
        if i == len(parts) - 1:
            for agg in ("_mean", "_median", "_stddev", "_cv"):
                if p.endswith(agg) and len(p) > len(agg):
                    p = p[: -len(agg)]
                    break
        if p in TIME_SUFFIXES:
            continue
        k, _, v = p.partition(":")
        if k in RUNNER_SUFFIXES:
            continue
        params[k] = v
    return parts[0], params


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return float(v)
        except (TypeError, ValueError):
            return None


class Entry:
    def __init__(self, name, family, params, counters):
        self.name, self.family, self.params, self.counters = name, family, params, counters

    def canonical(self):
        """The name as registered (what trace files are named from), without runner suffixes."""
        return self.family + "".join("/%s:%s" % kv if kv[1] != "" else "/" + kv[0] for kv in self.params.items())

    def p(self, key, default=None):
        return self.params.get(key, default)

    def pn(self, key, default=None):
        v = num(self.params.get(key))
        return default if v is None else v


def load_archive(path):
    if os.path.isdir(path):
        archive, bench = path, archive_pack.bench_path(path) or os.path.join(path, "bench.json")
    else:
        archive, bench = os.path.dirname(os.path.abspath(path)), path
    if not os.path.exists(bench):
        die("%s: no bench.json (not a memhier archive)" % path)
    try:
        j = archive_pack.load_json(bench)  # bench.json or bench.json.gz
    except (OSError, ValueError) as e:
        die("%s: not valid JSON (%s)" % (bench, e))
    if not isinstance(j, dict) or not isinstance(j.get("benchmarks"), list) or not isinstance(j.get("context"), dict):
        die("%s: not Google Benchmark JSON (no 'context' and 'benchmarks')" % bench)
    ctx = j["context"]
    if "memhier_version" not in ctx:
        die("%s: not written by memhier-bench (no memhier_version in the context)" % bench)
    # One sample per benchmark: the median of its repetitions (iteration runs), or its median/mean
    # aggregate when only aggregates were reported.
    runs, aggs = defaultdict(list), defaultdict(dict)
    for b in j["benchmarks"]:
        if not isinstance(b, dict) or not b.get("name"):
            continue
        if b.get("error_occurred") or b.get("skipped"):
            continue
        rn = b.get("run_name", b["name"])
        counters = {k: float(v) for k, v in b.items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in STANDARD_KEYS}
        if b.get("run_type") == "aggregate":
            aggs[rn][b.get("aggregate_name", "")] = counters
        else:
            runs[rn].append(counters)
    entries = []
    for rn in list(runs) + [r for r in aggs if r not in runs]:
        if rn in runs:
            samples = runs[rn]
            keys = set().union(*samples)
            counters = {k: median([s[k] for s in samples if k in s]) for k in keys}
        else:
            counters = aggs[rn].get("median") or aggs[rn].get("mean")
            if counters is None:
                continue
        fam, params = parse_name(rn)
        entries.append(Entry(rn, fam, params, counters))
    trace_dir = ctx.get("trace_dir") or "traces"
    if not os.path.isabs(trace_dir):
        trace_dir = os.path.join(os.path.dirname(os.path.abspath(bench)), trace_dir)
    return archive, ctx, entries, trace_dir


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def sanitize(name):
    return name.replace("/", "__").replace(":", "-")


def read_trace(where):
    """memhier-trace 1 (docs/formats.md): returns (header dict, list of rows of ints) or None.
    where: (trace directory, file name) as find_trace returns it (plain, .gz or packed)."""
    try:
        data = archive_pack.read_archived(*where)
    except (OSError, ValueError):
        return None
    if data is None:
        return None
    lines = data.decode(errors="replace").splitlines()
    if not lines or not lines[0].startswith("memhier-trace "):
        return None
    header, rows, in_data = {}, [], False
    for line in lines[1:]:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if in_data:
            if line == "end":
                return header, rows
            try:
                rows.append([int(x) for x in line.split()])
            except ValueError:
                return None
        elif line == "data":
            in_data = True
        else:
            k, _, v = line.partition(" ")
            header[k] = v.strip()
    return None  # truncated


def find_trace(trace_dir, bench_name):
    name = sanitize(bench_name) + ".trace"
    base = os.path.join(trace_dir, name)
    if os.path.exists(base) or os.path.exists(base + ".gz") or archive_pack.pack_for_dir(trace_dir):
        return (trace_dir, name)
    return None


# ------------------------------------------------------------------------------------------------
# Helpers


def compact_svg(text):
    """The same picture in fewer bytes: no metadata block, coordinates to 0.1 pt, one font name."""
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r"(?<![#\w])(-?\d+\.\d)\d+", r"\1", text)
    text = re.sub(r"font-family: 'DejaVu Sans'[^;\"]*", "font-family: 'DejaVu Sans', sans-serif", text)
    return re.sub(r"\n\s+", "\n", text)


class Out:
    def __init__(self, plt, outdir, ctx):
        self.plt, self.outdir, self.ctx, self.written = plt, outdir, ctx, []

    def title(self, what):
        gpu = self.ctx.get("gpu_name", "?")
        backend = self.ctx.get("device_backend", "")
        if backend.startswith("sim"):
            gpu += " (%s)" % backend
        return "%s — %s" % (what, gpu)

    def save(self, fig, name):
        path = os.path.join(self.outdir, re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".svg")
        # data of busy plots as an embedded image, axes and text stay vector: archives stay small
        for ax in fig.axes:
            npts = sum(len(l.get_xdata()) for l in ax.lines) + sum(len(c.get_offsets()) for c in ax.collections)
            if npts > 200:
                for a in list(ax.lines) + list(ax.collections):
                    a.set_rasterized(True)
        fig.tight_layout()
        # points are rasterized (trace plots hold thousands): keeps an archive's plots small
        buf = io.StringIO()
        fig.savefig(buf, format="svg", dpi=80)
        with open(path, "w") as f:
            f.write(compact_svg(buf.getvalue()))
        self.plt.close(fig)
        self.written.append(path)
        print(path)


def fmt_bytes(x, _pos=None):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if x >= div:
            v = x / div
            return ("%g " % float("%.3g" % v)) + unit
    return "%g B" % x


def bytes_axis(ax, values, axis="x"):
    from matplotlib.ticker import FuncFormatter
    vals = [v for v in values if v and v > 0]
    setter = ax.set_xscale if axis == "x" else ax.set_yscale
    if vals and max(vals) / min(vals) > 16:
        setter("log", base=2)
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(FuncFormatter(fmt_bytes))


def series(entries, key_fn, x_fn, y_fn):
    """{series key: sorted [(x, y)]} with entries lacking x or y left out."""
    out = defaultdict(list)
    for e in entries:
        x, y = x_fn(e), y_fn(e)
        if x is None or y is None:
            continue
        out[key_fn(e)].append((x, y))
    return {k: sorted(v) for k, v in sorted(out.items(), key=lambda kv: str(kv[0])) if len(v) >= 1}


def plot_lines(ax, ser, label_fn=str, marker="o"):
    for i, (k, pts) in enumerate(ser.items()):
        if i >= MAX_SERIES:
            break
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker=marker, markersize=3, linewidth=1, label=label_fn(k))
    if 1 < len(ser):
        ax.legend(fontsize=7, title=None if len(ser) <= MAX_SERIES else "first %d series" % MAX_SERIES)


def counter(name):
    return lambda e: e.counters.get(name)


def gbps(e):
    v = e.counters.get("bytes_per_second")
    return None if v is None else v / 1e9


def levels_of(latencies):
    """Groups latencies into levels by gaps: a sorted gap wider than 25 % of the lower value (and
    wider than 8 cycles) starts a new level. Returns a level number per access and level medians."""
    if not latencies:
        return [], []
    uniq = sorted(set(latencies))
    cuts = [uniq[i + 1] for i in range(len(uniq) - 1)
            if uniq[i + 1] - uniq[i] > max(8, 0.25 * max(uniq[i], 1))]
    import bisect
    lv = [bisect.bisect_right(cuts, x) for x in latencies]
    meds = []
    for k in range(len(cuts) + 1):
        members = [x for x, l in zip(latencies, lv) if l == k]
        meds.append(median(members) if members else 0)
    return lv, meds


# ------------------------------------------------------------------------------------------------
# Families


def plot_pchase(out, entries, trace_dir):
    plt = out.plt
    by_path = defaultdict(list)
    for e in entries:
        by_path[e.p("path", "?")].append(e)
    for path, es in sorted(by_path.items()):
        # Capacity (tvalue-N): latency vs footprint, one line per (mode, stride, carveout, warm)
        cap = [e for e in es if e.p("mode") in ("count", "classic")]
        ser = series(cap, lambda e: (e.p("mode"), e.pn("stride"), e.p("carveout", "-"), e.p("warm", "1")),
                     lambda e: e.pn("bytes"), counter("latency_cycles"))
        ser = {k: v for k, v in ser.items() if len(v) >= 2}
        if ser:
            has_mr = any("miss_rate" in e.counters for e in cap)
            fig, axes = plt.subplots(2 if has_mr else 1, 1, figsize=(7, 6 if has_mr else 4), sharex=True, squeeze=False)
            lab = lambda k: "%s stride %s B%s%s" % (k[0], k[1], "" if k[2] == "-" else " carveout %s%%" % k[2],
                                                    "" if k[3] == "1" else " cold")
            plot_lines(axes[0][0], ser, lab)
            axes[0][0].set_ylabel("latency (cycles)")
            if has_mr:
                mser = series(cap, lambda e: (e.p("mode"), e.pn("stride"), e.p("carveout", "-"), e.p("warm", "1")),
                              lambda e: e.pn("bytes"), counter("miss_rate"))
                plot_lines(axes[1][0], {k: v for k, v in mser.items() if len(v) >= 2}, lab)
                axes[1][0].set_ylabel("miss rate")
            bytes_axis(axes[-1][0], [x for v in ser.values() for x, _ in v])
            axes[-1][0].set_xlabel("footprint N")
            axes[0][0].set_title(out.title("P-chase %s: latency vs footprint" % path))
            out.save(fig, "pchase_%s_latency_vs_footprint" % path)
            plot_capacity_vs_carveout(out, path, cap)
        # Stride (tvalue-s): classic chases over one footprint, several strides
        strided = [e for e in es if e.p("mode") == "classic"]
        sser = series(strided, lambda e: (e.pn("bytes"), e.p("warm", "1")), lambda e: e.pn("stride"),
                      counter("latency_cycles"))
        sser = {k: v for k, v in sser.items() if len(v) >= 2}
        if sser:
            fig, ax = plt.subplots(figsize=(7, 4))
            plot_lines(ax, sser, lambda k: "N = %s%s" % (fmt_bytes(k[0]), "" if k[1] == "1" else " cold"))
            bytes_axis(ax, [x for v in sser.values() for x, _ in v])
            ax.set_xlabel("stride s")
            ax.set_ylabel("latency (cycles)")
            ax.set_title(out.title("P-chase %s: latency vs stride" % path))
            out.save(fig, "pchase_%s_latency_vs_stride" % path)
        for e in es:
            if e.p("mode") == "fine":
                plot_fine_trace(out, e, trace_dir, "pchase_%s_trace_%s_%s%s" % (
                    path, e.p("bytes"), e.p("stride"), "" if e.p("warm", "1") == "1" else "_cold"))


def plot_capacity_vs_carveout(out, path, cap):
    """L1 capacity against the shared-memory carveout: for each carveout the largest footprint that
    still hits (miss rate below one half, or latency below the midpoint of the curve's range)."""
    by_co = defaultdict(list)
    for e in cap:
        if e.p("carveout") is not None and e.p("mode") == "count":
            by_co[e.pn("carveout")].append(e)
    if len(by_co) < 2:
        return
    pts = []
    for co, es in sorted(by_co.items()):
        es = sorted(es, key=lambda e: e.pn("bytes", 0))
        if "miss_rate" in es[0].counters:
            hits = [e for e in es if e.counters.get("miss_rate", 1) < 0.5]
        else:
            lat = [e.counters.get("latency_cycles", 0) for e in es]
            mid = 0.5 * (min(lat) + max(lat))
            hits = [e for e in es if e.counters.get("latency_cycles", mid) < mid]
        if hits and len(hits) < len(es):
            pts.append((co, max(e.pn("bytes") for e in hits)))
    if len(pts) < 2:
        return
    fig, ax = out.plt.subplots(figsize=(6, 4))
    xs, ys = zip(*pts)
    ax.plot(xs, ys, marker="o")
    bytes_axis(ax, ys, axis="y")
    ax.set_xlabel("preferred shared-memory carveout (%)")
    ax.set_ylabel("largest footprint that hits")
    ax.set_title(out.title("%s: L1 capacity vs carveout" % path))
    out.save(fig, "pchase_%s_capacity_vs_carveout" % path)


def plot_fine_trace(out, e, trace_dir, name):
    tp = find_trace(trace_dir, e.canonical()) if trace_dir else None
    tr = read_trace(tp) if tp else None
    if not tr:
        return
    header, rows = tr
    if header.get("kind", "fine") != "fine" or not rows:
        return
    lat = [r[1] for r in rows if len(r) >= 2]
    k = list(range(len(lat)))
    fig, ax = out.plt.subplots(figsize=(8, 3.5))
    if rows and len(rows[0]) >= 3:  # labelled (latency spectrum)
        groups = defaultdict(list)
        for i, r in enumerate(rows):
            groups[r[2]].append((i, r[1]))
        for lab, pts in sorted(groups.items()):
            xs, ys = zip(*pts)
            name_l = SPECTRUM_LABELS[lab] if 0 <= lab < len(SPECTRUM_LABELS) else str(lab)
            ax.scatter(xs, ys, s=4, label=name_l, rasterized=True)
    else:
        lv, meds = levels_of(lat)
        for level in range(len(meds)):
            pts = [(i, x) for i, x, l in zip(k, lat, lv) if l == level]
            if pts:
                xs, ys = zip(*pts)
                ax.scatter(xs, ys, s=3, label="level %d (~%g cycles, %d)" % (level + 1, meds[level], len(pts)),
                           rasterized=True)
    ax.legend(fontsize=7, markerscale=3)
    ax.set_xlabel("access number")
    ax.set_ylabel("latency (cycles)")
    ax.set_title(out.title("fine trace %s" % e.canonical()), fontsize=8)
    out.save(fig, name)


def plot_tlb(out, entries, trace_dir):
    """Whole-memory TLB sweep: mean latency (with its 95 % interval) vs footprint, one line per
    stride, one figure per allocation mode (tlb_<alloc>_vs_footprint); older 32-bit sweeps (no
    alloc parameter) keep the name tlb_vs_footprint."""
    did = False
    for alloc in sorted({e.p("alloc", "") for e in entries}):
        es = [e for e in entries if e.p("alloc", "") == alloc and e.pn("seed", 0) == 0]
        ser = series(es, lambda e: e.pn("stride"), lambda e: e.pn("bytes"),
                     lambda e: (e.counters.get("latency_cycles"), e.counters.get("latency_ci95_cycles", 0)))
        ser = {k: [(x, y) for x, y in v if y[0] is not None] for k, v in ser.items()}
        if not any(ser.values()):
            continue
        fig, ax = out.plt.subplots(figsize=(8, 4.5))
        cmap = out.plt.get_cmap("viridis")
        for i, (stride, pts) in enumerate(sorted(ser.items())):
            xs = [x for x, _ in pts]
            ax.errorbar(xs, [y[0] for _, y in pts], yerr=[y[1] for _, y in pts], marker=".", markersize=3,
                        linewidth=0.8, color=cmap(i / max(1, len(ser) - 1)), label="stride %s" % fmt_bytes(stride))
        ax.set_xscale("log", base=2)
        bytes_axis(ax, [x for v in ser.values() for x, _ in v])
        ax.set_xlabel("footprint")
        ax.set_ylabel("latency (cycles, 95 % interval)")
        ax.legend(fontsize=6, ncol=2)
        ax.set_title(out.title("TLB (%s): latency vs footprint" % (alloc or "32-bit sweep")), fontsize=9)
        out.save(fig, "tlb_%s_vs_footprint" % alloc if alloc else "tlb_vs_footprint")
        did = True
    return did


def plot_spectrum(out, entries, trace_dir):
    did = False
    for e in entries:
        pats = [(p, e.counters["%s_cycles" % p]) for p in SPECTRUM_LABELS if "%s_cycles" % p in e.counters]
        # revisit_<g>_cycles (not the paired means revisit_<g>_paired[_before]_cycles)
        pats += sorted(((k[:-7], v) for k, v in e.counters.items() if re.fullmatch(r"revisit_\d+_cycles", k)),
                       key=lambda kv: int(kv[0][8:]))
        path = e.p("path", "?")
        if pats:
            fig, ax = out.plt.subplots(figsize=(6, 3.5))
            ax.bar([p for p, _ in pats], [v for _, v in pats])
            ax.set_ylabel("median latency (cycles)")
            ax.set_title(out.title("latency spectrum %s" % path), fontsize=9)
            out.save(fig, "latency_spectrum_%s_patterns" % path)
            did = True
        n = len(out.written)
        plot_fine_trace(out, e, trace_dir, "latency_spectrum_%s_trace" % path)
        did = did or len(out.written) > n
    return did


def plot_bandwidth_configs(out, fam, entries):
    """000 Fig. 12: bandwidth vs CTAs, one line per CTA size x ILP, one panel per kernel/width."""
    if len({e.pn("ctas") for e in entries if e.pn("ctas") is not None}) < 2 or \
            not any("bytes_per_second" in e.counters for e in entries):
        return False
    panels = defaultdict(list)
    for e in entries:
        panels[(e.p("kind", e.p("kernel", "")), e.p("width", ""))].append(e)
    keys = sorted(panels)
    fig, axes = out.plt.subplots(len(keys), 1, figsize=(7, 3.2 * len(keys)), squeeze=False)
    peak = num(out.ctx.get("theoretical_dram_bytes_per_second")) if fam == "gmem_throughput" else None
    for ax, k in zip([a[0] for a in axes], keys):
        ser = series(panels[k], lambda e: (e.pn("cta_size", 0), e.pn("ilp", 0)), lambda e: e.pn("ctas"), gbps)
        plot_lines(ax, ser, lambda s: "T=%s ILP=%s" % s)
        if peak:
            ax.axhline(peak / 1e9, color="grey", linestyle="--", linewidth=0.8, label="theoretical")
        vals = [x for v in ser.values() for x, _ in v]
        if vals and max(vals) / max(min(vals), 1) > 16:
            ax.set_xscale("log", base=2)
        ax.set_xlabel("CTAs")
        ax.set_ylabel("GB/s")
        ax.set_title("%s%s%s" % (k[0] or fam, " width %s B" % k[1] if k[1] else "", ""), fontsize=9)
    fig.suptitle(out.title("%s: bandwidth vs CTAs x CTA size x ILP" % fam), fontsize=10)
    out.save(fig, "%s_vs_ctas_cta_size_ilp" % fam)
    return True


WS_KEYS = ("bytes", "working_set", "ws_bytes", "footprint", "working_set_bytes")


def plot_bandwidth_ws(out, fam, entries):
    key = next((k for k in WS_KEYS if sum(1 for e in entries if e.pn(k) is not None) >= 2), None)
    if not key:
        return False
    ycounter = "bytes_per_clock_per_sm" if any("bytes_per_clock_per_sm" in e.counters for e in entries) else None
    yfn = counter(ycounter) if ycounter else gbps
    rest = lambda e: tuple((k, v) for k, v in e.params.items() if k != key)
    ser = {k: v for k, v in series(entries, rest, lambda e: e.pn(key), yfn).items() if len(v) >= 2}
    if not ser:
        return False
    fig, ax = out.plt.subplots(figsize=(7, 4))
    plot_lines(ax, ser, lambda k: " ".join("%s=%s" % kv for kv in k))
    bytes_axis(ax, [x for v in ser.values() for x, _ in v])
    ax.set_xlabel("working-set size")
    ax.set_ylabel("bytes/clock/SM" if ycounter else "GB/s")
    ax.set_title(out.title("%s: bandwidth vs working-set size" % fam), fontsize=9)
    out.save(fig, "%s_vs_working_set" % fam)
    return True


def plot_throughput(out, entries, trace_dir, fam):
    a = plot_bandwidth_configs(out, fam, entries)
    b = plot_bandwidth_ws(out, fam, entries)
    return a or b


def active_warps(e, ctx):
    w = e.counters.get("warps_per_sm", e.pn("warps"))
    if w is not None:
        return w
    size = e.pn("cta_size")
    if size is None:
        return None
    per_sm = e.pn("ctas_per_sm")
    if per_sm is None and e.pn("ctas") is not None:
        sms = num(ctx.get("sm_count")) or 1
        per_sm = max(1, e.pn("ctas") / sms)
    return size / 32.0 * (per_sm or 1)


def plot_smem_throughput(out, entries, trace_dir):
    """000 Fig. 15 (throughput vs active warps per SM) and Fig. 16 (vs ILP)."""
    ycounter = "bytes_per_clock_per_sm" if any("bytes_per_clock_per_sm" in e.counters for e in entries) else None
    yfn = counter(ycounter) if ycounter else gbps
    ylabel = "bytes/clock/SM" if ycounter else "GB/s"
    did = False
    ser = {k: v for k, v in series(entries, lambda e: (e.pn("ilp", 0), e.p("width", "")),
                                   lambda e: active_warps(e, out.ctx), yfn).items() if len(v) >= 2}
    if ser:
        fig, ax = out.plt.subplots(figsize=(7, 4))
        plot_lines(ax, ser, lambda k: "ILP=%s%s" % (k[0], " width %s B" % k[1] if k[1] else ""))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("active warps per SM")
        ax.set_ylabel(ylabel)
        ax.set_title(out.title("shared memory: throughput vs warps"), fontsize=9)
        out.save(fig, "smem_throughput_vs_warps")
        did = True
    ser = {k: v for k, v in series(entries, lambda e: (active_warps(e, out.ctx), e.p("width", "")),
                                   lambda e: e.pn("ilp"), yfn).items() if len(v) >= 2}
    if ser:
        fig, ax = out.plt.subplots(figsize=(7, 4))
        plot_lines(ax, ser, lambda k: "%g warps%s" % (k[0] or 0, " width %s B" % k[1] if k[1] else ""))
        ax.set_xlabel("ILP")
        ax.set_ylabel(ylabel)
        ax.set_title(out.title("shared memory: throughput vs ILP"), fontsize=9)
        out.save(fig, "smem_throughput_vs_ilp")
        did = True
    return did


def plot_bank_conflict(out, entries, trace_dir):
    ser = {k: v for k, v in series(entries, lambda e: e.p("width", ""), lambda e: e.pn("stride"),
                                   counter("latency_cycles")).items() if len(v) >= 2}
    if not ser:
        return False
    fig, ax = out.plt.subplots(figsize=(7, 4))
    plot_lines(ax, ser, lambda k: "%s-byte access" % k if k else "access")
    ax.set_xlabel("stride (elements)")
    ax.set_ylabel("latency (cycles)")
    ax.set_title(out.title("shared-memory bank conflicts: latency vs stride"), fontsize=9)
    out.save(fig, "smem_bank_conflict_vs_stride")
    return True


def plot_bars(out, fam, entries, counter_name, ylabel):
    pts = [(" ".join("%s:%s" % kv for kv in e.params.items()) or e.family, e.counters[counter_name])
           for e in entries if counter_name in e.counters]
    if not pts:
        return False
    fig, ax = out.plt.subplots(figsize=(max(5, 0.5 * len(pts) + 2), 4))
    ax.bar(range(len(pts)), [v for _, v in pts])
    ax.set_xticks(range(len(pts)))
    ax.set_xticklabels([n for n, _ in pts], rotation=45, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(out.title("%s: %s" % (fam, counter_name)), fontsize=9)
    out.save(fig, "%s_%s" % (fam, counter_name))
    return True


def plot_warp_access(out, entries, trace_dir):
    return plot_bars(out, "warp_access", entries, "latency_cycles", "latency (cycles)")


def plot_clock_overhead(out, entries, trace_dir):
    return plot_bars(out, "clock_overhead", entries, "clock_overhead_cycles", "cycles")


# ------------------------------------------------------------------------------------------------
# Levels beyond one SM: dsmem, async_copy, host, peer (docs/methodology.md, "Levels beyond one SM")

LEVEL_ORDER = ["local", "l2", "dram", "plain", "cp_async", "bulk", "tensor", "read", "write", "h2d", "d2h",
               "bidir", "uni", "cold", "warm", "owner"]
LINE_STYLES = ["-", "--", ":", "-."]


def level_key(v):
    """Sort key: numbers by value, the families' words in their natural order, then the rest."""
    if isinstance(v, tuple):
        return tuple(level_key(x) for x in v)
    if num(v) is not None:
        return (0, num(v), "")
    return (1, LEVEL_ORDER.index(v), "") if v in LEVEL_ORDER else (2, 0, str(v))


def link_bps(ctx, key, dev=None):
    """A link figure of the context in bytes/s, or None. A list ("a,b") is read per device of
    peer_devices (the same length), so that each destination gets its own link."""
    v = ctx.get(key)
    if num(v) is not None:
        return num(v)
    devs = [d.strip() for d in str(ctx.get("peer_devices", "")).split(",")]
    vals = [x.strip() for x in str(v).split(",")] if isinstance(v, str) else []
    if dev is None or len(vals) != len(devs) or str(dev) not in devs:
        return None
    return num(vals[devs.index(str(dev))])


def link_line(ax, bps, label, style="--"):
    if bps:
        ax.axhline(bps / 1e9, color="grey", linestyle=style, linewidth=0.8, label=label)


def gb(v):
    return None if v is None else v / 1e9


def bar_values(items):
    """({(group, bar): y}, groups, bars) of (group, bar, y) items that have a y, in level_key order."""
    vals = {(g, b): y for g, b, y in items if y is not None}
    return vals, sorted({g for g, _ in vals}, key=level_key), sorted({b for _, b in vals}, key=level_key)


def grouped_bars(ax, bv, glabel=str, blabel=str):
    """One cluster of bars per group, one colour per bar key (bv: what bar_values returns)."""
    vals, groups, bars = bv
    width = 0.8 / max(1, len(bars))
    for j, b in enumerate(bars):
        at = [(i, vals[(g, b)]) for i, g in enumerate(groups) if (g, b) in vals]
        ax.bar([i + (j - (len(bars) - 1) / 2.0) * width for i, _ in at], [y for _, y in at], width=width,
               label=blabel(b))
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([glabel(g) for g in groups], fontsize=8)
    if len(bars) > 1:
        ax.legend(fontsize=7)


def bars_figure(out, bv, name, title, ylabel, glabel=str, blabel=str):
    if not bv[0]:
        return False
    fig, ax = out.plt.subplots(figsize=(max(5, 0.9 * len(bv[1]) * max(1, len(bv[2])) ** 0.5 + 2), 4))
    grouped_bars(ax, bv, glabel, blabel)
    ax.set_ylabel(ylabel)
    ax.set_title(out.title(title), fontsize=9)
    out.save(fig, name)
    return True


def plot_dsmem_latency(out, entries):
    """Latency by target rank, one line per cluster size, min-max over clusters as a band."""
    lat = lambda e: (e.counters.get("latency_cycles"), e.counters.get("latency_min_cycles"),
                     e.counters.get("latency_max_cycles"))
    ser = series([e for e in entries if e.p("op") == "latency" and lat(e)[0] is not None],
                 lambda e: e.pn("cluster"), lambda e: e.pn("rank"), lat)
    if not ser:
        return
    fig, ax = out.plt.subplots(figsize=(7, 4))
    for c, pts in sorted(ser.items(), key=lambda kv: level_key(kv[0])):
        line, = ax.plot([x for x, _ in pts], [y[0] for _, y in pts], marker="o", markersize=3, linewidth=1,
                        label="cluster %s" % c)
        band = [(x, y[1], y[2]) for x, y in pts if y[1] is not None and y[2] is not None]
        if band:
            ax.fill_between(*zip(*band), color=line.get_color(), alpha=0.15, linewidth=0)
    local = [y[0] for pts in ser.values() for x, y in pts if x == 0]
    if local:
        ax.scatter([0] * len(local), local, marker="*", s=70, color="black", zorder=3, label="rank 0: local")
    ax.set_xlabel("target rank")
    ax.set_ylabel("latency (cycles; band: min-max over clusters)")
    ax.legend(fontsize=7)
    ax.set_title(out.title("distributed shared memory: latency vs target rank"), fontsize=9)
    out.save(fig, "dsmem_latency_vs_rank")


def plot_dsmem_bandwidth(out, entries):
    """Bars local vs remote by cluster size, one bar per CTA size, a panel per read / write."""
    es = [e for e in entries if e.p("op") in ("read", "write")]
    per_clock = any("bytes_per_clock_per_sm" in e.counters for e in es)
    ops = sorted({e.p("op") for e in es}, key=level_key)
    if not ops:
        return
    y = counter("bytes_per_clock_per_sm") if per_clock else gbps
    fig, axes = out.plt.subplots(1, len(ops), figsize=(5.5 * len(ops), 4), squeeze=False)
    for ax, op in zip(axes[0], ops):
        grouped_bars(ax, bar_values(((1, e.pn("cluster")) if e.p("remote") != "0" else (0, 0), e.pn("cta_size"), y(e))
                                    for e in es if e.p("op") == op),
                     lambda g: "remote\ncluster %s" % g[1] if g[0] else "local", lambda t: "%s threads/CTA" % t)
        ax.set_ylabel("bytes/clock/SM" if per_clock else "GB/s")
        ax.set_title(op, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle(out.title("distributed shared memory: bandwidth, local vs remote"), fontsize=10)
    out.save(fig, "dsmem_bandwidth")


def plot_dsmem(out, entries, trace_dir):
    plot_dsmem_latency(out, entries)
    plot_dsmem_bandwidth(out, entries)
    return True  # never the generic plot


def async_panel(ax, es, colors, stages):
    """Bandwidth vs chunk: a line per method (colour) x CTAs per SM (line style) at the usual
    stage count; other stage counts as points (fewer: down triangle, more: up)."""
    lines = series([e for e in es if e.p("stages") == stages], lambda e: (e.p("method"), e.pn("ctas_per_sm")),
                   lambda e: e.pn("chunk"), gbps)
    ks = sorted({k for _, k in lines}, key=level_key)
    for (m, k), pts in sorted(lines.items(), key=lambda kv: level_key(kv[0])):
        ax.plot(*zip(*pts), color=colors[m], linestyle=LINE_STYLES[ks.index(k) % 4], marker="o", markersize=3,
                linewidth=1)
    other = series([e for e in es if e.p("stages") != stages], lambda e: (e.p("method"), e.pn("stages")),
                   lambda e: e.pn("chunk"), gbps)
    for (m, s), pts in other.items():
        ax.scatter(*zip(*pts), color=colors[m], marker="v" if s < num(stages) else "^", s=22, zorder=3)
    return ks, sorted({s for _, s in other})


def async_legend(ax, colors, ks, others, stages, peak):
    from matplotlib.lines import Line2D
    h = [Line2D([], [], color=c, label=m) for m, c in colors.items()]
    h += [Line2D([], [], color="grey", linestyle=LINE_STYLES[i % 4], label="%s CTAs/SM" % k) for i, k in enumerate(ks)]
    h += [Line2D([], [], color="grey", linestyle="", marker="v" if s < num(stages) else "^",
                 label="%s stage%s" % (s, "" if s == 1 else "s")) for s in others]
    h += [Line2D([], [], color="grey", linestyle="--", linewidth=0.8, label="theoretical DRAM")] if peak else []
    ax.legend(handles=h, fontsize=6, title="%s stages unless marked" % stages, title_fontsize=6)


def plot_async_bandwidth(out, entries):
    es = [e for e in entries if e.p("op") == "bandwidth" and e.p("stages") is not None]
    sources = sorted({e.p("source") for e in es}, key=level_key)
    if not sources:
        return
    stages = max(sorted({e.p("stages") for e in es}), key=[e.p("stages") for e in es].count)
    methods = sorted({e.p("method") for e in es}, key=level_key)
    colors = OrderedDict((m, "C%d" % i) for i, m in enumerate(methods))
    peak = num(out.ctx.get("theoretical_dram_bytes_per_second")) if "dram" in sources else None
    fig, axes = out.plt.subplots(1, len(sources), figsize=(5.5 * len(sources), 4), squeeze=False)
    for i, (ax, src) in enumerate(zip(axes[0], sources)):
        ks, others = async_panel(ax, [e for e in es if e.p("source") == src], colors, stages)
        if src == "dram":
            link_line(ax, peak, "theoretical DRAM")
        ax.set_xscale("log", base=2)
        bytes_axis(ax, [e.pn("chunk") for e in es])
        ax.set_xlabel("chunk per CTA and stage")
        ax.set_ylabel("GB/s into shared memory")
        ax.set_title("from %s" % src.upper() if src in ("l2", "dram") else src, fontsize=9)
        if i == 0:
            async_legend(ax, colors, ks, others, stages, peak)
    fig.suptitle(out.title("async copies: bandwidth vs chunk"), fontsize=10)
    out.save(fig, "async_copy_bandwidth_vs_chunk")


def plot_async_copy(out, entries, trace_dir):
    plot_async_bandwidth(out, entries)
    bars_figure(out, bar_values((e.p("method"), e.pn("chunk"), e.counters.get("latency_cycles"))
                                for e in entries if e.p("op") == "latency"),
                "async_copy_latency", "async copies: latency of one chunk from the L2", "latency (cycles)",
                blabel=lambda c: "chunk " + fmt_bytes(c))
    bv = bar_values((e.pn("cluster"), bar, gb(e.counters.get(key))) for e in entries if e.p("op") == "multicast"
                    for bar, key in (("delivered", "bytes_per_second"), ("read from L2", "source_bytes_per_second")))
    bars_figure(out, bv, "async_copy_multicast",
                "async copies: multicast, delivered vs read", "GB/s", glabel=lambda c: "cluster %s" % c)
    return True  # never the generic plot


def plot_link_bandwidth(out, es, name, what, link, link_label):
    """SM-initiated read / write vs CTAs per SM, the link's figure dashed."""
    ser = series([e for e in es if e.p("op") in ("read", "write")], lambda e: e.p("op"),
                 lambda e: e.pn("ctas_per_sm"), gbps)
    if not ser:
        return
    fig, ax = out.plt.subplots(figsize=(6, 4))
    plot_lines(ax, ser)
    link_line(ax, link, link_label)
    ax.set_xticks(sorted({x for v in ser.values() for x, _ in v}))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("CTAs per SM")
    ax.set_ylabel("GB/s")
    ax.legend(fontsize=7)
    ax.set_title(out.title("%s: SM-initiated bandwidth" % what), fontsize=9)
    out.save(fig, name)


def plot_link_copies(out, es, name, what, link, link_label):
    """Copy-engine copies by bytes, a line per direction; the link dashed, twice the link dotted
    where both directions ran at once; managed migration (host) as points."""
    ser = series([e for e in es if e.p("op") == "copy"], lambda e: e.p("dir"), lambda e: e.pn("bytes"), gbps)
    ser = OrderedDict(sorted(ser.items(), key=lambda kv: level_key(kv[0])))
    if not ser:
        return
    fig, ax = out.plt.subplots(figsize=(6, 4))
    plot_lines(ax, ser)
    for key, label, mark in (("bytes_per_second", "managed: migration by faults", "s"),
                             ("prefetch_bytes_per_second", "managed: prefetch", "D")):
        pts = [(e.pn("bytes"), e.counters[key] / 1e9) for e in es if e.p("op") == "managed" and key in e.counters]
        if pts:
            ax.scatter(*zip(*pts), marker=mark, s=22, color="black", zorder=3, label=label)
    link_line(ax, link, link_label)
    link_line(ax, 2 * link if link and "bidir" in ser else None, "2 x " + link_label, ":")
    ax.set_xscale("log", base=2)
    bytes_axis(ax, [x for v in ser.values() for x, _ in v])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s")
    ax.legend(fontsize=7)
    ax.set_title(out.title("%s: copies (copy engines)" % what), fontsize=9)
    out.save(fig, name)


def plot_host(out, entries, trace_dir):
    link = link_bps(out.ctx, "host_link_bytes_per_second")
    label = "link (%s)" % out.ctx["host_link"] if out.ctx.get("host_link") else "link"
    bars_figure(out, bar_values((e.pn("bytes"), "warm" if e.p("warm") == "1" else "cold",
                                 e.counters.get("latency_cycles")) for e in entries if e.p("op") == "latency"),
                "host_latency", "host memory (mapped): latency, cold vs warm", "latency (cycles)", glabel=fmt_bytes)
    plot_link_bandwidth(out, entries, "host_bandwidth_vs_ctas_per_sm", "host memory (mapped)", link, label)
    plot_link_copies(out, entries, "host_copy_vs_bytes", "host memory (pinned; managed)", link, label)
    return True  # never the generic plot


def plot_peer(out, entries, trace_dir):
    for d in sorted({e.p("dst") for e in entries}, key=level_key):
        es = [e for e in entries if e.p("dst") == d]
        link = link_bps(out.ctx, "peer_link_bytes_per_second", d)
        label = "link (%s)" % out.ctx["peer_link"] if out.ctx.get("peer_link") else "link"
        what = "peer GPU %s" % d
        bars_figure(out, bar_values((e.p("state"), e.pn("bytes"), e.counters.get("latency_cycles"))
                                    for e in es if e.p("op") == "latency"),
                    "peer_dst_%s_latency" % d, "%s: latency by state" % what, "latency (cycles)",
                    blabel=lambda b: "chain " + fmt_bytes(b))
        plot_link_bandwidth(out, es, "peer_dst_%s_bandwidth_vs_ctas_per_sm" % d, what, link, label)
        plot_link_copies(out, es, "peer_dst_%s_copy_vs_bytes" % d, what, link, label)
    return True  # never the generic plot


def plot_generic(out, fam, entries):
    """Each counter against each numeric parameter with several values; lines by the other params."""
    numeric = [k for k in OrderedDict.fromkeys(k for e in entries for k in e.params)
               if len({e.pn(k) for e in entries if e.pn(k) is not None}) >= 2]
    counters = sorted({c for e in entries for c in e.counters})
    pairs = [(c, k) for c in counters for k in numeric]
    if not pairs:
        return plot_bars(out, fam, entries, counters[0], counters[0]) if counters else False
    pairs = pairs[:12]
    cols = min(3, len(pairs))
    rows = (len(pairs) + cols - 1) // cols
    fig, axes = out.plt.subplots(rows, cols, figsize=(4.5 * cols, 3.2 * rows), squeeze=False)
    for i, (c, k) in enumerate(pairs):
        ax = axes[i // cols][i % cols]
        ser = series(entries, lambda e, k=k: tuple((kk, v) for kk, v in e.params.items() if kk != k),
                     lambda e, k=k: e.pn(k), counter(c))
        plot_lines(ax, ser, lambda s: " ".join("%s=%s" % kv for kv in s)[:40])
        xs = [x for v in ser.values() for x, _ in v]
        if xs and min(xs) > 0 and max(xs) / min(xs) > 16:
            ax.set_xscale("log", base=2)
        ax.set_xlabel(k)
        ax.set_ylabel(c)
        if ax.get_legend():
            ax.get_legend().set_visible(i == 0)
    for j in range(len(pairs), rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle(out.title(fam), fontsize=10)
    out.save(fig, "%s_counters" % fam)
    return True


_plot_family = None


def _run_plot_family(fam):
    return _plot_family(fam)


def main():
    ap = argparse.ArgumentParser(description="Plots of one memhier archive (SVG).")
    ap.add_argument("archive", help="archive directory (with bench.json) or a bench.json file")
    ap.add_argument("-o", "--output", help="plots directory (default <archive>/plots)")
    args = ap.parse_args()
    if not os.path.exists(args.archive):
        die("%s: no such file or directory" % args.archive)
    archive, ctx, entries, trace_dir = load_archive(args.archive)
    try:
        import plot_sm_resources  # scripts/plot_sm_resources.py: the issue-13 families
    except ImportError as ex:
        die("%s: plot_sm_resources.py must be beside plot.py (%s)" % (ex, os.path.dirname(os.path.abspath(__file__))))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # A Python of its own on the PATH (pyenv, venv) may lack the Debian package: try the system one.
        system = "/usr/bin/python3"
        if (os.environ.get("MEMHIER_PLOT_REEXEC") != "1" and os.path.exists(system)
                and os.path.realpath(sys.executable) != os.path.realpath(system)):
            os.environ["MEMHIER_PLOT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        die("matplotlib is missing (Debian: apt-get install python3-matplotlib)", 3)
    matplotlib.rcParams["svg.hashsalt"] = "memhier"  # reproducible SVG ids
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: plots a few times smaller
    outdir = args.output or os.path.join(archive, "plots")
    os.makedirs(outdir, exist_ok=True)
    out = Out(plt, outdir, ctx)

    families = OrderedDict()
    for e in entries:
        families.setdefault(e.family, []).append(e)
    special = {
        "pchase": lambda es, td: plot_pchase(out, es, td) or True,
        "tlb": lambda es, td: plot_tlb(out, es, td),
        "latency_spectrum": lambda es, td: plot_spectrum(out, es, td),
        "gmem_throughput": lambda es, td: plot_throughput(out, es, td, "gmem_throughput"),
        "l1_throughput": lambda es, td: plot_throughput(out, es, td, "l1_throughput"),
        "l2_throughput": lambda es, td: plot_throughput(out, es, td, "l2_throughput"),
        "smem_throughput": lambda es, td: plot_smem_throughput(out, es, td),
        "smem_bank_conflict": lambda es, td: plot_bank_conflict(out, es, td),
        "warp_access": lambda es, td: plot_warp_access(out, es, td),
        "clock_overhead": lambda es, td: plot_clock_overhead(out, es, td),
        "dsmem": lambda es, td: plot_dsmem(out, es, td),
        "async_copy": lambda es, td: plot_async_copy(out, es, td),
        "host": lambda es, td: plot_host(out, es, td),
        "peer": lambda es, td: plot_peer(out, es, td),
    }
    special.update(plot_sm_resources.specials(out, read_trace, find_trace))
    # The unit of work: a family, or one path of pchase / one pattern of outstanding_requests (their
    # plots are per path / pattern anyway; the two largest families would otherwise bound the wall time).
    split = {"pchase": "path", "outstanding_requests": "pattern", "peer": "dst"}
    tasks = OrderedDict()
    for fam, es in families.items():
        for e in es:
            tasks.setdefault((fam, e.params.get(split[fam], "") if fam in split else ""), []).append(e)

    def plot_family(task):
        fam, es = task[0], tasks[task]
        before = len(out.written)
        try:
            done = special[fam](es, trace_dir) if fam in special else False
            if not done:
                plot_generic(out, fam, es)
        except Exception as ex:  # one family's odd data never stops the others
            print("plot.py: %s: not plotted (%s: %s)" % (fam, type(ex).__name__, ex), file=sys.stderr)
            plt.close("all")
        return out.written[before:]

    # Families in parallel (forked workers: each draws its own files; the names come back), serial
    # where fork is missing or MEMHIER_PLOT_JOBS=1.
    jobs = int(os.environ.get("MEMHIER_PLOT_JOBS", "0") or 0) or min(len(tasks), os.cpu_count() or 1)
    import multiprocessing
    if jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
        # the largest families first, so that the slowest does not start last
        order = sorted(tasks, key=lambda t: -len(tasks[t]))
        global _plot_family
        _plot_family = plot_family  # the forked workers inherit it (a local function does not pickle)
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for written in pool.map(_run_plot_family, order, chunksize=1):
                out.written.extend(written)
    else:
        for task in tasks:
            plot_family(task)
    if not out.written:
        print("plot.py: nothing to plot in %s" % archive, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
