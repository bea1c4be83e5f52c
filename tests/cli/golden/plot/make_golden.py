#!/usr/bin/env python3
"""Writes the small archive sim_small/ that the plot.py test runs on (committed; re-run after a
format change). It has the shape memhier-bench writes for a simulated device (names and counters of
bench/families/*.cpp and the throughput families, traces in memhier-trace 1), with the numbers of a
toy hierarchy so that every plot has something to show: L1 16/8/4 KiB at carveout 0/50/100,
128-byte lines of 32-byte sectors, L2 256 KiB, 2 MiB pages, 16-entry TLB. Plus one family
(outstanding_requests) that plot.py has no special plot for, to exercise the generic one.
"""
import json
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sim_small")
L1 = {0: 16384, 50: 8192, 100: 4096}
L2 = 262144
LAT = {"l1": 30, "l2": 200, "dram": 450}
rng = random.Random(5)

CONTEXT = {
    "date": "2026-11-21T18:00:00+00:00", "host_name": "ci", "executable": "memhier-bench", "num_cpus": 2,
    "mhz_per_cpu": 2400, "cpu_scaling_enabled": False, "caches": [], "library_build_type": "release",
    "memhier_version": "0.1.0", "memhier_plan": "quick", "trace_dir": "traces",
    "device_backend": "sim:tiny", "gpu_name": "memhier-sim tiny", "gpu_slug": "memhier-sim-tiny",
    "compute_capability": "9.0", "sm_tag": "sm_90", "sm_count": "4", "sm_clock_khz": "1000000",
    "mem_clock_khz": "1000000", "mem_bus_width_bits": "256", "l2_cache_bytes": str(L2),
    "smem_per_sm_bytes": "49152", "driver_version": "sim", "cuda_driver_api": "0", "cuda_runtime": "0",
    "theoretical_dram_bytes_per_second": "6.400000e+10", "plan_wall_seconds": 3.2,
}

benchmarks = []


def add(name, counters, real_time=10.0):
    full = name + "/iterations:1/manual_time"
    e = {"name": full, "family_index": len(benchmarks), "per_family_instance_index": 0, "run_name": full,
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 1,
         "real_time": real_time, "cpu_time": real_time, "time_unit": "us"}
    e.update({k: float(v) if isinstance(v, float) else v for k, v in counters.items()})
    benchmarks.append(e)


def trace(name, rows, extra=None, labels=None):
    os.makedirs(os.path.join(OUT, "traces"), exist_ok=True)
    fn = os.path.join(OUT, "traces", name.replace("/", "__").replace(":", "-") + ".trace")
    with open(fn, "w") as f:
        f.write("memhier-trace 1\nbenchmark %s\nkind fine\nclock_overhead_cycles 0\n" % name)
        for k, v in (extra or {}).items():
            f.write("%s %s\n" % (k, v))
        f.write("records %d\ncolumns %s\ndata\n" % (len(rows), "index latency label" if labels else "index latency"))
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
        f.write("end\n")


