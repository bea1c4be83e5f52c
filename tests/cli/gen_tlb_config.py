#!/usr/bin/env python3
"""A random simulated device for the TLB property tests (tests/cli/infer_tlb_sim.cmake).

usage: gen_tlb_config.py --seed N [-o config.json]

Only translation varies: an L1 TLB (8-64 entries, one page or two per entry, fully associative or
2-4 modulo-indexed sets, 3-40 cycles per miss) and an L2 TLB (128-521 entries of 1, 4 or 16 pages,
at least the L1's entry; one set, modulo-indexed sets or 000-style unequal sets; 60-400 cycles per
miss: twice its entries stay below 1/8 of the data L2's lines, so its entry reach can show), pages
of 512 KiB or 2 MiB, 24-160 GiB of memory (at least 4 times the L2 TLB's reach), latency noise of
sd 0 or 3 cycles. The data path is a
2 MiB hashed L2 (global_cg only), so the rest of the characterization stays quick. Deterministic:
the same seed gives the same device.
"""
import argparse
import json
import random
import sys


def unequal(total_sets, big, small):
    """Ways [big, small, ...] and a table index over entry numbers: the first `big` entries to
    set 0, then `small` per set, then one per set (000 Fig. 9 over the reach unit)."""
    ways = [big] + [small] * (total_sets - 1)
    table = []
    for s, w in enumerate(ways):
        table += [s] * w
    return ways, table + list(range(total_sets))


def l2_tlb(rnd, page, l1_entry):
    # entries at least the L1's (an L2 looked up only on L1 misses cannot show smaller ones)
    entry = max(page * rnd.choice([1, 4, 16]), l1_entry)
    kind = rnd.choice(["fa", "modulo", "unequal"])
    t = {"name": "l2_tlb", "page_bytes": page, "entry_bytes": entry, "replacement": "lru",
         "miss_penalty_cycles": rnd.randint(60, 400)}
    if kind == "fa":
        e = rnd.choice([128, 256, 512])
        t.update({"entries": e, "sets": 1, "ways": e})
    elif kind == "modulo":
        sets = rnd.choice([4, 8])
        ways = rnd.choice([32, 64])
        t.update({"entries": sets * ways, "sets": sets, "ways": ways})  # at most 512 entries
    else:
        sets = rnd.choice([4, 7, 8])
        small = rnd.choice([32, 64])
        ways, table = unequal(sets, small + rnd.choice([1, 8, 9]), small)
        t.update({"entries": sum(ways), "ways": ways,
                  "index": {"function": "table", "shift": entry.bit_length() - 1, "table": table}})
    return t


def gen(seed):
    rnd = random.Random(seed)
    page = rnd.choice([512 << 10, 2 << 20])
    e1 = rnd.choice([8, 16, 32, 64])
    sets1 = rnd.choice([1, 1, 2, 4])
    l1 = {"name": "l1_tlb", "page_bytes": page, "entry_bytes": page * rnd.choice([1, 2]), "entries": e1,
          "sets": sets1, "ways": e1 // sets1, "replacement": "lru", "miss_penalty_cycles": rnd.randint(3, 40)}
    cfg = {
        "format": "memhier-sim-config/1",
        "name": f"tlbgen_{seed}",
        "description": f"random TLB device (tests/cli/gen_tlb_config.py --seed {seed})",
        "device": {"gpu_name": f"Simulated random TLB GPU {seed}", "compute_capability": "9.0", "sm_count": 2,
                   "sm_clock_khz": 1000000, "smem_per_sm_bytes": 233472, "smem_per_block_optin_bytes": 232448,
                   "l2_bytes": 2097152, "global_mem_bytes": 0},
        "clock_overhead": {"pair_cycles": 2, "fine_cycles": 8},
        "dram_latency_cycles": rnd.randint(500, 800),
        "levels": [{"name": "l2", "size_bytes": 2097152, "line_bytes": 128, "sector_bytes": 32, "sets": 256,
                    "ways": 64, "index": {"function": "xor", "groups": [{"lo": 7 + 8 * k, "width": 8} for k in range(4)]},
                    "replacement": "lru", "hit_latency_cycles": rnd.randint(200, 320)}],
        "tlbs": [l1, l2_tlb(rnd, page, l1["entry_bytes"])],
        "paths": {"global_cg": {"levels": ["l2"], "translated": True}},
    }
    reach = cfg["tlbs"][1]["entries"] * cfg["tlbs"][1]["entry_bytes"]
    cfg["device"]["global_mem_bytes"] = rnd.choice([m for m in (24, 80, 141, 160) if (m << 30) >= 4 * reach]) << 30
    if rnd.random() < 0.5:
        cfg["latency_noise"] = {"sd_cycles": 3, "seed": seed}
    return cfg


def main():
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_sim_config import run_generator  # one command line for both generators
    return run_generator(gen, __doc__)


if __name__ == "__main__":
    main()
