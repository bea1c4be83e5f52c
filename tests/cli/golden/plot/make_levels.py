#!/usr/bin/env python3
"""Synthetic data of the four level families beyond one SM (dsmem, async_copy, host, peer) for the
plot.py and topology_table.py tests (tests/cli/levels_plots.cmake): written at test time, not
committed.

usage: make_levels.py bench <base bench.json | -> <out bench.json>
         the base archive's benchmarks (none for '-') plus every level benchmark under the names of
         bench/families/levels.cpp (the full plan, two peers), with H100-like numbers; the link
         context keys are added.
       make_levels.py topology <base topology.json | -> <out topology.json>
         the base topology plus the sections distributed_shared_memory, async_copies, host_memory,
         peers (some values null, with their reasons, as the analyzer leaves what it cannot decide).
       make_levels.py topology-null <base | -> <out>: the four sections null, each with its reason.
"""
import json
import sys

KiB, MiB = 1024, 1024 * 1024
CLOCK = 1.98e9
SMS = 132
HOST_LINK, PEER_LINK = 63e9, 450e9
CONTEXT = {"host_link": "PCIe Gen5 x16", "host_link_bytes_per_second": "6.3e+10", "peer_devices": "1,2",
           "peer_link": "NV18", "peer_link_bytes_per_second": "4.5e+11", "max_cluster_size": "16"}


def entry(name, counters, index):
    full = name + "/iterations:1/manual_time"
    e = {"name": full, "family_index": index, "per_family_instance_index": 0, "run_name": full,
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 1,
         "real_time": 10.0, "cpu_time": 10.0, "time_unit": "us"}
    e.update({k: float(v) for k, v in counters.items()})
    return e


