#!/usr/bin/env python3
"""Runs memhier-bench's cache_streams family (the full plan's benchmarks of the family) on simulated
devices whose L1 replaces by LRU and by SLRU, and checks what it wrote: names follow the contract
(cache_streams/cache:/path:/variant:/loads:/k:), every entry ran with trials > 0 and the contract's
counters; `fresh` is evicted more often at larger k; under LRU `fresh` follows the binomial of
the L1's sets and ways (P(Binomial(k, 1/S) >= W)) and `reread1` equals `fresh` (a hit changes no
order a random stream sees); under SLRU `reread1` survives at least as well as `fresh`, and clearly
better at the largest k. Also prints the family's wall time on each device.
   usage: check_cache_streams.py memhier-bench plain_lru.json workdir"""
import json
import math
import os
import re
import subprocess
import sys
import time

NAME = re.compile(r"^cache_streams/cache:(l1|texture|readonly|l2)/path:(global_ca|texture|ldg|global_cg)/"
                  r"variant:(fresh|reread1|reread2|mid|two_ages)/loads:(dep|indep)/k:([1-9][0-9]*)$")
PAIR = {"l1": "global_ca", "texture": "texture", "readonly": "ldg", "l2": "global_cg"}
COUNTERS = ["trials", "evicted", "p_evicted", "pool_bytes", "line_bytes", "sms", "hit_cycles", "miss_cycles",
            "threshold_cycles"]


def binom_tail(k, p, w):
    return 1.0 - sum(math.comb(k, i) * p**i * (1 - p)**(k - i) for i in range(w))


def run(bench, base, work, policy):
    cfg = json.load(open(base))
    cfg["name"] = f"streams_{policy}"
    # the L1's size is the family's scale (shared memory per SM where the unified size is unknown)
    cfg["device"]["smem_per_sm_bytes"] = cfg["device"]["smem_per_block_optin_bytes"] = 32768
    l1 = next(l for l in cfg["levels"] if l["name"] == "l1")
    l1["replacement"] = policy
    path = os.path.join(work, f"{policy}.json")
    json.dump(cfg, open(path, "w"))
    out = os.path.join(work, f"bench_{policy}.json")
    t0 = time.time()
    r = subprocess.run([bench, f"--device=sim:{path}", "--benchmark_filter=^cache_streams/",
                        f"--benchmark_out={out}", "--benchmark_out_format=json"], capture_output=True, text=True)
    wall = time.time() - t0
    if r.returncode != 0:
        sys.exit(f"memhier-bench failed: {r.stderr[-2000:]}")
    print(f"{policy}: the family took {wall:.2f} s of wall time (process included)")
    return [b for b in json.load(open(out))["benchmarks"] if b["name"].startswith("cache_streams/")], l1


def check(entries, l1, policy):
    bad = []
    curves = {}
    if not entries:
        return ["no cache_streams benchmark ran"]
    for b in entries:
        name = b["name"].split("/iterations")[0].split("/manual_time")[0]
        m = NAME.match(name)
        if not m:
            bad.append(f"{name}: not a contract name")
            continue
        cache, path, variant, loads, k = m.group(1), m.group(2), m.group(3), m.group(4), int(m.group(5))
        if PAIR[cache] != path:
            bad.append(f"{name}: cache {cache} on path {path}")
        if b.get("error_occurred"):
            bad.append(f"{name}: {b.get('error_message')}")
            continue
        missing = [c for c in COUNTERS if c not in b]
        if missing:
            bad.append(f"{name}: counters {missing} missing")
            continue
        if b["trials"] <= 0 or abs(b["p_evicted"] - b["evicted"] / b["trials"]) > 1e-9:
            bad.append(f"{name}: trials {b['trials']}, evicted {b['evicted']}, p {b['p_evicted']}")
        if not b["hit_cycles"] < b["threshold_cycles"] < b["miss_cycles"]:
            bad.append(f"{name}: threshold {b['threshold_cycles']} not between hit {b['hit_cycles']} and miss {b['miss_cycles']}")
        if (cache != "l2") != ("carveout" in b) or b.get("carveout", 0) < 0:
            bad.append(f"{name}: carveout {b.get('carveout')} (L1-side paths only, non-negative)")
        if variant == "two_ages" and "evicted_second" not in b:
            bad.append(f"{name}: no evicted_second")
        if variant == "mid" and "mid_missed" not in b:
            bad.append(f"{name}: no mid_missed")
        curves.setdefault((cache, variant, loads), {})[k] = (b["p_evicted"], b["trials"])
    if ("l1", "fresh", "dep") not in curves or ("l1", "reread1", "dep") not in curves:
        return bad + ["the l1 curves fresh and reread1 are missing"]
    for (cache, variant, loads), c in sorted(curves.items()):
        ks = sorted(c)
        print(f"  {policy} {cache} {variant} {loads}: " + ", ".join(f"k {k}: {c[k][0]:.3f} ({c[k][1]:.0f})" for k in ks))
        if variant == "fresh" and len(ks) > 1 and not c[ks[-1]][0] > c[ks[0]][0]:
            bad.append(f"{cache} fresh: p_evicted does not rise with k ({[c[k][0] for k in ks]})")
    fresh, reread = curves[("l1", "fresh", "dep")], curves[("l1", "reread1", "dep")]
    sets, ways = l1["sets"], l1["ways"]
    for k in sorted(fresh):
        p, n = fresh[k]
        q = reread[k][0]
        se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
        if policy == "lru":
            pred = binom_tail(k, 1.0 / sets, ways)
            if abs(p - pred) > 4 * se + 0.02:
                bad.append(f"lru fresh k {k}: p {p:.3f}, binomial {pred:.3f} (SE {se:.3f})")
            if abs(q - p) > 4 * se + 0.02:
                bad.append(f"lru k {k}: reread1 {q:.3f} differs from fresh {p:.3f}")
        elif q > p + 4 * se + 0.02:
            bad.append(f"{policy} k {k}: reread1 {q:.3f} evicted more often than fresh {p:.3f}")
    if policy != "lru":
        k = max(fresh)
        if not reread[k][0] < fresh[k][0] - 0.2:
            bad.append(f"{policy} k {k}: reread1 {reread[k][0]:.3f} does not survive clearly better than fresh {fresh[k][0]:.3f}")
    return bad


def main(bench, base, work):
    os.makedirs(work, exist_ok=True)
    bad = []
    for policy in ("lru", "slru"):
        entries, l1 = run(bench, base, work, policy)
        bad += check(entries, l1, policy)
    for x in bad:
        print("FAIL:", x)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(*sys.argv[1:4])
