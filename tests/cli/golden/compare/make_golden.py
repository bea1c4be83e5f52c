#!/usr/bin/env python3
"""Writes the golden archives of the memhier-compare CLI tests (committed; re-run after a format
change). base/ is a small archive of an H100 as memhier-bench and memhier-infer write it (names and
counters of bench/families/*.cpp and the throughput families; schema memhier-topology/1); the others
are copies with one deliberate difference each:
  same/        unchanged copy                         -> every row SAME, exit 0
  slower_bw/   one gmem_throughput bytes_per_second and its pct_of_peak lowered by 20 %  -> WORSE, exit 1
  l1_changed/  topology caches.l1.size_bytes and sets differ                             -> CHANGED, exit 0
  other_gpu/   another GPU model (gpu_name, compute capability)                          -> refused, exit 2
"""
import copy
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
THEORETICAL = 2.0 * 2619000e3 * 5120 / 8  # 2 x mem clock x bus width / 8

CONTEXT = {
    "date": "2026-11-21T18:02:11+00:00",
    "host_name": "gpu-node-07",
    "executable": "build/release/memhier-bench",
    "num_cpus": 16,
    "mhz_per_cpu": 2400,
    "cpu_scaling_enabled": False,
    "caches": [],
    "load_avg": [0.4, 0.3, 0.2],
    "library_build_type": "release",
    "memhier_version": "0.1.0",
    "memhier_plan": "quick",
    "trace_dir": "traces",
    "device_backend": "cuda",
    "device_index": "0",
    "gpu_name": "NVIDIA H100 80GB HBM3",
    "gpu_slug": "nvidia-h100-80gb-hbm3",
    "compute_capability": "9.0",
    "sm_tag": "sm_90",
    "sm_count": "132",
    "sm_clock_khz": "1980000",
    "mem_clock_khz": "2619000",
    "mem_bus_width_bits": "5120",
    "l2_cache_bytes": "52428800",
    "smem_per_sm_bytes": "233472",
    "smem_per_block_optin_bytes": "232448",
    "global_mem_bytes": "84929216512",
    "driver_version": "580.95.05",
    "driver_version_source": "nvml",
    "cuda_driver_api": "13000",
    "cuda_runtime": "13000",
    "theoretical_dram_bytes_per_second": "%e" % THEORETICAL,
    "plan_wall_seconds": 41.7,
}


def entry(idx, name, real_time_us, counters):
    full = name + "/iterations:1/manual_time"
    e = {"name": full, "family_index": idx, "per_family_instance_index": 0, "run_name": full,
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
         "iterations": 1, "real_time": real_time_us, "cpu_time": real_time_us * 1.3, "time_unit": "us"}
    e.update(counters)
    return e


def bench():
    b = []
    ca = "pchase/path:global_ca/mode:count/bytes:%d/stride:32/iters:%d/warm:1/carveout:0"
    for i, (kib, lat, mr) in enumerate([(16, 33.4, 0.0), (128, 33.5, 0.0), (256, 262.1, 1.0)]):
        n = kib * 1024
        it = n // 32
        b.append(entry(i, ca % (n, it), 0.8 * it / 100, {
            "latency_cycles": lat, "clock_overhead_cycles": 30.0, "accesses": it, "carveout": 0,
            "sm_id": 0, "misses": round(mr * it), "miss_rate": mr, "hit_latency_cycles": lat}))
    b.append(entry(3, "pchase/path:global_cg/mode:classic/bytes:104857600/stride:4096/iters:16384/warm:0",
                   5400.0, {"latency_cycles": 812.6, "clock_overhead_cycles": 30.0, "accesses": 16384}))
    b.append(entry(4, "tlb/bytes:33554432/stride:2097152", 14.2,
                   {"latency_cycles": 271.0, "clock_overhead_cycles": 30.0, "accesses": 16,
                    "misses": 0, "miss_rate": 0.0, "hit_latency_cycles": 271.0}))
    for i, (kernel, ctas, ilp, frac) in enumerate([("read", 4, 4, 0.031), ("read", 528, 4, 0.905),
                                                   ("copy", 528, 4, 0.861)]):
        bps = frac * THEORETICAL
        b.append(entry(5 + i, "gmem_throughput/kind:%s/width:16/ilp:%d/cta_size:256/ctas:%d" % (kernel, ilp, ctas),
                       1.0e6 * (1 << 30) / bps, {"bytes_per_second": bps, "pct_of_peak": 100 * frac, "warps_per_sm": 8.0 * ctas / 132}))
    b.append(entry(8, "smem_throughput/warps:16/ilp:4/width:16", 12.0,
                   {"bytes_per_second": 1.31e13, "bytes_per_clock_per_sm": 124.6, "pct_of_peak": 97.3}))
    b.append(entry(9, "smem_bank_conflict/stride:2/width:4", 3.0, {"latency_cycles": 46.0}))
    b.append(entry(10, "clock_overhead/kind:pair", 1.0, {"clock_overhead_cycles": 2.0, "latency_cycles": 2.0}))
    return {"context": copy.deepcopy(CONTEXT), "benchmarks": b}


