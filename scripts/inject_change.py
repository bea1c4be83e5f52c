#!/usr/bin/env python3
"""A copy of a memhier archive with one deliberate change, to prove that memhier-compare sees it
(tests, scripts/ci_figures.py). The copy shares the original's traces (a symlink) and changes
bench.json and topology.json only:

  bandwidth  every bandwidth (bytes per second, bytes per clock, percent of peak) x (1 - 0.05)
  latency    every latency in cycles + 10 (hit latencies, DRAM, shared, spectrum, counters);
             miss penalties and spreads stay (both levels move)
  line       every determined line size halved
  capacity   every determined cache size (its bracket and sizes by carveout) halved

usage: python3 scripts/inject_change.py ARCHIVE OUT --kind bandwidth|latency|line|capacity [--amount X]
--amount: the bandwidth fraction (default 0.05), the latency cycles (10), the size factor (0.5).
Exit 1 when the archive holds nothing the change applies to.
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import archive_pack  # noqa: E402

BW_KEYS = ("bytes_per_second", "bytes_per_clock", "pct_of")


def is_bw(key):
    return any(k in key for k in BW_KEYS) and not key.startswith("theoretical")


def is_latency(key):
    return (key.endswith("_cycles") and "penalty" not in key and "overhead" not in key and "per_wavefront" not in key
            and key not in ("replacements_observed",)) or key == "cycles"


def walk(j, fn, key=""):
    """Applies fn(key, value) -> new value to every number under j (dict keys; list items keep the key)."""
    if isinstance(j, dict):
        for k in list(j):
            if k in ("provenance", "device", "inputs", "evidence"):
                continue
            if isinstance(j[k], (dict, list)):
                walk(j[k], fn, k)
            elif isinstance(j[k], (int, float)) and not isinstance(j[k], bool):
                j[k] = fn(k, j[k])
    elif isinstance(j, list):
        for i, v in enumerate(j):
            if isinstance(v, (dict, list)):
                walk(v, fn, key)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("out")
    ap.add_argument("--kind", required=True, choices=["bandwidth", "latency", "line", "capacity"])
    ap.add_argument("--amount", type=float)
    a = ap.parse_args()
    amount = a.amount if a.amount is not None else {"bandwidth": 0.05, "latency": 10, "line": 0.5, "capacity": 0.5}[a.kind]
    bench_file = archive_pack.bench_path(a.archive)
    if not bench_file or not os.path.exists(os.path.join(a.archive, "topology.json")):
        print("inject_change.py: %s: needs bench.json and topology.json" % a.archive, file=sys.stderr)
        return 2
    bench = archive_pack.load_json(bench_file)
    topo = json.load(open(os.path.join(a.archive, "topology.json")))
    changed = [0]

    def count(f):
        def g(k, v):
            w = f(k, v)
            if w != v:
                changed[0] += 1
            return w
        return g

    if a.kind == "bandwidth":
        f = count(lambda k, v: v * (1 - amount) if is_bw(k) else v)
        walk(topo, f)
        for b in bench["benchmarks"]:
            walk(b, f)
    elif a.kind == "latency":
        f = count(lambda k, v: v + amount if is_latency(k) else v)
        walk(topo, f)
        for b in bench["benchmarks"]:
            walk(b, f)
    else:
        leaf = "line_bytes" if a.kind == "line" else "size_bytes"
        for c in topo.get("caches", {}).values():
            for k in list(c):
                if (k == leaf or (a.kind == "capacity" and k.startswith("size_b"))) and c[k] is not None:
                    if isinstance(c[k], (int, float)) and not isinstance(c[k], bool):
                        c[k] = int(c[k] * amount)
                        changed[0] += 1
                    elif isinstance(c[k], list):
                        c[k] = [int(x * amount) for x in c[k]]
                        changed[0] += 1
                    elif isinstance(c[k], dict):
                        c[k] = {n: (int(x * amount) if isinstance(x, (int, float)) else [int(y * amount) for y in x])
                                for n, x in c[k].items() if x is not None}
                        changed[0] += 1
    if not changed[0]:
        print("inject_change.py: nothing to change (%s) in %s" % (a.kind, a.archive), file=sys.stderr)
        return 1
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump(bench, f, separators=(",", ":"))
    with open(os.path.join(a.out, "topology.json"), "w") as f:
        json.dump(topo, f, indent=1)
    for n in ("traces", "traces.pack.gz", "traces.pack"):
        if os.path.exists(os.path.join(a.archive, n)):
            os.symlink(os.path.abspath(os.path.join(a.archive, n)), os.path.join(a.out, n))
    print("%s: %d values changed (%s)" % (a.out, changed[0], a.kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())
