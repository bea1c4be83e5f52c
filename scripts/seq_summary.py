#!/usr/bin/env python3
"""Plain-text summary of a cache_sequences run (bench JSON + its sequence traces): per cache the
family's own reading (eviction set size, tests, launches, device seconds, congruent bits, policy
outcomes) and the launch checks. For device runs and quick looks; memhier-infer decides from the
traces.   usage: seq_summary.py bench.json [trace_dir]"""
import json
import os
import re
import sys


def params(name):
    out = {}
    for p in name.split("/")[1:]:
        if ":" in p:
            k, v = p.split(":", 1)
            out[k] = v
    return out


def read_trace(path):
    """Sequences of a .seqtrace as dicts: tags, mode, records (per slot)."""
    seqs, cur = [], None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "seq":
                cur = {"mode": t[2], "slots": int(t[4]),
                       "tags": dict(x.split("=", 1) for x in t[7:] if "=" in x), "records": []}
                seqs.append(cur)
            elif t[0] == "o" and cur is not None:
                rec = [0] * cur["slots"]
                if t[1] == "d":
                    rec = [int(x) for x in t[2:]]
                elif t[1] == "s":
                    for pair in t[3:]:
                        s, v = pair.split(":")
                        rec[int(s)] = int(v)
                else:
                    cur["error"] = " ".join(t[2:])
                cur["records"] = rec
    return seqs


def policy_lines(seqs):
    """Two lines: the age experiments (inserted fresh lines: probes missed / probes) and the splits."""
    ages, splits = [], []
    for s in seqs:
        tg = s["tags"]
        if tg.get("step") != "policy":
            continue
        rep = int(tg.get("repeats", "1"))
        miss = sum(s["records"])
        if tg.get("kind") == "age":  # one probe per repetition
            ages.append(f"{tg.get('fresh')}:{miss}/{rep}")
        else:
            splits.append(f"{miss}/{len(s['records']) * rep}")
    out = []
    if ages:
        out.append("policy ages (fresh lines inserted: probes missed/probes): " + " ".join(ages))
    if splits:
        out.append("policy splits (accesses missed/timed): " + " ".join(splits))
    return out


def congruence_lines(seqs):
    out = []
    for s in seqs:
        tg = s["tags"]
        if tg.get("step") == "congruence":
            hits = sum(1 for r in s["records"] if r >= 2)
            out.append(f"{tg.get('flip')} flips: {hits} of {len(s['records'])} congruent")
    return out


def read_meta(path):
    """The header of a .seqtrace: key -> value."""
    meta = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            if k == "sequences":
                break
            meta[k] = v
    return meta


def yes(x):
    return "yes" if x else "NO"


def cache_lines(p, b, meta):
    """What to read per cache: the family's result, its cost, the calibration and the pool."""
    kib = lambda x: f"{x / 1024:.0f} KiB" if x < 4 << 20 else f"{x / 1048576:.1f} MiB"
    miss = b.get("fresh_miss_cycles", 0)
    untimed = b.get("untimed_cycles_per_access", 0)
    pol = meta.get("policy_consistent", "-")
    out = [f"{p.get('cache', '?')} ({p.get('path', '?')}): ways {b['ways_found']:.0f}, minimal {yes(b['minimal'])}, "
           f"line seen {b['line_bytes_seen']:.0f} B, congruent bits {b['congruent_bits']:.0f} (pairs "
           f"{b['congruent_pairs']:.0f}), policy: {b['policy_sequences']:.0f} experiments, deterministic "
           f"candidates consistent {b['candidates_consistent']:.0f} ({pol})",
           f"    cost: {b['launches']:.0f} launches, {b['device_seconds']:.2f} s device, {b['accesses'] / 1e6:.1f} M "
           f"accesses; complete {yes(b['search_complete'])}, budget exhausted {b['budget_exhausted']:.0f}, stopped "
           f"{meta.get('stopped', '?')}",
           f"    calibration: hits {meta.get('calib_hit_cycles_lo', '?')}-{b.get('hit_cycles', 0):.0f}, next level "
           f"{b.get('next_level_cycles', 0):.0f}, fresh miss {miss:.0f}, L2 hit {b.get('l2_hit_cycles', 0):.0f} -> "
           f"threshold {b['hit_threshold_cycles']:.0f}; untimed pass {untimed:.0f} cycles/access -> serialized "
           f"{yes(b.get('serialized', 0))}; fill granularity {b['granularity_bytes']:.0f} B",
           f"    pool {kib(b['pool_bytes'])} at stride {b['stride_bytes']:.0f} B (misses from "
           f"{kib(b.get('pool_miss_bytes', 0))}{'; the set was found in the pool with misses' if b.get('pool_overflows') else ''}), overflow targets {b.get('overflow_targets', 0):.0f}, fresh lines of "
           f"the set {b['fresh_lines']:.0f}, smem {b['smem_bytes']:.0f} B, SM {b.get('sm_id', -1):.0f}"]
    return out


def main(bench, trace_dir):
    d = json.load(open(bench))
    for b in d["benchmarks"]:
        name = re.sub(r"/(iterations|repeats|threads|manual_time|real_time).*$", "", b.get("run_name", b["name"]))
        if not name.startswith("cache_sequences/") or b.get("run_type") == "aggregate":
            continue
        p = params(name)
        if b.get("error_occurred"):
            print(f"{name}: ERROR {b.get('error_message')}")
            continue
        if p.get("check") == "launch":
            print(f"launch check {p['path']:9s}: same launch {b['same_launch_cycles']:.0f} cycles, next launch "
                  f"{b['next_launch_cycles']:.0f} (threshold {b['hit_threshold_cycles']:.0f}) -> "
                  f"{'kept' if b['kept_across_launch'] else 'emptied'} across a launch")
            continue
        tf = os.path.join(trace_dir, name.replace("/", "__").replace(":", "-") + ".seqtrace")
        meta = read_meta(tf) if os.path.exists(tf) else {}
        for line in cache_lines(p, b, meta):
            print(line)
        if os.path.exists(tf):
            seqs = read_trace(tf)
            errs = [s for s in seqs if "error" in s]
            for s in errs[:3]:
                print(f"    sequence error: {s['error']}")
            for line in congruence_lines(seqs) + policy_lines(seqs):
                print("    " + line)
        else:
            print(f"    (no trace {tf})")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    bench = sys.argv[1]
    main(bench, sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(bench), "traces"))
