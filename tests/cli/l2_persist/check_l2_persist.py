#!/usr/bin/env python3
"""What run_l2_persist_test.sh's archives must show (the configs' l2_persisting blocks):
like: a 6 MiB set-aside granted in 64 KiB steps, every persisting line kept, nothing without a
window; weaker: 1 MiB steps (requests rounded up, as the H100 grants them), half of what is granted
kept; minstep: 1 MiB steps and one step kept for a persisting window at a limit of 0 (the H100's
control), the window-free control none; quick: 4 benchmarks."""
import json
import os
import subprocess
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
assert len(names) == 8, names
assert names[0].startswith("l2_persist/request:0/window:%d/ratio:0/policy:none" % M), names  # the window-free control first
assert all(not b.get("error_occurred") for b in bench["benchmarks"]), names
assert bench["context"]["l2_persisting_max_bytes"] == str(M), bench["context"]
for b in bench["benchmarks"]:
    for k in ("kept_bytes", "kept_fraction", "requested_bytes", "window_bytes", "hit_latency_cycles", "set_aside_bytes"):
        assert k in b or (k == "hit_latency_cycles" and b["requested_bytes"] == 0), (b["name"], k)
s = topo["l2_persisting"]
assert s["max_bytes"] == M, s["max_bytes"]
assert s["control_kept_bytes"] == 0, s["control_kept_bytes"]
assert s["control_access_policy_window"] is False and "policy:none" in s["control_benchmark"], s["control_benchmark"]
assert s["minimum_set_aside_bytes"] == 0, s["minimum_set_aside_bytes"]  # request 0 with the window keeps nothing either
assert s["largest_kept_bytes"] == M, s["largest_kept_bytes"]
assert s["kept_of_max"] == 1.0, s["kept_of_max"]
r = rows(topo)
for eighths in (1, 2, 4, 8):
    row = r[(M * eighths // 8, M, 1.0)]
    assert abs(row["kept_bytes"] - M * eighths / 8) <= 128, row
    assert abs(row["kept_fraction"] - eighths / 8) < 1e-3, row
assert abs(r[(M, 2 * M, 1.0)]["kept_fraction"] - 0.5) < 1e-3, r[(M, 2 * M, 1.0)]
assert "## L2 persisting" in report and "| requested | granted |" in report, report[-800:]
# the sweep's requests are multiples of 64 KiB: granted as asked, no step to see
assert s["grant_rounding"] == "exact" and s["grant_step_bytes"] is None, (s["grant_rounding"], s["grant_step_bytes"])
assert all(row["probe_span_bytes"] == row["window_bytes"] and "probe_span_reason" not in row for row in r.values()), r

bench, topo, report = load("weaker")
s = topo["l2_persisting"]
r = rows(topo)
half = r[(M // 2, M, 1.0)]
assert half["set_aside_bytes"] == 3 * MiB, half
assert abs(half["kept_bytes"] - 1.5 * MiB) <= 128, half
eighth = r[(M // 8, M, 1.0)]
assert eighth["set_aside_bytes"] == MiB and abs(eighth["kept_bytes"] - MiB / 2) <= 128, eighth  # 768 KiB rounds up to 1 MiB
assert eighth["kept_of_granted"] == 0.5, eighth
assert s["grant_rounding"] == "up" and s["grant_step_bytes"] == MiB, (s["grant_rounding"], s["grant_step_bytes"])
assert abs(s["largest_kept_bytes"] - 3 * MiB) <= 256, s["largest_kept_bytes"]
assert abs(s["kept_of_max"] - 0.5) < 1e-3, s["kept_of_max"]

bench, topo, report = load("minstep")
s = topo["l2_persisting"]
r = rows(topo)
nowin = [b for b in bench["benchmarks"] if b["name"].startswith("l2_persist/request:0/") and "policy:none" in b["name"]]
assert len(nowin) == 1 and nowin[0]["access_policy_window"] == 0 and nowin[0]["kept_bytes"] == 0, nowin
assert r[(0, M, 1.0)]["set_aside_bytes"] == 0 and abs(r[(0, M, 1.0)]["kept_bytes"] - MiB) <= 128, r[(0, M, 1.0)]
assert s["control_kept_bytes"] == 0, s["control_kept_bytes"]
assert s["grant_step_bytes"] == MiB, s["grant_step_bytes"]
assert abs(s["minimum_set_aside_bytes"] - MiB) <= 128, s["minimum_set_aside_bytes"]
assert abs(s["minimum_set_aside_of_step"] - 1) < 1e-3, s["minimum_set_aside_of_step"]
assert abs(s["window_control_kept_bytes"] - MiB) <= 128, s["window_control_kept_bytes"]
assert s["largest_kept_bytes"] == M, s["largest_kept_bytes"]  # the survival test uses the window-free control
assert "minimum set-aside" in report and "| no window |" in report, report[-1500:]

bench, topo, report = load("quick")
assert len(bench["benchmarks"]) == 4, [b["name"] for b in bench["benchmarks"]]

# the tables of scripts/: results_table.py's rows and topology_table.py's "L2 persisting" section
scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts")
sys.path.insert(0, scripts)
import results_table  # noqa: E402

_, topo, _ = load("weaker")
got = {what: (fmt(v) if v is not None else None) for group, what, v, fmt, _c, _r in results_table.rows_of(topo)
       if group == "L2 persisting"}
assert got.get("set-aside at most (persistingL2CacheMaxSize)") == "6 MiB", got
assert got.get("set-aside granted in steps of") == "1 MiB", got
assert got.get("largest kept against a streaming co-runner") == "3 MiB", got
assert got.get("kept of the maximum (whole set-aside, window of its size)") == "50.0 %", got
out = subprocess.run([sys.executable, os.path.join(scripts, "topology_table.py"), f"{work}/weaker/topology.json"],
                     capture_output=True, text=True, check=True).stdout
sec = out[out.index("\nL2 persisting"):]
assert "granted in steps of" in sec and "1 MiB" in sec and "rounded up" in sec, sec
assert "kept 50.0 % of it" in sec, sec
out = subprocess.run([sys.executable, os.path.join(scripts, "topology_table.py"), f"{work}/minstep/topology.json"],
                     capture_output=True, text=True, check=True).stdout
sec = out[out.index("\nL2 persisting"):]
assert "minimum set-aside under a window" in sec and "1.00 grant steps" in sec and "no access policy (control)" in sec, sec
_, topo, _ = load("minstep")
got = {what: (fmt(v) if v is not None else None) for group, what, v, fmt, _c, _r in results_table.rows_of(topo)
       if group == "L2 persisting"}
assert got.get("kept at request 0 under a window (minimum set-aside)") == "1 MiB", got

print("check_l2_persist: ok")
