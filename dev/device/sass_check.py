#!/usr/bin/env python3
"""SASS checks of the issue-13 kernels (cuobjdump -sass output), printed one line per kernel.

usage: sass_check.py outstanding SASS.txt   loads issued before the first use of the first load's
                                            value, for outstanding_kernel<1>, <16> and
                                            warp_loads_probe<64> (must be 1, 16, 64)
       sass_check.py sharing SASS.txt       loads of the fill walk (thread 0, before the first
                                            barrier) of every sharing_kernel (must be >= 1)

A measured load is a 32-bit global load (LDG without .64/.128) that is not a .SYS-scoped poll: on
sm_90 `ld.global.ca` compiles to LDG.E.STRONG.SM and the volatile polls of the rendezvous to
LDG.E.64.STRONG.SYS. The fill walk may read through LDG (global, read-only), TEX/TLD (texture) or
LDC with a register index (the constant bank; kernel parameters are LDC c[0x0][imm])."""
import re
import sys


def functions(path):
    funcs, fn = {}, None
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            fn = m.group(1)
            funcs[fn] = []
            continue
        ins = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);", line)
        if fn and ins:
            funcs[fn].append((ins.group(2), [o.strip() for o in ins.group(3).split(",")]))
    return funcs


def measured_load(op):
    return op.startswith("LDG") and not re.search(r"\.(64|128)\b", op) and ".SYS" not in op


def victim_load(op, ops):
    if op.startswith(("TEX", "TLD")):
        return True
    if op.startswith("LDG"):
        return ".SYS" not in op
    if op.startswith("LDC") and not op.startswith("LDCU"):
        return len(ops) > 1 and "c[0x0]" not in ops[1]  # parameters live in bank 0 at immediate offsets
    return False


def loads_before_first_use(code):
    first = next((i for i, (op, _) in enumerate(code) if measured_load(op)), None)
    if first is None:
        return None
    dest, n = code[first][1][0], 0
    for op, ops in code[first:]:
        if measured_load(op):
            n += 1
            continue
        if op.startswith(("BAR", "EXIT", "BRA")) or any(re.search(r"\b%s\b" % re.escape(dest), o) for o in ops[1:]):
            break
    return n


def fill_loads(code):
    n = 0
    for op, ops in code:
        if op.startswith("BAR"):
            return n
        n += victim_load(op, ops)
    return None  # no barrier at all


def main():
    what, path = sys.argv[1], sys.argv[2]
    funcs = functions(path)
    bad = 0
    if what == "outstanding":
        want = {"outstanding_kernelILi1E": 1, "outstanding_kernelILi16E": 16, "warp_loads_probeILi64E": 64}
        for name, code in sorted(funcs.items()):
            key = next((k for k in want if k in name), None)
            if key is None:
                continue
            n = loads_before_first_use(code)
            ok = n == want[key]
            bad += not ok
            print("sass: %-58s loads before the first use: %s (want %d) %s" % (name[:58], n, want[key], "ok" if ok else "BAD"))
    elif what == "sharing":
        seen = 0
        for name, code in sorted(funcs.items()):
            if "sharing_kernel" not in name:
                continue
            seen += 1
            n = fill_loads(code)
            bad += not n
            if not n and bad <= 3:  # the first three are enough to see the pattern
                print("sass: %-70s fill walk: %s loads before the barrier BAD" % (name[:70], n))
        print("sass: sharing_kernel fill walk present in %d of %d instances%s" % (seen - bad, seen, "" if bad else " ok"))
    else:
        sys.exit("usage: sass_check.py outstanding|sharing SASS.txt")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
