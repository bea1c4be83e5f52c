#!/usr/bin/env python3
"""What run_l2_persist_test.sh's archives must show (the configs' l2_persisting blocks):
like: a 6 MiB set-aside granted in 64 KiB steps, every persisting line kept; weaker: 1 MiB steps,
half of what is granted kept; quick: 3 benchmarks."""
import json
import sys

work = sys.argv[1]
MiB = 1 << 20
M = 6 * MiB


def load(name):
    return (json.load(open(f"{work}/{name}/bench.json")), json.load(open(f"{work}/{name}/topology.json")),
            open(f"{work}/{name}/report.md").read())


def rows(topo):
    return {(r["requested_bytes"], r["window_bytes"], round(r["hit_ratio"], 2)): r for r in topo["l2_persisting"]["by_request"]}


bench, topo, report = load("like")
names = [b["name"] for b in bench["benchmarks"]]
assert len(names) == 7, names
assert all(not b.get("error_occurred") for b in bench["benchmarks"]), names
assert bench["context"]["l2_persisting_max_bytes"] == str(M), bench["context"]
for b in bench["benchmarks"]:
    for k in ("kept_bytes", "kept_fraction", "requested_bytes", "window_bytes", "hit_latency_cycles", "set_aside_bytes"):
        assert k in b or (k == "hit_latency_cycles" and b["requested_bytes"] == 0), (b["name"], k)
s = topo["l2_persisting"]
assert s["max_bytes"] == M, s["max_bytes"]
assert s["control_kept_bytes"] == 0, s["control_kept_bytes"]
assert s["largest_kept_bytes"] == M, s["largest_kept_bytes"]
assert s["kept_of_max"] == 1.0, s["kept_of_max"]
r = rows(topo)
for eighths in (1, 2, 4, 8):
    row = r[(M * eighths // 8, M, 1.0)]
    assert abs(row["kept_bytes"] - M * eighths / 8) <= 128, row
    assert abs(row["kept_fraction"] - eighths / 8) < 1e-3, row
assert abs(r[(M, 2 * M, 1.0)]["kept_fraction"] - 0.5) < 1e-3, r[(M, 2 * M, 1.0)]
assert "## L2 persisting" in report and "| requested | granted |" in report, report[-800:]

bench, topo, report = load("weaker")
s = topo["l2_persisting"]
r = rows(topo)
half = r[(M // 2, M, 1.0)]
assert half["set_aside_bytes"] == 3 * MiB, half
assert abs(half["kept_bytes"] - 1.5 * MiB) <= 128, half
eighth = r[(M // 8, M, 1.0)]
assert eighth["set_aside_bytes"] == 0 and eighth["kept_bytes"] == 0, eighth  # 768 KiB rounds down to nothing
assert abs(s["largest_kept_bytes"] - 3 * MiB) <= 256, s["largest_kept_bytes"]
assert abs(s["kept_of_max"] - 0.5) < 1e-3, s["kept_of_max"]

bench, topo, report = load("quick")
assert len(bench["benchmarks"]) == 3, [b["name"] for b in bench["benchmarks"]]

print("check_l2_persist: ok")
