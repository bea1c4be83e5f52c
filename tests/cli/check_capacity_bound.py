#!/usr/bin/env python3
"""A cache's capacity is below any footprint whose every access missed in its warm capacity sweep
(miss rate >= 0.95: every set held more lines than its ways, whatever the index and the policy).
Re-infers an archive with memhier-infer and checks each cache's size_bytes against the sweep in
the archive's own bench.json / refine-N.json (count mode, warm, the size's carveout), the bound
derived here from the data. The H100's texture once read 512 KiB from an eviction-set matrix
while its sweep missed everywhere from 270 KiB on. Also: a cache whose sequence search found no
minimal eviction set and whose sets are null names that search in the reason. An L2 whose
caches.l2 is the whole L2 is checked by what one SM sees (one_sm_sees.half_point_bytes).
usage: check_capacity_bound.py ARCHIVE MEMHIER_INFER WORKDIR"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

arch, infer, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
shutil.copytree(arch, work)
subprocess.run([infer, "--allow-errors", work, "-o", os.path.join(work, "topology.json")], check=True,
               capture_output=True)
topo = json.load(open(os.path.join(work, "topology.json")))
full = {}  # (path, carveout) -> smallest footprint that missed on every access
for f in sorted(glob.glob(os.path.join(work, "bench.json*")) + glob.glob(os.path.join(work, "refine-*.json*"))):
    d = json.load(gzip.open(f) if f.endswith(".gz") else open(f))
    for b in d.get("benchmarks", []):
        n = b.get("name", "")
        if not n.startswith("pchase/") or "/mode:count/" not in n or "/warm:1" not in n or b.get("error_occurred"):
            continue
        p = dict(kv.split(":", 1) for kv in n.split("/")[1:] if ":" in kv)
        if b.get("miss_rate", 0) >= 0.95:
            key = (p["path"], p.get("carveout", "0"))
            full[key] = min(full.get(key, 1 << 62), int(p["bytes"]))
paths = {"l1": "global_ca", "texture": "texture", "readonly": "ldg", "l2": "global_cg"}
bad, checked = [], 0
for cache, path in paths.items():
    c = topo.get("caches", {}).get(cache, {})
    size = c.get("size_bytes")
    if isinstance(c.get("one_sm_sees"), dict):
        # caches.l2 is the whole L2 (partitions x slices x sets x ways x line, or the driver's
        # figure); one SM's chase sweeps what one SM sees, whose 50 % point is bounded alike
        size = c["one_sm_sees"].get("half_point_bytes")
    bound = full.get((path, str(c.get("size_carveout", 0)))) or full.get((path, "0"))
    if not isinstance(size, (int, float)) or bound is None:
        continue
    checked += 1
    if size >= bound:
        bad.append("%s: size_bytes %d but its sweep missed on every access at %d bytes" % (cache, size, bound))
# A cache whose sequence search found no minimal eviction set and whose sets are null says so in
# the reason (the experiment that showed why, not only the P-chase's).
searched, found = set(), set()
for f in sorted(glob.glob(os.path.join(work, "bench.json*")) + glob.glob(os.path.join(work, "refine-*.json*"))):
    d = json.load(gzip.open(f) if f.endswith(".gz") else open(f))
    for b in d.get("benchmarks", []):
        n = b.get("name", "")
        if n.startswith("cache_sequences/cache:") and not b.get("error_occurred"):
            cache = n.split("/")[1].split(":", 1)[1]
            searched.add(cache)
            if b.get("minimal", 0):
                found.add(cache)
for cache in sorted(searched - found):
    c = topo.get("caches", {}).get(cache, {})
    if c.get("sets") is None:
        checked += 1
        why = c.get("provenance", {}).get("sets", {}).get("reason", "")
        if "eviction set" not in why:
            bad.append("%s: sets null without the sequence search's word: %s" % (cache, why[:160]))
print("capacity bound and null reasons: %d checks, %d failed" % (checked, len(bad)))
for b in bad:
    print("  " + b)
sys.exit(1 if bad or checked == 0 else 0)
