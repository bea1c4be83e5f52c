#!/usr/bin/env python3
"""Checks the SASS of the access-sequence kernel (cuobjdump -sass of backend_cuda_sequence.cu.o;
docs/methodology.md, section sequence) for the two properties its measurements rest on:
  1. every timed window (between two clock reads) holds exactly one load from the array (LDG, TLD,
     TEX), at least one STS (the dependent store) and no other memory access;
  2. accesses never overlap: within a straight-line block, each array load's address depends on the
     value the array load before it returned (a register chain: ANDed with a zero mask, added to
     the address). On the H100's first run ptxas had hoisted eight loads of an untimed pass above
     their stores, the misses overlapped, and the L1 kept only some of the sectors they filled.
Prints one summary line per property (and the offending instructions); exits 1 when either fails.
   usage: check_sequence_sass.py sass.txt [windows.txt]"""
import re
import sys

INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
REG = re.compile(r"\b(U?R\d+|U?P\d+)(\.64)?\b")
LOAD = re.compile(r"^(LDG|TLD|TEX|TLD4|LD)(\.|$)")
OTHER_MEM = re.compile(r"^(LDS|STG|ST|ATOM|ATOMG|ATOMS|RED|LDC)(\.|$)")
BRANCH = re.compile(r"^(BRA|BRX|JMP|JMX|EXIT|RET|CALL)(\.|$)")


def parse(text):
    """Functions: name -> list of (address, predicate, opcode, operands)."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSTR.search(line)
        if not m or cur is None:
            continue
        body = m.group(2).strip()
        pred = ""
        if body.startswith("@"):
            pred, body = body.split(None, 1)
        parts = body.split(None, 1)
        cur.append((int(m.group(1), 16), pred, parts[0], parts[1] if len(parts) > 1 else ""))
    return funcs


def regs(text):
    out = []
    for name, wide in REG.findall(text):
        out.append(name)
        if wide:
            out.append(name[:-len(name.lstrip("UPR"))] + str(int(name.lstrip("UPR")) + 1))
    return out


def dests_sources(op, operands):
    ops = [o.strip() for o in operands.split(",")] if operands else []
    if not ops or op.startswith(("ST", "RED", "BRA", "BAR", "EXIT", "NOP", "BSYNC", "BSSY")):
        return [], regs(operands)
    n_dest = 1
    if re.match(r"^U?(ISETP|PLOP3|FSETP|DSETP)", op):
        n_dest = 2
    elif re.match(r"^U?(IADD3|LEA|IMAD\.WIDE|IADD)(\.|$)", op) and not op.endswith(".X") and len(ops) > 1 \
            and re.fullmatch(r"U?P\d+", ops[1]):
        n_dest = 2
    return regs(",".join(ops[:n_dest])), regs(",".join(ops[n_dest:])) + regs(",".join(
        o for o in ops[:n_dest] if "[" in o))


def blocks(instrs):
    """Straight-line stretches: split at branch targets and after branches."""
    targets = set()
    for _, _, op, operands in instrs:
        if BRANCH.match(op):
            m = re.search(r"0x([0-9a-f]+)", operands)
            if m:
                targets.add(int(m.group(1), 16))
    out, cur = [], []
    for ins in instrs:
        if ins[0] in targets and cur:
            out.append(cur)
            cur = []
        cur.append(ins)
        if BRANCH.match(ins[2]):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def check_chain(instrs):
    """(loads checked against the one before them, list of overlapping loads). A load waits for the
    one before it when its address depends on that load's value, or when a store of the value was
    followed by a clock read (a timed window closed in between)."""
    checked, bad = 0, []
    for blk in blocks(instrs):
        prev, taint, stored, drained = None, set(), False, False
        for addr, pred, op, operands in blk:
            if LOAD.match(op):
                ops = [o.strip() for o in operands.split(",")]
                # texture loads name two destinations, the first RZ when one is unused: TLD.LZ RZ, Rd, Ra, ...
                nd = 2 if op.startswith(("TLD", "TEX")) and len(ops) > 2 else 1
                dest = regs(",".join(ops[:nd]))
                srcs = regs(",".join(ops[nd:]))
                if prev is not None:
                    checked += 1
                    if not drained and not any(r in taint for r in srcs):
                        bad.append(f"0x{addr:04x} {op} {operands} does not depend on 0x{prev:04x}")
                prev, taint, stored, drained = addr, set(dest), False, False
                continue
            if "SR_CLOCK" in operands and stored:
                drained = True
            d, s = dests_sources(op, operands)
            if any(r in taint for r in s):
                taint.update(d)
                stored = stored or op.startswith("STS")
            elif not pred:
                taint.difference_update(d)
    return checked, bad


def check_windows(instrs, name, windows):
    """Timed windows: consecutive clock reads with exactly one array load between them must hold a
    dependent STS and no other memory access. Stretches without a load lie between windows; the
    walk's own clock reads (first run to last access, out_cycles) and the untimed runs between two
    timed accesses (code with branches) enclose many loads and are no timed window; a straight-line
    stretch with several loads between two clock reads is a window gone wrong."""
    n = ok = 0
    clocks = [i for i, (_, _, _, operands) in enumerate(instrs) if "SR_CLOCK" in operands]
    for j in range(len(clocks) - 1):
        body = [instrs[k][2] for k in range(clocks[j] + 1, clocks[j + 1])]
        loads = sum(1 for o in body if LOAD.match(o))
        if loads == 0:
            continue
        if loads > 1 and (j == 0 or j == len(clocks) - 2 or any(BRANCH.match(o) for o in body)):
            continue  # the walk's bounds, or untimed runs between two timed accesses (a loop)
        n += 1
        sts = sum(1 for o in body if re.match(r"^STS(\.|$)", o))
        other = sum(1 for o in body if OTHER_MEM.match(o))
        good = loads == 1 and sts >= 1 and other == 0
        ok += good
        if n <= 4 or not good:
            windows.append(f"{name}: {'ok' if good else 'NOT AS INTENDED'}: {' '.join(body)}")
    return n, ok


def main(path, windows_out=None):
    funcs = {k: v for k, v in parse(open(path).read()).items() if "sequence_kernel" in k}
    if not funcs:
        print("sass: no sequence_kernel in " + path)
        return 1
    windows, n, ok, checked, bad = [], 0, 0, 0, []
    for name, instrs in funcs.items():
        a, b = check_windows(instrs, name, windows)
        n, ok = n + a, ok + b
        c, d = check_chain(instrs)
        checked, bad = checked + c, bad + [f"{name}: {x}" for x in d]
    if windows_out:
        open(windows_out, "w").write("\n".join(windows) + "\n")
    print(f"sass: {n} timed windows in sequence_kernel, {ok} as intended (clock, one load, dependent STS, "
          f"clock), {n - ok} not")
    print(f"sass: {checked} array loads follow another in a straight-line block, {checked - len(bad)} of them "
          f"depend on its value, {len(bad)} overlap it{' (accesses complete one after the other)' if not bad else ''}")
    for x in bad[:8]:
        print("  overlap: " + x)
    return 0 if n > 0 and ok == n and not bad else 1


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
