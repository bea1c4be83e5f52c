#!/usr/bin/env python3
"""Parses a GPGPU-Sim configuration (memhier-infer --gpgpusim-config) back with GPGPU-Sim's own grammar.

usage: check_gpgpusim_config.py CONFIG [--l2-bytes N | --topology TOPOLOGY.json] | --self-test

Cache values follow cache_config::init in src/gpgpu-sim/gpu-cache.h (accel-sim/gpgpu-sim_distribution):
sscanf("%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u,%u") with at least 12 fields; type N|S;
replacement L|F; write R|B|T|E|L; allocation m|f|s; write-allocation N|W|F|L; set index H|P|C|L|X;
MSHR F|T (then exactly 14 fields)|A|S. Its checks: a sector cache has 128-byte lines (4 sectors of
32); write-back with allocate-on-fill is refused, as is fetch-on-write / lazy-fetch with on-fill;
the line a multiple of the data port. The set index masks (nset - 1), so L, X, P need a power-of-two
set count (P: 16, 32 or 64 sets; H: 32 or 64). Other options: integers (-gpgpu_memory_partition_indexing
0..5); the unified L1 a whole multiple of the dl1 (get_max_cache_multiplier's assert). Every option line
is preceded by a comment. --l2-bytes: dl2 x n_mem x sub-partitions must equal N (--topology: the
topology's device.l2_cache_bytes).
Exit 0 clean, 1 with one line per problem, 2 on bad usage.
"""
import json
import re
import sys

CACHE_OPTS = {"-gpgpu_cache:dl1", "-gpgpu_cache:dl2", "-gpgpu_tex_cache:l1", "-gpgpu_const_cache:l1", "-gpgpu_cache:il1"}
INT_OPTS = {"-gpgpu_n_clusters", "-gpgpu_n_cores_per_cluster", "-gpgpu_n_mem", "-gpgpu_n_sub_partition_per_mchannel",
            "-gpgpu_memory_partition_indexing", "-gpgpu_unified_l1d_size", "-gpgpu_shmem_size",
            "-gpgpu_shmem_sizeDefault", "-gpgpu_shmem_per_block", "-gpgpu_l1_latency", "-gpgpu_smem_latency",
            "-gpgpu_l2_rop_latency", "-dram_latency"}
LETTERS = [("type", "NS"), ("replacement", "LF"), ("write", "RBTEL"), ("alloc", "mfs"), ("write_alloc", "NWFL"),
           ("set_index", "HPCLX"), ("mshr", "FTAS")]
# The sscanf format as a token list: 'c' a character, 'u' an unsigned, or a literal separator.
FORMAT = ["c", ":", "u", ":", "u", ":", "u", ",", "c", ":", "c", ":", "c", ":", "c", ":", "c", ",", "c", ":", "u",
          ":", "u", ",", "u", ":", "u", ",", "u"]


def scan(value):
    """sscanf semantics: the fields converted before the first mismatch."""
    out, i = [], 0
    for tok in FORMAT:
        if tok == "c":
            if i >= len(value):
                break
            out.append(value[i])
            i += 1
        elif tok == "u":
            m = re.match(r"\s*(\d+)", value[i:])
            if not m:
                break
            out.append(int(m.group(1)))
            i += m.end()
        else:
            if value[i:i + 1] != tok:
                break
            i += 1
    return out


def check_cache(opt, value):
    f = scan(value)
    if len(f) < 12:
        return [f"{opt} {value}: {len(f)} fields, cache_config::init needs at least 12"], None
    ct, nset, line, assoc, rp, wp, ap, wap, sif, mshr = f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]
    p = []
    for (what, allowed), v in zip(LETTERS, [ct, rp, wp, ap, wap, sif, mshr]):
        if v not in allowed:
            p.append(f"{opt} {value}: {what} '{v}' is not one of {allowed}")
    if mshr in "FT" and len(f) != 14:
        p.append(f"{opt} {value}: a texture-FIFO MSHR ({mshr}) needs exactly 14 fields, has {len(f)}")
    if ap in "fs" and wp == "B":
        p.append(f"{opt} {value}: write-back with allocate-on-fill is refused (deadlock)")
    if wap in "FL" and ap == "f":
        p.append(f"{opt} {value}: fetch-on-write / lazy fetch needs allocate-on-miss")
    if ct == "S" and line != 128:
        p.append(f"{opt} {value}: a sector cache needs 128-byte lines (4 sectors of 32), not {line}")
    port = f[14] if len(f) >= 15 and f[14] else line
    if port == 0 or line % port:
        p.append(f"{opt} {value}: line {line} is no multiple of the data port {port}")
    pow2 = nset > 0 and nset & (nset - 1) == 0
    if sif in "LXP" and not pow2:
        p.append(f"{opt} {value}: set index {sif} masks with nset - 1: {nset} sets is no power of two")
    if sif == "P" and nset not in (16, 32, 64):
        p.append(f"{opt} {value}: IPOLY (P) takes 16, 32 or 64 sets, not {nset}")
    if sif == "H" and nset not in (32, 64):
        p.append(f"{opt} {value}: Fermi's hash (H) takes 32 or 64 sets, not {nset}")
    if min(nset, line, assoc) <= 0:
        p.append(f"{opt} {value}: sets, line and ways must be positive")
    return p, nset * line * assoc


