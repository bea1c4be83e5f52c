#!/usr/bin/env python3
"""Writes a synthetic archive (bench.json + traces/) of the issue-13 families with known answers:
an MSHR table of 256 entries merging 8 threads, l1 = texture = readonly with separate constant
caches, one L1 slice and four constant-L1 slices per SM, two L2 partitions of 4 SMs with the home
given by offset bits 9 and 13 (per page), distinct-line / shared-line L2 layouts, and a peer
output file. check_sm_resources.py checks what memhier-infer and mshr_summary.py make of it.

usage: gen_sm_resources.py OUT_DIR"""
import json, math, os, sys

out = sys.argv[1]
os.makedirs(os.path.join(out, "traces"), exist_ok=True)
entries = []


def jitter(i):
    i = (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    return ((i >> 40) % 7) - 3


def sanitize(name):
    return "".join("__" if c == "/" else "-" if c == ":" else c if (c.isalnum() or c in "_-.") else "_" for c in name)


def trace(name, rows, meta, labels=False):
    with open(os.path.join(out, "traces", sanitize(name) + ".trace"), "w") as f:
        f.write("memhier-trace 1\nbenchmark %s\nkind fine\nclock_overhead_cycles 0\n" % name)
        for k, v in meta.items():
            f.write("%s %s\n" % (k, v))
        f.write("records %d\ncolumns %s\ndata\n" % (len(rows), "index latency label" if labels else "index latency"))
        for r in rows:
            f.write(" ".join(str(int(x)) for x in r) + "\n")
        f.write("end\n")


def entry(name, counters, iters=1):
    e = {"name": name + "/iterations:%d/manual_time" % iters, "run_name": name + "/iterations:%d/manual_time" % iters,
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": iters,
         "real_time": 1000.0, "cpu_time": 1000.0, "time_unit": "ns"}
    e.update(counters)
    entries.append(e)


# ---- outstanding requests: MSHR, 256 entries, merge capacity 8 ----
E, C, seed = 256, 8, 1
entry("outstanding_requests/probe:warp_loads", {"warp_load_limit": 64, "warp_load_limit_reached": 0, "latency_cycles": 290})
for pat in ("unique128", "merge4", "merge16", "merge32"):
    k = int(pat[5:]) if pat.startswith("merge") else 1
    for loads in (1, 2, 4, 8):
        name = "outstanding_requests/pattern:%s/loads:%d" % (pat, loads)
        rows = []
        for t in range(2, 2049, 2):
            used = loads * math.ceil(t / k) * math.ceil(k / C)
            rows.append((t, 300 * math.ceil(used / E) + 0.02 * t * loads + min(t, 32) + jitter(seed) + 10))
            seed += 1
        trace(name, rows, {"content": "thread_latency", "pattern": pat, "loads": loads})
        entry(name, {"beyond_warp_limit": 0, "latency_cycles": rows[0][1], "points": len(rows), "invalid_samples": 0})

# ---- cache sharing: l1 = texture = readonly; constant caches separate ----
hit, miss = (0.0, 34.0), (0.93, 262.0)
def rr(c, prefix, x):
    c[prefix + "_miss_rate"], c[prefix + "_latency_cycles"] = x
for victim in ("l1", "texture", "readonly"):
    c = {}
    rr(c, "none", hit)
    for e in ("l1", "texture", "readonly"):
        rr(c, e, miss)
    entry("cache_sharing/victim:%s/bytes:65536" % victim, c)
for victim, b, ref, ctl in (("constant_l1", 1024, (0.0, 28.0), (0.97, 92.0)), ("constant_l15", 16384, (1.0, 95.0), (1.0, 290.0))):
    c = {}
    rr(c, "none", ref)
    rr(c, "constant", ctl)
    for e in ("l1", "texture", "readonly"):
        rr(c, e, (ref[0], ref[1] + 1))
    entry("cache_sharing/victim:%s/bytes:%d" % (victim, b), c)
# ---- caches per SM: one L1, four constant-L1 slices (warps w = 0 mod 4 share) ----
for cache, b, slices in (("l1", 65536, 1), ("constant_l1", 512, 4)):
    c = {"warps": 32}
    rr(c, "reference", (0.0, 30.0))
    rr(c, "control", (0.95, 200.0))
    for w in range(1, 32):
        rr(c, "w%d" % w, (0.95, 200.0) if w % slices == 0 else (0.0, 30.5))
    entry("caches_per_sm/cache:%s/bytes:%d" % (cache, b), c)

# ---- L2 partitions: 8 SMs, home = parity(offset & (2^9 | 2^13)) ^ page ----
page = 2 << 20
offs = []
for p in range(2):
    offs.append(p * page)
    offs += [p * page + (1 << k) for k in range(7, 21)]
    offs += [p * page + ((i * 2654435761) % (page // 128)) * 128 for i in range(49)]
home = [(bin((o % page) & ((1 << 9) | (1 << 13))).count("1") + o // page) % 2 for o in offs]
rows, sms = [], [0, 2, 4, 6, 8, 10, 12, 14]
for s in range(8):
    for i, h in enumerate(home):
        far = h != (0 if s < 4 else 1)
        for lab, (nv, fv) in enumerate(((660, 830), (281, 452), (700, 455))):
            rows.append((s * len(offs) + i, (fv if far else nv) + jitter(seed), lab))
            seed += 1
mapname = "l2_partitions/map:lines/lines:%d/pressure_bytes:39321600" % len(offs)
trace(mapname, rows, {"content": "l2_partition_map", "lines": len(offs), "sm_ids": ",".join(map(str, sms)),
                      "line_offsets": ",".join(map(str, offs)), "page_bytes": page}, labels=True)
entry(mapname, {"sms": 8, "sms_failed": 0})
for r in (1, 2, 8):
    entry("l2_partitions/readers:%d/bytes:13107200/cta_size:256/ctas:4/ilp:4" % r,
          {"bytes_per_second": 7.6e12 * (1 + 0.25 * (r - 1)), "readers_per_line": r}, 3)
# one SM's global_cg count sweep: far-level accesses from 24 MiB on
for mib in (8, 16, 20, 24, 32):
    name = "pchase/path:global_cg/mode:count/bytes:%d/stride:128/iters:65536/warm:1" % (mib << 20)
    far = 20000 if mib >= 24 else 0
    with open(os.path.join(out, "traces", sanitize(name) + ".trace"), "w") as f:
        f.write("memhier-trace 1\nbenchmark %s\nkind histogram\nclock_overhead_cycles 8\nbin_width 4\nbins 1024\n" % name)
        f.write("records %d\ncolumns bin count\ndata\n%d %d\n" % (2 if far else 1, 70, 65536 - far))
        if far:
            f.write("%d %d\n" % (113, far))
        f.write("end\n")
    entry(name, {"latency_cycles": 300, "accesses": 65536})
# ---- L2 layouts: tile (distinct), oneshot (distinct, faster), peer (shared) ----
for mb, tile, one, peer in ((10485760, 7.6e12, 7.8e12, 8.4e12), (20971520, 7.5e12, 7.7e12, 8.3e12)):
    entry("l2_throughput/bytes:%d/cta_size:512/ctas:4/ilp:4" % mb, {"bytes_per_second": tile, "bytes_per_clock_per_sm": 29}, 3)
    entry("l2_throughput/bytes:%d/cta_size:256/ctas:4/ilp:4/layout:oneshot" % mb,
          {"bytes_per_second": one, "readers_per_line": 1, "resident_ctas": 32}, 3)
    entry("l2_throughput/bytes:%d/cta_size:1024/ctas:2/ilp:2/layout:peer" % mb,
          {"bytes_per_second": peer, "readers_per_line": 132 / (mb / 524288), "resident_ctas": 132}, 3)
    entry("l2_throughput/bytes:%d/cta_size:1024/ctas:2/ilp:2/layout:peer/variant:l2only" % mb,
          {"bytes_per_second": peer - 0.1e12, "readers_per_line": 132 / (mb / 524288), "resident_ctas": 132}, 3)
    entry("l2_throughput/bytes:%d/cta_size:1024/ctas:2/ilp:2/layout:peer/variant:rotated" % mb,
          {"bytes_per_second": tile, "readers_per_line": 1, "resident_ctas": 132, "row_step": 4}, 3)

ctx = {"memhier_version": "synthetic", "device_backend": "cuda", "gpu_name": "Synthetic GPU", "compute_capability": "9.0",
       "sm_count": "8", "l2_cache_bytes": "52428800", "smem_per_sm_bytes": "233472", "trace_dir": "traces"}
json.dump({"context": ctx, "benchmarks": entries}, open(os.path.join(out, "bench.json"), "w"), indent=1)
with open(os.path.join(out, "peer.txt"), "w") as f:
    f.write("     data set   exec time     spread       Eff. bw\n")
    for kb, bw in ((8192, 9000.0), (10240, 8300.0), (15360, 8350.0), (25600, 8400.0), (40960, 7000.0)):
        f.write("       512 kB %12d kB         7ms       0.1%%    %.1f GB/s        0 GB/s \n" % (kb, bw))
print("wrote", out)
