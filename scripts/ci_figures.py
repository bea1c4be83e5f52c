#!/usr/bin/env python3
"""The two figures of docs/ci.md from a set of back-to-back archives of one GPU:
  false positives: memhier-compare over every pair (older as base) — goal 0 pairs failing;
  detection: each injected change (scripts/inject_change.py: bandwidth -5 %, latency +10 cycles,
  line size, capacity) in a copy of the newer archive of every pair, compared with the older one,
  and in a copy of each archive compared with itself — goal: every one caught (exit 1 or 3).

usage: python3 scripts/ci_figures.py ARCHIVE ARCHIVE [...] [--compare PATH] [--work DIR] [--markdown]
                                     [--reinfer MEMHIER_INFER]
--reinfer analyzes copies of the archives again with that memhier-infer first (their measurements
as they are, the topology from the analyzer at hand): the figures then test the analyzer too.
Prints a table (Markdown with --markdown, to paste into docs/ci.md); exit 0 when both goals hold,
1 otherwise, 2 on bad input.
"""
import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"bandwidth": (1, "bandwidth -5 %"), "latency": (1, "latency +10 cycles"),
         "line": (3, "line size halved"), "capacity": (3, "capacity halved")}


def compare(tool, base, new):
    # --as-archived: an injected change lives in the copy's topology.json (scripts/inject_change.py),
    # which memhier-compare would otherwise replace by analyzing the raw data again
    p = subprocess.run([tool, "--format=json", "--as-archived", base, new], capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        sys.exit("ci_figures.py: memhier-compare %s %s failed: %s" % (base, new, p.stderr.strip()))
    return p.returncode, j["gate"]["worse"] + j["gate"]["structural_changes"]


def inject(archive, out, kind):
    p = subprocess.run([sys.executable, os.path.join(HERE, "inject_change.py"), archive, out, "--kind", kind],
                       capture_output=True, text=True)
    return p.returncode == 0


def reinfer(infer, archives, work):
    out = []
    for i, arch in enumerate(archives):
        dest = os.path.join(work, "reinfer", "%d-%s" % (i, os.path.basename(arch.rstrip("/"))))
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(arch, dest)
        p = subprocess.run([infer, "--allow-errors", dest, "-o", os.path.join(dest, "topology.json"),
                            "--report", os.path.join(dest, "report.md")], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("ci_figures.py: memhier-infer on %s failed: %s" % (arch, p.stderr.strip()[-400:]))
        out.append(dest)
    return out


def default_compare():
    """build/release/memhier-compare of the checkout, P/bin/memhier-compare when installed under P
    (this script in P/share/memhier/scripts), else the one on the PATH."""
    for p in (os.path.join(HERE, "..", "build", "release", "memhier-compare"),
              os.path.join(HERE, "..", "..", "..", "bin", "memhier-compare")):
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    return shutil.which("memhier-compare") or os.path.join(HERE, "..", "build", "release", "memhier-compare")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="+")
    ap.add_argument("--compare", default=default_compare(),
                    help="memhier-compare to use (default: build/release's in a checkout, bin/'s in an install prefix)")
    ap.add_argument("--work", help="directory for the injected copies (default: a temporary one)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--reinfer", metavar="MEMHIER_INFER", help="analyze copies of the archives again first")
    a = ap.parse_args()
    if len(a.archives) < 2 or not os.access(a.compare, os.X_OK):
        print("ci_figures.py: needs two or more archives and memhier-compare (--compare)", file=sys.stderr)
        return 2
    archives = sorted(a.archives, key=lambda p: os.path.basename(p.rstrip("/")))
    work = a.work or tempfile.mkdtemp(prefix="ci_figures-")
    if a.reinfer:
        archives = reinfer(a.reinfer, archives, work)
    pairs = list(itertools.combinations(archives, 2))
    fp = []
    for base, new in pairs:
        rc, what = compare(a.compare, base, new)
        if rc != 0:
            fp.append((base, new, rc, what))
    detect = {k: [0, 0, 0, 0] for k in KINDS}  # caught vs other run, tried; caught vs itself, tried
    missed = []
    for kind, (want, _) in KINDS.items():
        for i, arch in enumerate(archives):
            out = os.path.join(work, "%s-%d" % (kind, i))
            if not inject(arch, out, kind):
                continue
            rc, _ = compare(a.compare, arch, out)
            detect[kind][2] += 1
            detect[kind][3] += rc == want
            if rc != want:
                missed.append((kind, arch, arch, rc))
            for base in archives[:i]:
                rc, _ = compare(a.compare, base, out)
                detect[kind][0] += 1
                detect[kind][1] += rc == want
                if rc != want:
                    missed.append((kind, base, arch, rc))
    bar = "| " if a.markdown else ""
    end = " |" if a.markdown else ""
    sep = " | " if a.markdown else "  "
    print("%sfalse positives%s%d of %d pairs fail the gate%s" % (bar, sep, len(fp), len(pairs), end))
    if a.markdown:
        print("|---|---|")
    for kind, (want, label) in KINDS.items():
        t, c, ts, cs = detect[kind][0], detect[kind][1], detect[kind][2], detect[kind][3]
        print("%s%s%scaught %d of %d against another run, %d of %d against itself (exit %d)%s"
              % (bar, label, sep, c, t, cs, ts, want, end))
    for base, new, rc, what in fp:
        print("false positive: %s -> %s exit %d: %s" % (base, new, rc, ", ".join(what)))
    for kind, base, arch, rc in missed:
        print("missed: %s injected into %s, compared with %s: exit %d" % (kind, arch, base, rc))
    return 0 if not fp and not missed else 1


if __name__ == "__main__":
    sys.exit(main())
