#!/usr/bin/env python3
"""Figures the README and docs quote, computed from what produced them, so that the text cannot
drift from the code and the archives.

usage: python3 scripts/doc_figures.py [--check | --update] [--results DIR] DOC...
       python3 scripts/doc_figures.py --list [--results DIR]

In a DOC, a generated figure sits inline between `<!-- fig:NAME -->` and `<!-- /fig -->`;
--check (the default) exits 1 naming every figure whose text differs from what NAME computes now,
--update rewrites them, --list prints every NAME with its value. Names:

  wall:<gpu-slug>        the characterization's wall time over the kept full archives of that GPU
                         whose stages run up to `pack` (the whole run as printed): "28.5–29.6 s"
  runs:<gpu-slug>        how many kept full archives of that GPU there are: "5"
  benchmarks:<gpu-slug>  benchmarks in the plan of those archives (bench.json entries): "3,032"
  hostile_inputs         hostile inputs in docs/hostile_inputs.md's table (written by its test)

Archives are read through DIR/index.json (default `results`, against the current directory; the
index scripts/archive_index.py writes). Bad input (no such file, an unknown figure, a marker left
open): one line on stderr, exit 2.
"""
import argparse
import gzip
import json
import os
import re
import sys

PROG = "doc_figures.py"
FIG = re.compile(r"<!-- fig:([A-Za-z0-9_:.-]+) -->(.*?)<!-- /fig -->", re.S)
OPEN = re.compile(r"<!-- fig:([A-Za-z0-9_:.-]+) -->")
HERE = os.path.dirname(os.path.abspath(__file__))


class BadInput(Exception):
    pass


def bench_context(archive):
    for name in ("bench.json.gz", "bench.json"):
        p = os.path.join(archive, name)
        if os.path.exists(p):
            opener = gzip.open if name.endswith(".gz") else open
            with opener(p, "rt") as f:
                d = json.load(f)
            return d.get("context", {}), len(d.get("benchmarks", []))
    raise BadInput("%s: no bench.json" % archive)


def archives_of(results, slug):
    idx = os.path.join(results, "index.json")
    if not os.path.exists(idx):
        raise BadInput("%s: no index.json (python3 scripts/archive_index.py %s)" % (results, results))
    with open(idx) as f:
        index = json.load(f)
    out = [os.path.join(results, a["path"]) for a in index.get("archives", [])
           if a.get("gpu_slug") == slug and a.get("plan") == "full" and a.get("backend") == "cuda"]
    if not out:
        raise BadInput("no kept full archive of %s under %s" % (slug, results))
    return sorted(out)


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt(lo) if fmt(lo) == fmt(hi) else "%s–%s" % (fmt(lo).split(" ")[0], fmt(hi))


def figure(name, results):
    kind, _, arg = name.partition(":")
    if kind == "hostile_inputs":
        with open(os.path.join(HERE, "..", "docs", "hostile_inputs.md")) as f:
            rows = [l for l in f if l.startswith("| ") and not l.startswith("| tool ")]
        return "%d" % len(rows)
    if kind not in ("wall", "runs", "benchmarks") or not arg:
        raise BadInput("unknown figure '%s' (see --help)" % name)
    archives = archives_of(results, arg)
    if kind == "runs":
        return "%d" % len(archives)
    ctx = [bench_context(a) for a in archives]
    if kind == "benchmarks":
        return span([n for _, n in ctx], lambda v: "{:,}".format(v))
    walls = [float(c["characterize_wall_seconds"]) for c, _ in ctx
             if "characterize_wall_seconds" in c and re.search(r"\bpack [0-9.]+$", c.get("characterize_stages", ""))]
    if not walls:
        return "not recorded (no kept archive records its stages up to pack)"
    return span(walls, lambda v: "%.1f s" % v)


def process(path, results, update):
    with open(path) as f:
        text = f.read()
    opened = len(OPEN.findall(text))
    found = FIG.findall(text)
    if opened != len(found):
        raise BadInput("%s: a <!-- fig:NAME --> without its <!-- /fig -->" % path)
    stale = []

    def repl(m):
        want = figure(m.group(1), results)
        if m.group(2) != want:
            stale.append("%s: fig:%s says '%s', the data say '%s'" % (path, m.group(1), m.group(2), want))
        return "<!-- fig:%s -->%s<!-- /fig -->" % (m.group(1), want)

    new = FIG.sub(repl, text)
    if update and new != text:
        with open(path, "w") as f:
            f.write(new)
    return stale, len(found)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    mode.add_argument("--list", action="store_true")
    ap.add_argument("--results", default="results")
    ap.add_argument("docs", nargs="*")
    a = ap.parse_args()
    results = os.path.abspath(a.results)
    try:
        if a.list:
            with open(os.path.join(results, "index.json")) as f:
                slugs = sorted({x["gpu_slug"] for x in json.load(f)["archives"] if x.get("backend") == "cuda"})
            for s in slugs:
                for k in ("wall", "runs", "benchmarks"):
                    print("%s:%s  %s" % (k, s, figure("%s:%s" % (k, s), results)))
            print("hostile_inputs  %s" % figure("hostile_inputs", results))
            return 0
        if not a.docs:
            raise BadInput("no document given (see --help)")
        stale, total = [], 0
        for d in a.docs:
            if not os.path.isfile(d):
                raise BadInput("%s: no such file" % d)
            s, n = process(d, results, a.update)
            stale += s
            total += n
    except (BadInput, OSError, ValueError, KeyError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    for s in stale:
        print(s)
    if a.update:
        print("%s: %d figure(s), %d rewritten" % (PROG, total, len(stale)))
        return 0
    print("%s: %d figure(s), %d out of date%s" % (PROG, total, len(stale),
                                                  " (python3 scripts/doc_figures.py --update ...)" if stale else ""))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
