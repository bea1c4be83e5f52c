#!/usr/bin/env python3
"""Writes the sim configs of the replacement-policy ctest cases (tests/cli/infer_sim_policy.cmake):
sim/configs/l2_modulo_96_sets.json's device (an L1 of 32 sets x 4 ways, 128-byte lines, modulo
index; an L2 of 96 sets) with the L1 under each policy of POLICIES. Rerun after changing the list.

usage: make_configs.py  (writes l1_<policy>.json next to this script)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "..", "sim", "configs", "l2_modulo_96_sets.json")
# QLRU variants (nanoBench's names, two outside the five it found in Intel caches), SRRIP, and LRU /
# FIFO / tree-PLRU as controls. Not here: BRRIP and the QLRU variants that insert at age 3
# (qlru_*_m3_*): on them the cache_sequences search finds no minimal eviction set (3 lines, not
# minimal), so the policy simulation never runs (a new line is the next victim: W congruent lines do
# not evict the target); the P-chase then reads the cyclic thrashing as lru_or_fifo.
POLICIES = ["qlru_h11_m1_r0_u0", "qlru_h21_m2_r0_u0_umo", "qlru_h00_m1_r2_u1", "qlru_h10_m1_r1_u3",
            "qlru_h20_m0_r1_u2_umo", "srrip", "lru", "fifo", "plru"]


def main():
    base = json.load(open(BASE))
    for p in POLICIES:
        c = json.loads(json.dumps(base))
        c["name"] = "l1_" + p
        c["description"] = ("Issue 20 (3): an L1 of 32 sets x 4 ways (128-byte lines, modulo index) under " + p +
                            "; the access sequences must name it, or a list that holds it. From "
                            "sim/configs/l2_modulo_96_sets.json by tests/cli/policy/make_configs.py.")
        for L in c["levels"]:
            if L["name"] == "l1":
                L["replacement"] = p
        with open(os.path.join(HERE, "l1_" + p + ".json"), "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
