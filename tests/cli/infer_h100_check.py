#!/usr/bin/env python3
"""Checks memhier-infer's topology of the trimmed real H100 archive (golden/infer/h100_subset)
against what the archive's own traces show. Every expected range is derived here from the data
(levels.hpp's rule: a miss is slower than 1.5 x the path's baseline), not copied from the analyzer.
usage: infer_h100_check.py <bench.json> <topology.json>"""
import json
import os
import sys


def trace(dirn, name):
    base = name.split("/iterations:")[0].split("/manual_time")[0]
    f = os.path.join(dirn, base.replace("/", "__").replace(":", "-") + ".trace")
    if not os.path.exists(f):
        return None
    meta, rows, data = {}, [], False
    for line in open(f):
        line = line.strip()
        if line == "data":
            data = True
        elif line == "end":
            break
        elif data:
            rows.append([int(x) for x in line.split()])
        else:
            k, _, v = line.partition(" ")
            meta[k] = v
    if meta["kind"] == "histogram":
        w = int(meta["bin_width"])
        return [(b * w + w / 2, c) for b, c in rows]
    col = meta["columns"].split().index("latency")
    return [(r[col], 1) for r in rows]


def params(name):
    return dict(p.split(":", 1) for p in name.split("/")[1:] if ":" in p)


def median(s):
    s = sorted(s)
    tot, acc = sum(c for _, c in s), 0
    for v, c in s:
        acc += c
        if acc >= tot / 2:
            return v


def half_bracket(sweep, base):
    """Footprints around the 50 % point: the miss fraction (slower than 1.5 x the baseline) reaches
    half its plateau (the largest footprint's) at hi and stays there; lo is the one before."""
    frac = [(b, sum(n for v, n in s if v > 1.5 * base) / sum(n for _, n in s)) for b, s in sweep]
    half = frac[-1][1] / 2
    i = len(frac)
    while i > 0 and frac[i - 1][1] >= half:
        i -= 1
    return frac[i - 1][0], frac[i][0]


def main():
    bench, topo = sys.argv[1], sys.argv[2]
    d = json.load(open(bench))
    tdir = os.path.join(os.path.dirname(bench), d["context"]["trace_dir"])
    t = json.load(open(topo))
    c = t["caches"]
    errors = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            errors.append(what)

    runs = {}
    for e in d["benchmarks"]:
        if not e["name"].startswith("pchase/"):
            continue
        p = params(e["name"])
        s = trace(tdir, e["name"])
        if s:
            runs.setdefault((p["path"], p["mode"], p.get("carveout")), []).append((int(p["bytes"]), s))

    # L1: the fine trace's fastest level (accesses within 1.5x its fastest latency).
    fine = [v for _, s in runs[("global_ca", "fine", "0")] for v, n in s for _ in range(n)]
    fast = min(fine)
    l1_level = [v for v in fine if v < 1.5 * fast]
    lo, hi = min(l1_level), max(l1_level)
    h = c["l1"]["hit_latency_cycles"]
    check(h is not None and lo - 1 <= h <= hi + 1 and 30 <= h <= 40,
          f"l1 hit latency {h} within the fine trace's fastest level {lo}-{hi} (30-40)")

    # L1 size at carveout 0: between the last all-hit and the first missing footprint (a miss:
    # slower than 1.5 x the baseline, the smallest footprint's median; one odd access per run allowed).
    sweep = sorted(runs[("global_ca", "count", "0")])
    base = median(sweep[0][1])
    misses = [(b, sum(n for v, n in s if v > 1.5 * base)) for b, s in sweep]
    first_miss = next(b for b, m in misses if m > 1)
    last_hit = max(b for b, m in misses if m <= 1 and b < first_miss)
    onset = c["l1"]["onset_size_bytes"]
    check(onset is not None and last_hit <= onset < first_miss,
          f"l1 onset of misses {onset} in [{last_hit}, {first_miss}) (last all-hit, first miss footprint)")
    lo, hi = half_bracket(sweep, base)
    size = c["l1"]["size_bytes"]
    check(size is not None and lo <= size <= hi, f"l1 capacity (50 % point) {size} in [{lo}, {hi}]")
    check(c["l1"]["size_carveout"] == 0, "l1 size stated for carveout 0")
    check(c["l1"]["miss_penalty_cycles"] is not None and c["l1"]["miss_penalty_cycles"] > 100,
          f"l1 miss penalty {c['l1']['miss_penalty_cycles']} (the L2 level lies far above the L1's)")

    # L2: its hit level is the smallest global_cg footprint's latency range.
    cg = sorted(runs[("global_cg", "count", None)])
    small = cg[0][1]
    lo, hi = min(v for v, _ in small), max(v for v, _ in small)
    h = c["l2"]["hit_latency_cycles"]
    check(h is not None and lo <= h <= hi, f"l2 hit latency {h} within the smallest footprint's range {lo}-{hi}")
    base = median(small)
    misses = [(b, sum(n for v, n in s if v > 1.5 * base)) for b, s in cg]
    first_miss = next(b for b, m in misses if m > 1)
    last_hit = max(b for b, m in misses if m <= 1 and b < first_miss)
    onset = c["l2"]["onset_size_bytes"]
    check(onset is not None and last_hit <= onset < first_miss, f"l2 onset of misses {onset} in [{last_hit}, {first_miss})")
    lo, hi = half_bracket(cg, base)
    size = c["l2"]["size_bytes"]
    check(size is not None and lo <= size <= hi, f"l2 capacity (50 % point) {size} in [{lo}, {hi}]")
    big = cg[-1][1]
    dram = sum(v * n for v, n in big) / sum(n for _, n in big)
    pen = c["l2"]["miss_penalty_cycles"]
    check(pen is not None and abs(h + pen - dram) < 0.05 * dram,
          f"l2 hit + miss penalty {h}+{pen} = the largest footprint's mean latency {dram:.0f} (DRAM)")

    # Constant: L1 level present; the L1.5 never misses within the 64 KiB bank: a lower bound only.
    cs = sorted(runs[("constant", "count", None)])
    check(c["constant_l1"]["hit_latency_cycles"] is not None and
          c["constant_l1"]["hit_latency_cycles"] < 1.5 * median(cs[0][1]) + 2, "constant_l1 hit latency at the baseline level")
    l15 = c["constant_l15"]
    check(l15["size_bytes"] is None and l15.get("size_bytes_lower_bound") == cs[-1][0],
          f"constant_l15 size null with lower bound {l15.get('size_bytes_lower_bound')} = largest footprint {cs[-1][0]}")
    check(l15["hit_latency_cycles"] is not None and l15["hit_latency_cycles"] > c["constant_l1"]["hit_latency_cycles"],
          "constant_l15 hit latency above the constant L1's")

    # TLBs: every tlb run stays within 1.5x the sweep's fastest median: no miss level, nulls that say so.
    tl = [trace(tdir, e["name"]) for e in d["benchmarks"] if e["name"].startswith("tlb/")]
    meds = [median(s) for s in tl if s]
    flat = max(meds) < 1.5 * min(meds)
    for n in ("l1_tlb", "l2_tlb"):
        r = c[n]["provenance"]["entries"].get("reason", "")
        check(not flat or (c[n]["entries"] is None and "measured reach" in r), f"{n}: no miss level -> null ({r[:60]})")

    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