def check_text(text, l2_bytes=None):
    problems, vals, sizes = [], {}, {}
    prev = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            prev = line
            continue
        parts = line.split("#")[0].split()
        if len(parts) != 2 or not parts[0].startswith("-"):
            problems.append(f"line {n}: not '-option value': {line}")
            continue
        opt, value = parts
        if not prev.startswith("#"):
            problems.append(f"line {n}: {opt} has no comment before it")
        prev = line
        if opt in CACHE_OPTS:
            p, size = check_cache(opt, value)
            problems += p
            sizes[opt] = size
        elif opt in INT_OPTS:
            if not value.isdigit():
                problems.append(f"line {n}: {opt} {value}: not an unsigned integer")
                continue
            vals[opt] = int(value)
        else:
            problems.append(f"line {n}: unknown option {opt}")
    if vals.get("-gpgpu_memory_partition_indexing", 0) > 5:
        problems.append("-gpgpu_memory_partition_indexing: 0..5 (consecutive, bitwise, IPOLY, PAE, random, custom)")
    dl1, uni = sizes.get("-gpgpu_cache:dl1"), vals.get("-gpgpu_unified_l1d_size")
    if dl1 and uni and (dl1 < 1024 or (uni * 1024) % dl1):
        problems.append(f"-gpgpu_unified_l1d_size {uni} KB is no whole multiple of the dl1's {dl1} bytes")
    if l2_bytes is not None:
        total = (sizes.get("-gpgpu_cache:dl2") or 0) * vals.get("-gpgpu_n_mem", 0) * vals.get("-gpgpu_n_sub_partition_per_mchannel", 1)
        if total != l2_bytes:
            problems.append(f"dl2 x n_mem x sub-partitions = {total} bytes, not the L2's {l2_bytes}")
    for need in ("-gpgpu_cache:dl1", "-gpgpu_cache:dl2", "-gpgpu_tex_cache:l1", "-gpgpu_const_cache:l1"):
        if need not in sizes:
            problems.append(f"{need} missing")
    for need in ("-gpgpu_l1_latency", "-gpgpu_l2_rop_latency", "-dram_latency", "-gpgpu_smem_latency", "-gpgpu_n_mem",
                 "-gpgpu_memory_partition_indexing", "-gpgpu_unified_l1d_size", "-gpgpu_shmem_size"):
        if need not in vals:
            problems.append(f"{need} missing")
    return problems


def self_test():
    """Lines GPGPU-Sim accepts pass (its shipped H100 values), lines it refuses fail."""
    good = ["S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", "S:64:128:40,L:B:m:L:P,A:192:4,32:0,32",
            "N:4:128:256,L:R:m:N:L,T:512:8,128:2", "N:128:64:8,L:R:f:N:L,S:2:64,4"]
    bad = ["S:4:128:64,Q:T:m:L:L,A:512:8,16:0,32", "S:320:128:16,L:B:m:L:L,A:192:4,32:0,32",
           "S:256:128:20,L:B:f:L:X,A:192:4,32:0,32", "N:4:128:256,L:R:m:N:L,T:512:8,128:2,0",
           "S:4:64:64,L:T:m:L:L,A:512:8,16:0,32", "S:4:128", "S:256:128:20,L:B:m:L:P,A:192:4,32:0,32"]
    fails = [g for g in good if check_cache("x", g)[0]] + [b for b in bad if not check_cache("x", b)[0]]
    for f in fails:
        print("self-test: wrong verdict on", f)
    return 1 if fails else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] not in ("--l2-bytes", "--topology")):
        print(__doc__, file=sys.stderr)
        return 2
    l2 = None
    if len(argv) == 4:
        l2 = int(argv[3]) if argv[2] == "--l2-bytes" else int(json.load(open(argv[3]))["device"]["l2_cache_bytes"])
    with open(argv[1]) as f:
        problems = check_text(f.read(), l2)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