def chase(path, mode, n, s, iters, warm, co, lat, mr):
    name = "pchase/path:%s/mode:%s/bytes:%d/stride:%d/iters:%d/warm:%d" % (path, mode, n, s, iters, warm)
    if co is not None:
        name += "/carveout:%d" % co
    c = {"latency_cycles": round(lat, 2), "clock_overhead_cycles": 0.0, "accesses": iters}
    if co is not None:
        c["carveout"] = co
    if mode != "classic":
        c.update({"misses": round(mr * iters), "miss_rate": mr, "hit_latency_cycles": float(LAT["l1"])})
        if mr > 0:
            c["miss_latency_cycles"] = float(LAT["l2"])
    add(name, c)
    return name


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    # global_ca capacity sweeps at three carveouts (LRU, cyclic: all hit up to capacity, then all miss)
    for co, size in L1.items():
        for n in range(2048, 32769, 2048):
            mr = 0.0 if n <= size else 1.0
            chase("global_ca", "count", n, 32, n // 32, 1, co, LAT["l1"] + mr * (LAT["l2"] - LAT["l1"]), mr)
    # stride sweep above capacity: a miss per sector until the stride passes the line
    for s in (4, 8, 16, 32, 64, 128, 256, 512, 1024):
        frac = min(1.0, s / 32.0)
        chase("global_ca", "classic", 32768, s, min(32768 // s, 4096), 1, 0, LAT["l1"] + frac * (LAT["l2"] - LAT["l1"]), 0)
    # fine trace at 4-byte stride above capacity: every 8th access misses (32-byte sector)
    n = chase("global_ca", "fine", 32768, 4, 512, 1, 0, LAT["l1"] + (LAT["l2"] - LAT["l1"]) / 8, 0.125)
    trace(n, [[k, (LAT["l2"] if k % 8 == 0 else LAT["l1"]) + rng.randint(0, 3)] for k in range(512)],
          {"array_bytes": 32768, "chain_length": 8192, "warm": 1})
    # global_cg (L2) sweep and cold fine trace
    for n_ in (32768, 131072, 262144, 524288, 1048576):
        mr = 0.0 if n_ <= L2 else 1.0
        chase("global_cg", "count", n_, 128, n_ // 128, 1, None, LAT["l2"] + mr * (LAT["dram"] - LAT["l2"]), mr)
    n = chase("global_cg", "fine", 524288, 128, 256, 0, None, LAT["dram"], 1.0)
    trace(n, [[k, LAT["dram"] + rng.randint(-10, 40)] for k in range(256)],
          {"array_bytes": 524288, "chain_length": 4096, "warm": 0})
    # TLB: 16 entries of 2 MiB pages, then a miss per access
    for s in (65536, 2097152):
        for m in (16, 64, 256):
            nbytes = m * s
            pages = nbytes / 2097152
            mr = 0.0 if pages <= 16 else 1.0
            add("tlb/bytes:%d/stride:%d" % (nbytes, s),
                {"latency_cycles": LAT["l2"] + mr * 300, "clock_overhead_cycles": 0.0, "accesses": m,
                 "misses": round(mr * m), "miss_rate": mr, "hit_latency_cycles": float(LAT["l2"])})
    # latency spectrum with a labelled trace
    pats = [(0, 900), (1, 450), (2, 200), (3, 520), (4, 30)]
    rows, lab = [], []
    for k in range(60):
        p, base = pats[k % 5]
        rows.append([k * 7, base + rng.randint(0, 20), p])
    name = "latency_spectrum/path:global_cg/bytes:67108864/far_stride:33554432/near_stride:16384"
    c = {"latency_cycles": 420.0, "clock_overhead_cycles": 0.0, "accesses": 60}
    for p, base in pats:
        c["%s_cycles" % ["cold_far", "cold_near", "near_hit", "far_revisit", "same_line"][p]] = float(base + 10)
    add(name, c)
    trace(name, rows, {"labels": "0=cold_far 1=cold_near 2=near_hit 3=far_revisit 4=same_line"}, labels=True)
    # clock overhead
    add("clock_overhead/kind:pair", {"clock_overhead_cycles": 0.0, "latency_cycles": 0.0})
    add("clock_overhead/kind:fine", {"clock_overhead_cycles": 0.0, "latency_cycles": 0.0})
    # throughput families: saturating in CTAs x CTA size x ILP (000 Fig. 12)
    peak = 6.4e10
    for kernel in ("read", "copy"):
        for ilp in (1, 4):
            for size in (128, 256):
                for ctas in (1, 4, 16, 64):
                    warps = ctas * size / 32 * ilp
                    bw = peak * 0.9 * warps / (warps + 24.0) * (0.95 if kernel == "copy" else 1.0)
                    add("gmem_throughput/kind:%s/width:16/ilp:%d/cta_size:%d/ctas:%d" % (kernel, ilp, size, ctas),
                        {"bytes_per_second": bw, "pct_of_peak": 100 * bw / peak})
    for level, lat_bw in (("l1", 96.0), ("l2", 40.0)):
        for ws in (4096, 8192, 16384, 65536, 262144, 1048576):
            cap = L1[0] if level == "l1" else L2
            bpc = lat_bw if ws <= cap else lat_bw / 4
            add("%s_throughput/bytes:%d/ctas:4/cta_size:256/ilp:4/width:16" % (level, ws),
                {"bytes_per_second": bpc * 4 * 1e9, "bytes_per_clock_per_sm": bpc, "pct_of_peak": 100 * bpc / 128})
    for warps in (1, 2, 4, 8, 16, 32):
        for ilp in (1, 2, 4, 8):
            bpc = 128 * (warps * ilp) / (warps * ilp + 6.0)
            add("smem_throughput/warps:%d/ilp:%d/width:4" % (warps, ilp),
                {"bytes_per_clock_per_sm": bpc, "bytes_per_second": bpc * 4 * 1e9, "pct_of_peak": 100 * bpc / 128})
    for width in (4, 8):
        for stride in (1, 2, 4, 8, 16, 32):
            ways = min(32, stride * width // 4)
            add("smem_bank_conflict/stride:%d/width:%d" % (stride, width), {"latency_cycles": 23.0 + 2 * (ways - 1)})
    for pattern in ("broadcast", "contiguous", "stride2", "random"):
        add("warp_access/space:shared/pattern:%s" % pattern,
            {"latency_cycles": {"broadcast": 24.0, "contiguous": 24.0, "stride2": 26.0, "random": 60.0}[pattern]})
    for inflight in (1, 2, 4, 8, 16, 32):
        add("outstanding_requests/design:mshr/requests:%d" % inflight,
            {"latency_cycles": 450.0 * max(1.0, inflight / 8.0), "bytes_per_second": 1e9 * min(inflight, 8)})
    with open(os.path.join(OUT, "bench.json"), "w") as f:
        json.dump({"context": CONTEXT, "benchmarks": benchmarks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