def topology():
    def cache(size, line, sector, sets, ways, lat, penalty, evidence):
        return {"size_bytes": size, "line_bytes": line, "sector_bytes": sector, "sets": sets, "ways": ways,
                "replacement": "lru", "index_bits": "hashed", "hit_latency_cycles": lat,
                "miss_penalty_cycles": penalty, "shared_with": [], "per_sm": True, "confidence": 0.9,
                "evidence": evidence}
    return {
        "schema": "memhier-topology/1",
        "device": {k: CONTEXT[k] for k in ("gpu_name", "compute_capability", "driver_version")},
        "caches": {
            "l1": cache(229376, 128, 32, 448, [4] * 1, 33.4, 228.7,
                        ["pchase/path:global_ca/mode:count/bytes:262144/stride:32/iters:8192/warm:1/carveout:0"]),
            "l2": dict(cache(52428800, 128, 32, None, None, 262.1, 550.5, []), per_sm=False, sets=None, ways=None),
            "l1_tlb": None,
        },
        "shared_memory": {"latency_cycles": 29.0, "banks": 32, "bank_width_bytes": 4,
                          "peak_bytes_per_clock_per_sm": 124.6},
        "global_memory": {"dram_latency_cycles": 812.6, "peak_read_bytes_per_second": 0.905 * THEORETICAL,
                          "peak_copy_bytes_per_second": 0.861 * THEORETICAL,
                          "theoretical_bytes_per_second": THEORETICAL},
    }


def write(name, b, t):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "bench.json"), "w") as f:
        json.dump(b, f, indent=1)
        f.write("\n")
    if t is not None:
        with open(os.path.join(d, "topology.json"), "w") as f:
            json.dump(t, f, indent=1)
            f.write("\n")


def main():
    b, t = bench(), topology()
    write("base", b, t)
    write("same", b, t)

    slow = copy.deepcopy(b)
    for e in slow["benchmarks"]:
        if e["run_name"].startswith("gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:528/"):
            e["bytes_per_second"] *= 0.8
            e["pct_of_peak"] *= 0.8
            e["real_time"] /= 0.8
    write("slower_bw", slow, t)

    l1 = copy.deepcopy(t)
    l1["caches"]["l1"]["size_bytes"] = 196608
    l1["caches"]["l1"]["sets"] = 384
    write("l1_changed", b, l1)

    other = copy.deepcopy(b)
    other["context"].update({"gpu_name": "NVIDIA A100-SXM4-40GB", "gpu_slug": "nvidia-a100-sxm4-40gb",
                             "compute_capability": "8.0", "sm_tag": "sm_80", "sm_count": "108",
                             "driver_version": "575.57.08"})
    write("other_gpu", other, None)


if __name__ == "__main__":
    main()
