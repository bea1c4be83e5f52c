#!/usr/bin/env python3
"""Short plain-text summary of a memhier-bench JSON file (for device runs and quick looks):
clock overhead, per-path hit latency and capacity edge, stride sweeps, TLB and spectrum.
Not the analyzer (memhier-infer): no inference beyond reading the counters.

usage: python3 summarize.py <archive-dir | bench.json | bench.json.gz>"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import archive_pack  # noqa: E402
from collections import defaultdict


def params(name):
    parts = name.split("/")
    out = {"family": parts[0]}
    for p in parts[1:]:
        if ":" in p:
            k, v = p.split(":", 1)
            out[k] = v
    return out


def main(path):
    if os.path.isdir(path):  # an archive: its bench.json or bench.json.gz
        path = archive_pack.bench_path(path) or sys.exit("summarize.py: %s: no bench.json(.gz) in it" % path)
    try:
        d = archive_pack.load_json(path)  # bench.json or bench.json.gz
    except (OSError, ValueError) as ex:
        sys.exit("summarize.py: %s: %s" % (path, ex))
    ctx = d["context"]
    print(f"{ctx.get('gpu_name')} {ctx.get('sm_tag')} driver {ctx.get('driver_version')} "
          f"plan {ctx.get('memhier_plan')} wall {ctx.get('plan_wall_seconds', '?')} s")
    errors = [b for b in d["benchmarks"] if b.get("error_occurred")]
    print(f"benchmarks {len(d['benchmarks'])}, errors {len(errors)}")
    for b in errors[:5]:
        print("  ERROR", b["name"], b.get("error_message"))
    cap = defaultdict(list)
    stride = defaultdict(list)
    for b in d["benchmarks"]:
        if b.get("error_occurred"):
            continue
        p = params(b.get("run_name", b["name"]))
        f = p["family"]
        if f == "clock_overhead":
            print(f"clock_overhead {p.get('kind')}: {b['clock_overhead_cycles']:.1f} cycles")
        elif f == "pchase" and p.get("mode") == "count":
            cap[(p["path"], p.get("carveout", "-"))].append((int(p["bytes"]), b.get("miss_rate", 0), b["latency_cycles"],
                                                            b.get("hit_latency_cycles", 0), b.get("miss_latency_cycles", 0)))
        elif f == "pchase" and p.get("mode") == "classic":
            stride[(p["path"], int(p["bytes"]))].append((int(p["stride"]), b["latency_cycles"]))
        elif f == "pchase" and p.get("mode") == "fine":
            print(f"fine {p['path']:9s} N={int(p['bytes'])>>10:7d}K s={p['stride']:>4s} warm={p['warm']} "
                  f"mean {b['latency_cycles']:7.1f} hit {b.get('hit_latency_cycles', 0):6.1f} "
                  f"miss {b.get('miss_latency_cycles', 0):6.1f} miss_rate {b.get('miss_rate', 0):.3f}")
        elif f == "latency_spectrum":
            pats = {k[:-7]: v for k, v in b.items() if k.endswith("_cycles") and k not in ("latency_cycles", "clock_overhead_cycles")}
            print(f"spectrum {p['path']}: " + ", ".join(f"{k} {v:.0f}" for k, v in pats.items()))
    for (path, co), rows in sorted(cap.items()):
        rows.sort()
        first_miss = next((r for r in rows if r[1] > 0.02), None)
        lo = rows[0]
        hi = rows[-1]
        edge = f"first miss_rate>2% at {first_miss[0] >> 10} KiB" if first_miss else "no misses"
        print(f"count {path:9s} carveout {co:>3s}: {len(rows)} sizes {lo[0] >> 10}..{hi[0] >> 10} KiB, "
              f"lat {lo[2]:.1f} -> {hi[2]:.1f} cycles, {edge}")
    for (path, n), rows in sorted(stride.items()):
        rows.sort()
        print(f"stride {path:9s} N={n >> 10} KiB: " + " ".join(f"{s}:{l:.0f}" for s, l in rows))
    tlb = defaultdict(list)
    for b in d["benchmarks"]:
        p = params(b.get("run_name", b["name"]))
        if p["family"] == "tlb" and not b.get("error_occurred"):
            tlb[int(p["stride"])].append((int(p["bytes"]), b["latency_cycles"]))
    for s, rows in sorted(tlb.items()):
        rows.sort()
        print(f"tlb stride {s >> 10} KiB: " + " ".join(f"{n >> 20}M:{l:.0f}" for n, l in rows))


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: summarize.py <archive-dir | bench.json | bench.json.gz> (see --help)")
    main(sys.argv[1])
