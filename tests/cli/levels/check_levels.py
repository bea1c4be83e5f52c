#!/usr/bin/env python3
"""What the analyzer must recover from the two simulated configs' beyond_sm blocks (run_levels_test.sh).

usage: check_levels.py LIKE-DIR UNLIKE-DIR   (each with topology.json and report.md)
"""
import json
import os
import sys


def load(d):
    t = json.load(open(os.path.join(d, "topology.json")))
    r = open(os.path.join(d, "report.md")).read()
    for k in ("distributed_shared_memory", "async_copies", "host_memory", "peers"):
        assert k in t, (d, "missing section", k)
    assert "## Beyond one SM" in r, (d, "report.md has no levels section")
    return t, r


def check_like(t):
    ds = t["distributed_shared_memory"]
    assert 200 <= ds["latency_cycles"] <= 206, ds["latency_cycles"]
    assert 30 <= ds["local_latency_cycles"] <= 36, ds["local_latency_cycles"]
    assert ds["rank_effect"]["decided"] == "none", ds["rank_effect"]
    assert ds["cluster_effect"]["decided"] == "none", ds["cluster_effect"]
    assert "sm_pair_effect" not in ds
    assert sorted(ds["by_cluster"]) == ["16", "2", "4", "8"], ds["by_cluster"]
    rd = ds["bandwidth"]["read"]
    assert abs(rd["remote_bytes_per_clock_per_sm"] - 32 * 32 / 36) < 0.01, rd  # 32 warps, half rate at 4
    assert rd["remote_over_local"] < 0.5, rd
    ac = t["async_copies"]
    assert sorted(ac["methods"]) == ["bulk", "cp_async", "plain", "tensor"], ac["methods"]
    assert ac["fastest"] == {"l2": "bulk", "dram": "bulk"} or ac["fastest"]["l2"] == "bulk", ac["fastest"]
    assert ac["methods"]["bulk"]["l2_bytes_per_second"] == 6.4e12, ac["methods"]["bulk"]
    assert "l2_pct_of_l2_peak_reason" in ac["methods"]["bulk"]  # no l2_throughput in this run
    assert {k: v["delivered_over_read"] for k, v in ac["multicast"].items()} == {"2": 2, "4": 4}, ac["multicast"]
    h = t["host_memory"]
    assert h["link"] == "PCIe Gen5 x16" and h["cached_in_l2"] is False, (h["link"], h["cached_in_l2_reason"])
    assert h["latency_cycles"] == 2900, h["latency_cycles"]
    assert abs(h["read"]["pct_of_link"] - 84) < 0.1, h["read"]
    assert sorted(h["copy"]) == ["bidir", "d2h", "h2d"] and "managed" in h, h
    p = t["peers"]
    assert len(p) == 1 and p[0]["device"] == 1 and p[0]["link"] == "NVLink 4 x18", p
    assert p[0]["cached_in"] == "owner_l2", p[0]["cached_in_reason"]
    assert p[0]["latency_by_state"] == {"cold": 2000, "warm": 1300, "owner": 1300}, p[0]["latency_by_state"]


def check_unlike(t):
    ds = t["distributed_shared_memory"]
    assert ds["rank_effect"]["decided"] == "depends on rank", ds["rank_effect"]
    assert ds["cluster_effect"]["decided"] == "depends on cluster size", ds["cluster_effect"]
    assert ds["sm_pair_effect"]["decided"] == "depends on SM pair", ds["sm_pair_effect"]
    assert abs(ds["sm_pair_effect"]["cycles"] - 30) < 0.5, ds["sm_pair_effect"]
    assert abs(ds["rank_effect"]["cycles"] - 240) < 10, ds["rank_effect"]   # ranks 1..7 of 8, 40 each
    assert abs(ds["cluster_effect"]["cycles"] - 50) < 10, ds["cluster_effect"]  # 2 -> 8: two doublings of 25
    assert sorted(ds["by_cluster"]) == ["2", "4", "8"], ds["by_cluster"]
    ac = t["async_copies"]
    assert sorted(ac["methods"]) == ["cp_async", "plain"], ac["methods"]
    assert ac["fastest"]["l2"] == "cp_async" and "multicast" not in ac, ac
    h = t["host_memory"]
    assert h["cached_in_l2"] is True, h["cached_in_l2_reason"]
    assert h["link"] == "PCIe Gen3 x16" and "managed" not in h, h
    p = t["peers"]
    assert len(p) == 1 and p[0]["device"] == 2, p
    assert p[0]["cached_in"] == "reader_l2", p[0]["cached_in_reason"]


def main():
    like, _ = load(sys.argv[1])
    unlike, _ = load(sys.argv[2])
    check_like(like)
    check_unlike(unlike)
    print("levels: both configs recovered")


if __name__ == "__main__":
    main()
