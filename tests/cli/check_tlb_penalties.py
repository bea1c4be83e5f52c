#!/usr/bin/env python3
"""Checks the TLB miss penalties of a topology against a simulated config (issue 20).

usage: check_tlb_penalties.py <config.json> <topology.json> NAME=EXPECT ...
  EXPECT  truth: the config's miss_penalty_cycles of that level (tlbs[i] -> l{i+1}_tlb), within
          the model's noise: 0.05 cycles on a noise-free device, else max(2 x the stated 95 %
          interval, 0.2) (as check_topology.py)
          null:  miss_penalty_cycles null with a reason; a lower bound beside it must not exceed
                 the truth (a bound that holds another level's share is as wrong as a value)
          nowrong: either of the two, or the level not reported (l3_tlb)
"""
import json
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    cfg, topo = json.load(open(argv[1])), json.load(open(argv[2]))
    noise = cfg.get("latency_noise", {}).get("sd_cycles", 0)
    truth = {f"l{i + 1}_tlb": t["miss_penalty_cycles"] for i, t in enumerate(cfg.get("tlbs", []))}
    fails = []
    for arg in argv[3:]:
        name, want = arg.split("=", 1)
        c = topo.get("caches", {}).get(name) or {}
        got, true_p = c.get("miss_penalty_cycles"), truth[name]
        reason = c.get("provenance", {}).get("miss_penalty_cycles", {}).get("reason")
        bound = c.get("miss_penalty_lower_bound_cycles")
        if not c and want != "truth":  # a third level not reported at all: no value, nothing wrong
            print(f"{name}: not reported (truth {true_p})")
            continue
        if got is None:
            if want == "truth":
                fails.append(f"{name}: expected {true_p}, got null ({reason})")
            elif not reason:
                fails.append(f"{name}: null without a reason")
            elif isinstance(bound, (int, float)) and bound > true_p + 0.5:
                fails.append(f"{name}: lower bound {bound} above the penalty {true_p}")
            print(f"{name}: null (truth {true_p}, bound {bound}): {reason}")
            continue
        tol = max(2 * (c.get("miss_penalty_ci95_cycles") or 0), 0.2) if noise else 0.05
        if want == "null":
            fails.append(f"{name}: expected null with a reason, got {got}")
        elif abs(got - true_p) > tol:
            fails.append(f"{name}: expected {true_p} +- {tol:.2f}, got {got}")
        print(f"{name}: {got} (truth {true_p} +- {tol:.2f})")
    for f in fails:
        print("MISMATCH " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
