#!/usr/bin/env python3
"""Per-family and per-benchmark wall time from a stamped log of a run with MEMHIER_ANNOUNCE=1
(dev/device/stamp_lines.py): a benchmark's time is the time to the next stamped line of the
process, so the last benchmark before a pause (the analyzer's rounds) is counted up to that pause.

usage: timing_summary.py LOG [--top N]"""
import argparse
import collections
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    rows = []
    for line in open(a.log, errors="replace"):
        m = re.match(r"(\d+\.\d+) (.*)", line.rstrip("\n"))
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    bench = []
    for i, (t, text) in enumerate(rows):
        m = re.search(r"memhier-bench: running (\S+)", text)
        if not m:
            continue
        end = rows[i + 1][0] if i + 1 < len(rows) else t
        bench.append((end - t, m.group(1)))
    fam = collections.defaultdict(lambda: [0.0, 0])
    for d, n in bench:
        f = n.split("/")[0]
        fam[f][0] += d
        fam[f][1] += 1
    total = sum(d for d, _ in bench)
    print("benchmarks %d, %.2f s between announcements" % (len(bench), total))
    for f, (d, k) in sorted(fam.items(), key=lambda x: -x[1][0]):
        print("  %-24s %6.2f s  %5d benchmarks  %.1f ms each" % (f, d, k, 1000 * d / max(k, 1)))
    print("slowest %d:" % a.top)
    for d, n in sorted(bench, reverse=True)[: a.top]:
        print("  %6.3f s  %s" % (d, n))


if __name__ == "__main__":
    main()