def dsmem():
    for c in (2, 4, 8, 16):
        for r in sorted({0, 1, c // 2, c - 1}):
            lat = 30.0 if r == 0 else 190.0 + 2 * r
            yield ("dsmem/op:latency/cluster:%d/rank:%d" % (c, r),
                   {"latency_cycles": lat, "latency_min_cycles": lat - (1 if r == 0 else 12),
                    "latency_max_cycles": lat + (1 if r == 0 else 20), "clusters": 132 // c * 2 // 2,
                    "accesses": 512, "clock_overhead_cycles": 2})
    for op in ("read", "write"):
        for c in (2, 4, 8, 16):
            for remote in (0, 1):
                if remote == 0 and c != 2:
                    continue
                for t in (256, 1024):
                    bpc = (110.0 if remote == 0 else 24.0 + 0.5 * c) * (1.0 if t == 1024 else 0.7)
                    yield ("dsmem/op:%s/cluster:%d/remote:%d/cta_size:%d" % (op, c, remote, t),
                           {"bytes_per_clock_per_sm": bpc, "bytes_per_second": bpc * SMS * CLOCK,
                            "pct_of_peak": bpc / 128 * 100, "warps_per_sm": t // 32 * 2})


def async_copy():
    speed = {"plain": 0.55, "cp_async": 0.7, "bulk": 0.9, "tensor": 0.92}
    for m in ("plain", "cp_async", "bulk", "tensor"):
        for src, peak in (("l2", 5.5e12), ("dram", 3.0e12)):
            runs = [(chunk, k, 2) for chunk in (1 * KiB, 4 * KiB, 16 * KiB) for k in (1, 2)] + [(4 * KiB, 1, 1), (4 * KiB, 1, 4)]
            for chunk, k, s in runs:
                bps = peak * speed[m] * min(1.0, 0.5 + 0.1 * k * s + chunk / (32 * KiB))
                yield ("async_copy/op:bandwidth/method:%s/source:%s/chunk:%d/ctas_per_sm:%d/stages:%d" % (m, src, chunk, k, s),
                       {"bytes_per_second": bps, "bytes_per_clock_per_sm": bps / SMS / CLOCK, "pct_of_peak": bps / 3.35e12 * 100})
        for chunk in (1 * KiB, 16 * KiB):
            yield ("async_copy/op:latency/method:%s/chunk:%d" % (m, chunk),
                   {"latency_cycles": (900 if m in ("bulk", "tensor") else 700) + chunk // 32, "clock_overhead_cycles": 2})
    for c in (2, 4):
        yield ("async_copy/op:multicast/source:l2/chunk:%d/cluster:%d" % (4 * KiB, c),
               {"bytes_per_second": 4.5e12 * c * 0.8, "source_bytes_per_second": 4.5e12})


def host():
    for b in (256 * KiB, 64 * MiB):
        for w in (0, 1):
            yield ("host/op:latency/bytes:%d/warm:%d" % (b, w), {"latency_cycles": 2900.0 - 10 * w, "latency_ns": 1465.0})
    for op in ("read", "write"):
        for k in (1, 4):
            bps = HOST_LINK * (0.6 if k == 1 else 0.85)
            yield ("host/op:%s/ctas_per_sm:%d" % (op, k), {"bytes_per_second": bps, "pct_of_peak": bps / HOST_LINK * 100})
    for d in ("h2d", "d2h", "bidir"):
        for b in (1 * MiB, 64 * MiB):
            bps = HOST_LINK * (0.7 if b == MiB else 0.85) * (1.8 if d == "bidir" else 1)
            yield ("host/op:copy/dir:%s/bytes:%d" % (d, b), {"bytes_per_second": bps, "pct_of_peak": 100 * bps / HOST_LINK})
    yield ("host/op:managed/bytes:%d" % (256 * MiB),
           {"fault_latency_cycles": 50000, "bytes_per_second": 12e9, "prefetch_bytes_per_second": 45e9})


def peer():
    for d in (1, 2):
        for st, lat in (("cold", 1900), ("warm", 1850), ("owner", 1400)):
            yield ("peer/dst:%d/op:latency/bytes:%d/state:%s" % (d, MiB, st), {"latency_cycles": lat, "latency_ns": lat / 1.98})
        for op in ("read", "write"):
            for k in (1, 4):
                bps = PEER_LINK * (0.5 if k == 1 else 0.85)
                yield ("peer/dst:%d/op:%s/ctas_per_sm:%d" % (d, op, k), {"bytes_per_second": bps, "pct_of_peak": 100 * bps / PEER_LINK})
        for dr in ("uni", "bidir"):
            for b in (MiB, 64 * MiB):
                bps = PEER_LINK * (0.6 if b == MiB else 0.87) * (1.9 if dr == "bidir" else 1)
                yield ("peer/dst:%d/op:copy/dir:%s/bytes:%d" % (d, dr, b), {"bytes_per_second": bps})


def bench(base, out):
    j = json.load(open(base)) if base != "-" else {
        "context": {"memhier_version": "0.1.0", "gpu_name": "synthetic H100", "device_backend": "cuda",
                    "sm_count": str(SMS), "theoretical_dram_bytes_per_second": "3.35e+12"}, "benchmarks": []}
    j["context"].update(CONTEXT)
    for gen in (dsmem, async_copy, host, peer):
        for name, counters in gen():
            j["benchmarks"].append(entry(name, counters, len(j["benchmarks"])))
    json.dump(j, open(out, "w"), indent=1)


SECTIONS = {
    "distributed_shared_memory": {
        "latency_cycles": 194.0, "latency_spread_cycles": [180.0, 212.0], "local_latency_cycles": 30.0,
        "by_cluster": {"2": {"0": 30.0, "1": 192.0}, "4": {"0": 30.0, "1": 193.0, "2": 194.0, "3": 195.0},
                       "8": {"1": 196.0, "4": 196.0, "7": 196.0}, "16": {}},
        "rank_effect": {"cycles": 2.0, "decided": "none", "noise_cycles": 12.0, "reason": "remote ranks of ..."},
        "cluster_effect": {"cycles": None, "decided": None, "reason": "only 1 rank 1 over cluster sizes measured"},
        "sm_pair_effect": {"cycles": 31.0, "decided": "depends on SM pair", "noise_cycles": 12.0,
                           "same_tpc_cycles": 170.0, "other_tpc_cycles": 201.0},
        "bandwidth": {"read": {"local_bytes_per_clock_per_sm": 110.0, "remote_bytes_per_clock_per_sm": 28.0,
                               "remote_bytes_per_second": 7.3e12, "remote_over_local": 0.25},
                      "write": None, "write_reason": "no write benchmarks in the archive"}},
    "async_copies": {
        "methods": {"plain": {"l2_bytes_per_second": 3.0e12, "l2_pct_of_l2_peak": 55.0, "dram_bytes_per_second": 1.6e12,
                              "dram_pct_of_peak": 49.0, "latency_cycles": {"1024": 732, "16384": 1212}},
                    "bulk": {"l2_bytes_per_second": 5.0e12, "l2_pct_of_l2_peak": 91.0, "dram_bytes_per_second": 2.9e12,
                             "dram_pct_of_peak": 87.0, "latency_cycles": {"1024": 932, "16384": 1412}},
                    "tensor": {"l2_bytes_per_second": None, "l2_bytes_per_second_reason": "tensor maps refused by the driver",
                               "dram_bytes_per_second": None, "latency_cycles": None}},
        "fastest": {"l2": "bulk", "dram": "bulk"},
        "multicast": {"2": {"bytes_per_second": 7.2e12, "source_bytes_per_second": 4.5e12}}},
    "host_memory": {
        "link": "PCIe Gen5 x16", "link_bytes_per_second": 63e9, "latency_cycles": 2900.0, "latency_ns": 1465.0,
        "cached_in_l2": False, "read": {"bytes_per_second": 53.5e9, "pct_of_link": 84.9},
        "write": {"bytes_per_second": None, "bytes_per_second_reason": "host write failed", "pct_of_link": None},
        "copy": {"h2d": {"bytes_per_second": 53.6e9, "pct_of_link": 85.0}, "d2h": {"bytes_per_second": 53.1e9, "pct_of_link": 84.3},
                 "bidir": {"bytes_per_second": 96.4e9, "pct_of_link": 76.5}},
        "managed": {"fault_latency_us": 25.3, "migration_bytes_per_second": 12e9}},
    "peers": [
        {"device": 1, "link": "NV18", "link_bytes_per_second": 450e9, "latency_cycles": 1900.0, "latency_ns": 960.0,
         "latency_by_state": {"cold": 1900.0, "warm": 1850.0, "owner": 1400.0}, "cached_in": "owner_l2",
         "read": {"bytes_per_second": 382e9, "pct_of_link": 84.9}, "write": {"bytes_per_second": 380e9, "pct_of_link": 84.4},
         "copy": {"uni": {"bytes_per_second": 391e9, "pct_of_link": 86.9}, "bidir": {"bytes_per_second": 740e9, "pct_of_link": 82.2}}},
        {"device": 2, "link": None, "latency_cycles": None, "provenance": {"latency_cycles": {"reason": "peer access refused"}},
         "cached_in": None, "cached_in_reason": "cold and warm states not both measured",
         "read": {"bytes_per_second": None, "reason": "no peer read measured"}}],
}


def topology(base, out, null=False):
    t = json.load(open(base)) if base != "-" else {"device": {"gpu_name": "synthetic H100", "sm_tag": "sm_90"}}
    t.update({k: None for k in SECTIONS} if null else SECTIONS)
    if null:
        t.update({k + "_reason": "no %s benchmarks in the archive" % k for k in SECTIONS})
    json.dump(t, open(out, "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("bench", "topology", "topology-null"):
        sys.exit(__doc__)
    if sys.argv[1] == "bench":
        bench(sys.argv[2], sys.argv[3])
    else:
        topology(sys.argv[2], sys.argv[3], sys.argv[1] == "topology-null")
