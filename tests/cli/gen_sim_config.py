#!/usr/bin/env python3
"""Random simulated devices for the property tests of memhier-infer (tests/cli/infer_sim.cmake).

usage: gen_sim_config.py --seed N [-o config.json]

One seed gives one memhier-sim-config/1 device (docs/formats.md, section sim-config): an L1 on
global_ca (and on ldg/texture when the seed says so) drawn over
  line 32/64/128 bytes, sectors (line/4 for 128-byte lines, else the line), 2-16 ways,
  4-64 sets, policy lru / fifo / random (uniform) / random with per-way weights (<= 4 ways),
  index modulo / contiguous bits above the line / XOR hash / a table onto unequal sets,
  hit latency 20-120 cycles;
a hashed L2 (256 KiB - 1 MiB, 128-byte lines, 32-byte sectors, 16 ways, LRU) and two TLB levels
(L1 TLB 8/16/32 entries fully associative; L2 TLB fully associative or the 000 §4.4 unequal sets).
The config is the truth the checker (check_topology.py) reads.
"""
import argparse
import json
import random
import sys


def unequal_table(ways):
    """Lines fill set 0 with ways[0] lines, then set 1, ...; then one line per set (000 Fig. 9)."""
    table = []
    for s, w in enumerate(ways):
        table += [s] * w
    return table + list(range(len(ways)))


def gen(seed):
    rnd = random.Random(seed)
    line = rnd.choice([32, 64, 128])
    sector = line // 4 if line == 128 and rnd.random() < 0.5 else line
    kind = rnd.choice(["modulo", "bits", "xor", "table"])
    lb = line.bit_length() - 1
    if kind == "table":
        big = rnd.choice([4, 8])
        ways = [big + rnd.choice([1, 3, 5])] + [big] * rnd.choice([3, 5, 7])
        sets = len(ways)
        index = {"function": "table", "shift": lb, "table": unequal_table(ways)}
        ways_field = ways
    else:
        sets = rnd.choice([4, 8, 16, 32, 64])
        w = rnd.choice([2, 4, 8, 16])
        while sets * w * line > 48 * 1024:
            sets //= 2
        nb = sets.bit_length() - 1
        ways_field = w
        if kind == "modulo":
            index = {"function": "modulo"}
        elif kind == "bits":
            lo = lb + rnd.choice([0, 1, 2])
            index = {"function": "bits", "bits": list(range(lo, lo + nb))}
        else:
            index = {"function": "xor", "groups": [{"lo": lb, "width": nb}, {"lo": lb + nb, "width": nb},
                                                   {"lo": lb + 2 * nb, "width": nb}]}
    nways = max(ways_field) if isinstance(ways_field, list) else ways_field
    policy = rnd.choice(["lru", "fifo", "random", "weighted"] if nways <= 4 else ["lru", "fifo", "random"])
    if policy == "weighted":
        weights = [rnd.choice([1, 2, 3]) for _ in range(nways)]
        if len(set(weights)) == 1:
            weights[0] += 2
        replacement = {"policy": "random", "weights": weights, "seed": seed}
    elif policy == "random":
        replacement = {"policy": "random", "seed": seed}
    else:
        replacement = policy
    l1 = {"name": "l1", "line_bytes": line, "sector_bytes": sector, "ways": ways_field, "index": index,
          "replacement": replacement, "hit_latency_cycles": rnd.randint(20, 120)}
    if not isinstance(ways_field, list):
        l1["sets"] = sets
    l2_bytes = rnd.choice([256, 512, 1024]) * 1024
    l2_sets = l2_bytes // (128 * 16)
    nb2 = l2_sets.bit_length() - 1
    l2 = {"name": "l2", "size_bytes": l2_bytes, "line_bytes": 128, "sector_bytes": 32, "sets": l2_sets, "ways": 16,
          "index": {"function": "xor", "groups": [{"lo": 7 + k * nb2, "width": nb2} for k in range(4)]},
          "replacement": "lru", "hit_latency_cycles": rnd.randint(180, 300)}
    l1_tlb = rnd.choice([8, 16, 32])
    tlbs = [{"name": "l1_tlb", "page_bytes": 2097152, "entries": l1_tlb, "sets": 1, "ways": l1_tlb,
             "replacement": "lru", "miss_penalty_cycles": rnd.randint(40, 120)}]
    if rnd.random() < 0.5:
        tw = [17, 8, 8, 8, 8, 8, 8]
        tlbs.append({"name": "l2_tlb", "page_bytes": 2097152, "entries": sum(tw), "ways": tw,
                     "index": {"function": "table", "shift": 21, "table": unequal_table(tw)},
                     "replacement": "lru", "miss_penalty_cycles": rnd.randint(150, 300)})
    else:
        e = rnd.choice([48, 64, 96])
        tlbs.append({"name": "l2_tlb", "page_bytes": 2097152, "entries": e, "sets": 1, "ways": e,
                     "replacement": "lru", "miss_penalty_cycles": rnd.randint(150, 300)})
    paths = {"global_ca": {"levels": ["l1", "l2"], "translated": True},
             "global_cg": {"levels": ["l2"], "translated": True}}
    for p in ("ldg", "texture"):
        if rnd.random() < 0.3:
            paths[p] = {"levels": ["l1", "l2"], "translated": True}
    return {
        "format": "memhier-sim-config/1",
        "name": f"gen_{seed}",
        "description": f"random device (tests/cli/gen_sim_config.py --seed {seed})",
        "device": {"gpu_name": f"Simulated random GPU {seed}", "compute_capability": "7.0", "sm_count": 2,
                   "sm_clock_khz": 1000000, "smem_per_sm_bytes": 49152, "smem_per_block_optin_bytes": 49152,
                   "l2_bytes": l2_bytes, "global_mem_bytes": 4294967296, "const_bytes": 65536},
        "clock_overhead": {"pair_cycles": 8, "fine_cycles": 16},
        "dram_latency_cycles": rnd.randint(400, 600),
        "levels": [l1, l2],
        "tlbs": tlbs,
        "paths": paths,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text = json.dumps(gen(a.seed), indent=1) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
