#!/usr/bin/env python3
"""The --benchmark_filter of part_mshr.sh's L2-layout group, built from the names memhier-bench lists.

usage: l2_layout_filter.py NAMES.txt    (memhier-bench --benchmark_list_tests output)
Prints one anchored regex of the exact names chosen on stdout, and on stderr what it chose: every
l2_throughput name with a distinct-line layout (stagger:1, layout:oneshot, layout:bulk) or the
peer's pattern (layout:peer and its variants), and the plain tile layout (bytes, cta_size, ctas and
ilp only) at the working sets those layouts use. Names carry Google Benchmark's suffix
(/iterations:N/manual_time); the regex matches them whole. Exit 1 when nothing was listed."""
import collections
import re
import sys


def params(name):
    base = name.split("/iterations:")[0]
    parts = base.split("/")
    return parts[0], dict(p.split(":", 1) for p in parts[1:] if ":" in p)


def kind(p):
    if p.get("layout") == "peer":
        return "peer" + ("/" + p["variant"] if "variant" in p else "")
    if p.get("layout") in ("oneshot", "bulk"):
        return p["layout"]
    if p.get("stagger") == "1":
        return "stagger"
    if set(p) == {"bytes", "cta_size", "ctas", "ilp"}:
        return "tile"
    return None


def main():
    names = [l.strip() for l in open(sys.argv[1]) if l.strip().startswith("l2_throughput/")]
    chosen = collections.OrderedDict()
    sizes = set()
    for n in names:
        fam, p = params(n)
        k = kind(p)
        if k and k != "tile":
            chosen[n] = k
            sizes.add(p["bytes"])
    for n in names:
        fam, p = params(n)
        if kind(p) == "tile" and p["bytes"] in sizes:
            chosen[n] = "tile"
    count = collections.Counter(chosen.values())
    print("%d of %d listed l2_throughput names (%s) at %d working sets (%s bytes)" % (
        len(chosen), len(names), ", ".join("%s %d" % kv for kv in sorted(count.items())), len(sizes),
        ",".join(sorted(sizes, key=int))), file=sys.stderr)
    if not chosen:
        return 1
    print("^(" + "|".join(re.escape(n) for n in chosen) + ")$")
    return 0


if __name__ == "__main__":
    sys.exit(main())
