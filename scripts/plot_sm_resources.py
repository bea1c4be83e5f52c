"""Plots of the issue-13 families for scripts/plot.py (docs/methodology.md, section
requests_sharing_partitions):
  outstanding_requests_<pattern>  Thread-Latency plot (002 Fig. 1): latency and its 3-point unbiased
                                  variance against threads, one line per loads
  caches_per_sm_disturbance       the disturbance curves (003 Fig. 4.21): miss rate of warp 0's
                                  re-read against the warp that streamed, one line per cache
  cache_sharing_evictions         the re-read's miss rate and latency ratio per victim and evictor
  l2_partitions_map               per SM and test line: near or far (the map), and latency by pass
Each function takes plot.py's Out, its entries and the trace directory; returns True when it drew."""
from collections import OrderedDict, defaultdict


def three_point_variance(lat):
    v = [0.0] * len(lat)
    for i in range(1, len(lat) - 1):
        mu = (lat[i - 1] + lat[i] + lat[i + 1]) / 3.0
        v[i] = sum((x - mu) ** 2 for x in lat[i - 1:i + 2]) / 2.0
    return v


def plot_outstanding(out, entries, trace_dir, read_trace, find_trace):
    by_pattern = OrderedDict()
    for e in entries:
        if "pattern" not in e.params:
            continue
        t = find_trace(trace_dir, e.canonical())
        tr = read_trace(t) if t else None
        if tr and tr[1]:
            by_pattern.setdefault(e.params["pattern"], []).append(
                (e.params.get("source", "l2"), int(e.params.get("loads", 1)), tr[1]))
    for pattern, series in by_pattern.items():
        fig, (ax, av) = out.plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
        for source, loads, rows in sorted(series, key=lambda x: (x[0] != "l2", x[1])):
            th = [r[0] for r in rows]
            lat = [r[1] for r in rows]
            ax.plot(th, lat, lw=0.8, ls="-" if source == "l2" else "--",
                    label="%d load%s%s" % (loads, "" if loads == 1 else "s", "" if source == "l2" else ", " + source))
            av.plot(th, [max(x, 1e-1) for x in three_point_variance(lat)], lw=0.6)
        ax.set_ylabel("latency (cycles)")
        ax.legend(fontsize=7)
        av.set_yscale("log")
        av.set_ylabel("3-point variance")
        av.set_xlabel("threads on one SM")
        fig.suptitle(out.title("outstanding requests, pattern %s" % pattern), fontsize=10)
        out.save(fig, "outstanding_requests_%s" % pattern)
    return bool(by_pattern)


def plot_per_sm(out, entries):
    fig, ax = out.plt.subplots(figsize=(7, 3.5))
    drawn = False
    for e in entries:
        warps = int(e.counters.get("warps", 0))
        ws = [w for w in range(1, warps) if "w%d_miss_rate" % w in e.counters]
        if not ws:
            continue
        ys = [e.counters.get("control_miss_rate", float("nan"))] + [e.counters["w%d_miss_rate" % w] for w in ws]
        ax.plot([0] + ws, ys, marker="o", ms=3, lw=0.8, label="%s %s B" % (e.params.get("cache"), e.params.get("bytes")))
        drawn = True
    if not drawn:
        out.plt.close(fig)
        return False
    ax.set_xlabel("warp of the evicting thread (0: lanes 1-31 of warp 0)")
    ax.set_ylabel("warp 0 re-read miss rate")
    ax.legend(fontsize=6, ncol=2)
    ax.set_title(out.title("caches per SM: disturbance curves"), fontsize=10)
    out.save(fig, "caches_per_sm_disturbance")
    return True


def plot_sharing(out, entries):
    evictors = ["none", "l1", "texture", "readonly", "constant"]
    rows = [e for e in entries if "none_latency_cycles" in e.counters]
    if not rows:
        return False
    fig, (am, al) = out.plt.subplots(1, 2, figsize=(10, 3.8))
    width = 0.8 / len(evictors)
    for k, ev in enumerate(evictors):
        xs = [i + k * width for i in range(len(rows))]
        am.bar(xs, [e.counters.get(ev + "_miss_rate", 0) for e in rows], width, label=ev)
        al.bar(xs, [e.counters.get(ev + "_latency_cycles", 0) / max(e.counters["none_latency_cycles"], 1e-9) for e in rows],
               width, label=ev)
    labels = ["%s %s B" % (e.params.get("victim"), e.params.get("bytes")) for e in rows]
    for ax, yl in ((am, "re-read miss rate"), (al, "re-read latency / reference")):
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))])
        ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=7)
        ax.set_ylabel(yl)
    am.legend(fontsize=7, title="evictor", title_fontsize=7)
    fig.suptitle(out.title("cache sharing: victim re-read after each evictor's stream"), fontsize=10)
    out.save(fig, "cache_sharing_evictions")
    return True


def plot_map(out, entries, trace_dir, read_trace, find_trace):
    e = next((x for x in entries if "map" in x.params), None)
    t = find_trace(trace_dir, e.canonical()) if e else None
    tr = read_trace(t) if t else None
    if not tr or not tr[1]:
        return False
    header, rows = tr
    n = int(header.get("lines", 0)) or 1
    sms = [s for s in header.get("sm_ids", "").split(",") if s]
    by = defaultdict(dict)
    for idx, lat, label in (r[:3] for r in rows if len(r) >= 3):
        by[label][(idx // n, idx % n)] = lat
    labels = [x for x in (0, 1, 2, 3) if by[x]]  # 3: after the primer SM's chase (newer traces)
    fig, axes = out.plt.subplots(1, len(labels), figsize=(4.4 * len(labels), 4), squeeze=False)
    names = {0: "cold (after an L2 flush)", 1: "after a write", 2: "after the pressure stream",
             3: "after the primer SM's chase"}
    for label, ax in zip(labels, axes[0]):
        grid = [[by[label].get((s, i), float("nan")) for i in range(n)] for s in range(len(sms))]
        im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis")
        ax.set_title(names[label], fontsize=9)
        ax.set_xlabel("test line")
        ax.set_ylabel("SM slot")
        fig.colorbar(im, ax=ax, label="cycles")
    fig.suptitle(out.title("L2 partition map: latency per SM and test line"), fontsize=10)
    out.save(fig, "l2_partitions_map")
    return True


def specials(out, read_trace, find_trace):
    """The entries plot.py's `special` table takes for these families."""
    return {
        "outstanding_requests": lambda es, td: plot_outstanding(out, es, td, read_trace, find_trace),
        "caches_per_sm": lambda es, td: plot_per_sm(out, es),
        "cache_sharing": lambda es, td: plot_sharing(out, es),
        "l2_partitions": lambda es, td: plot_map(out, es, td, read_trace, find_trace),
    }
