#!/usr/bin/env python3
"""Random simulated devices for the property tests of memhier-infer (tests/cli/infer_sim.cmake).

usage: gen_sim_config.py --seed N [-o config.json]

One seed gives one memhier-sim-config/1 device (docs/formats.md, section sim-config): an L1 on
global_ca (and on ldg/texture when the seed says so) drawn over
  line 32/64/128 bytes, sectors (line/4 for 128-byte lines, else the line), 2-16 ways,
  4-64 sets, every policy of common/policy.hpp's candidate list (lru, fifo, tree-PLRU both ways
  of filling, bit-PLRU, NRU, the QLRU variants nanoBench found, SRRIP), random with a seed,
  random with per-way weights (<= 4 ways),
  index modulo / contiguous bits above the line / XOR of bit groups / a GF(2) matrix (each row
  one index bit above the line and random higher bits, like Hopper's) / a table onto unequal sets,
  or (one seed in five) one of the structures of 000 Table 5 (Fermi L1 with its per-way
  probabilities, Kepler texture L1, Maxwell read-only), hit latency 20-120 cycles;
a hashed L2 (256 KiB - 1 MiB, 128-byte lines, 32-byte sectors, 16 ways, LRU) and, for seeds 1-6,
two TLB levels (L1 TLB 8/16/32 entries fully associative; L2 TLB fully associative or the 000 §4.4
unequal sets; TLB inference is issue 11's: later seeds leave TLBs out).
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


POLICIES = ["lru", "fifo", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "qlru_h11_m1_r0_u0",
            "qlru_h21_m2_r0_u0_umo", "qlru_h11_m1_r1_u2", "qlru_h00_m1_r2_u1", "qlru_h00_m1_r0_u1", "srrip"]


def table5(rnd, seed):
    """One of the caches 000 Table 5 reports, with this seed's latency and random seed."""
    kind = rnd.choice(["fermi", "kepler", "maxwell"])
    if kind == "fermi":  # 16 KiB, 128 B, 32 sets x 4 ways, way probabilities 1/6 1/2 1/6 1/6 (Fig. 11)
        return {"line_bytes": 128, "sector_bytes": 128, "sets": 32, "ways": 4,
                "index": {"function": "xor", "groups": [{"lo": 7, "width": 5}, {"lo": 13, "width": 2}]},
                "replacement": {"policy": "random", "weights": [1, 3, 1, 1], "seed": seed}}
    if kind == "kepler":  # 12 KiB, 32 B, 4 sets x 96 ways, set = bits 7-8, LRU (Fig. 7)
        return {"line_bytes": 32, "sector_bytes": 32, "sets": 4, "ways": 96,
                "index": {"function": "bits", "bits": [7, 8]}, "replacement": "lru"}
    # Maxwell read-only: 24 KiB, 32 B, 4 sets x 192 ways, not bit-defined, LRU
    return {"line_bytes": 32, "sector_bytes": 32, "sets": 4, "ways": 192,
            "index": {"function": "xor", "groups": [{"lo": 7, "width": 2}, {"lo": 9, "width": 2}, {"lo": 11, "width": 2},
                                                    {"lo": 13, "width": 2}]}, "replacement": "lru"}


def gf2_rows(rnd, lb, nb):
    """Row j: index bit lb + j (so an aligned block of 2^nb lines spreads over every set) and a
    random choice of the bits above the index, up to bit 27."""
    rows = []
    for j in range(nb):
        r = 1 << (lb + j)
        for b in range(lb + nb, 28):
            if rnd.random() < 0.3:
                r |= 1 << b
        rows.append(hex(r))
    return rows


def gen(seed):
    rnd = random.Random(seed)
    if seed % 5 == 0:
        l1 = table5(rnd, seed)
        l1.update({"name": "l1", "hit_latency_cycles": rnd.randint(20, 120)})
        return device(rnd, seed, l1)
    line = rnd.choice([32, 64, 128])
    sector = line // 4 if line == 128 and rnd.random() < 0.5 else line
    kind = rnd.choice(["modulo", "bits", "xor", "table", "gf2"])
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
        elif kind == "gf2":
            index = {"function": "gf2", "rows": gf2_rows(rnd, lb, nb)}
        else:
            index = {"function": "xor", "groups": [{"lo": lb, "width": nb}, {"lo": lb + nb, "width": nb},
                                                   {"lo": lb + 2 * nb, "width": nb}]}
    nways = max(ways_field) if isinstance(ways_field, list) else ways_field
    uneven = isinstance(ways_field, list)
    choices = ["random"] + (["weighted"] if nways <= 4 else [])
    # tree-PLRU needs a power of two of ways; unequal sets keep to the policies any way count serves
    choices += [p for p in POLICIES if not (p.startswith("plru") and (nways & (nways - 1) or uneven))]
    policy = rnd.choice(choices)
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
    return device(rnd, seed, l1)


def tlb_levels(rnd):
    """L1 TLB fully associative; L2 TLB fully associative or the 000 §4.4 unequal sets."""
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
    return tlbs


def device(rnd, seed, l1):
    """The rest of the device around the L1: L2, TLBs, paths."""
    l2_bytes = rnd.choice([256, 512, 1024]) * 1024
    l2_sets = l2_bytes // (128 * 16)
    nb2 = l2_sets.bit_length() - 1
    l2 = {"name": "l2", "size_bytes": l2_bytes, "line_bytes": 128, "sector_bytes": 32, "sets": l2_sets, "ways": 16,
          "index": {"function": "xor", "groups": [{"lo": 7 + k * nb2, "width": nb2} for k in range(4)]},
          "replacement": "lru", "hit_latency_cycles": rnd.randint(180, 300)}
    tlbs = tlb_levels(rnd) if seed <= 6 else []
    paths = {"global_ca": {"levels": ["l1", "l2"], "translated": bool(tlbs)},
             "global_cg": {"levels": ["l2"], "translated": bool(tlbs)}}
    for p in ("ldg", "texture"):
        if rnd.random() < 0.3:
            paths[p] = {"levels": ["l1", "l2"], "translated": bool(tlbs)}
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


def run_generator(gen_fn, doc):
    """The command line of a config generator: --seed N [-o FILE] (stdout without -o)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text = json.dumps(gen_fn(a.seed), indent=1) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def main():
    return run_generator(gen, __doc__)


if __name__ == "__main__":
    sys.exit(main())
