#!/usr/bin/env python3
"""An analyzer-only change (issue 31): a copy of a committed archive whose topology.json is what
another analyzer version would have written (every determined line size halved by
scripts/inject_change.py, and the "analyzer" stamp of another version), compared with the original.

  --as-archived        the structural difference is ANALYZER-CHANGED, the gate passes (exit 0)
  default              both archives analyzed again by this build: one analyzer, the same
                       measurements: PASS (exit 0), said in one line
  --as-archived, one analyzer (the copy's stamp removed, as the original has none): the same
                       difference is the GPU's: CHANGED (exit 3)

usage: analyzer_change.py MEMHIER_COMPARE ARCHIVE WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def run(tool, *args):
    p = subprocess.run([tool, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check(name, got, want, out, first=None, has=(), hasnt=()):
    lines = out.splitlines()
    problems = []
    if got != want:
        problems.append("exit %d, expected %d" % (got, want))
    if first and not (lines and lines[0].startswith(first)):
        problems.append("first line does not start with %r" % first)
    problems += ["no %r" % h for h in has if h not in out]
    problems += ["%r present" % h for h in hasnt if h in out]
    problems += ["a line over 100 columns: %r" % l for l in lines if len(l) > 100]
    if problems:
        print(out)
        sys.exit("FAIL %s: %s" % (name, "; ".join(problems)))
    print("ok: %s (exit %d)" % (name, got))


def main():
    tool, archive, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    copy = os.path.join(work, "other-analyzer")
    subprocess.run([sys.executable, os.path.join(SRC, "scripts", "inject_change.py"), archive, copy, "--kind", "line"],
                   check=True, stdout=subprocess.DEVNULL)
    topo_path = os.path.join(copy, "topology.json")
    topo = json.load(open(topo_path))
    topo["analyzer"] = {"name": "memhier-infer", "version": "0.0.9", "revision": "another-analyzer"}
    json.dump(topo, open(topo_path, "w"), indent=1)
    rc, out = run(tool, "--as-archived", archive, copy)
    check("as_archived_analyzer_changed", rc, 0, out, first="gate: PASS - 0 worse",
          has=("ANALYZER-CHANGED", "compared the archived topologies", "0.0.9+another-analyzer"), hasnt=(" CHANGED ",))
    rc, out = run(tool, archive, copy)
    check("reanalyzed_pass", rc, 0, out, first="gate: PASS - 0 worse of",
          has=("re-analyzed both archives with analyzer",), hasnt=("ANALYZER-CHANGED",))
    if out.splitlines()[1].startswith("re-analyzed both archives") is False:
        sys.exit("FAIL reanalyzed_pass: the second line is not the analysis line")
    del topo["analyzer"]
    json.dump(topo, open(topo_path, "w"), indent=1)
    rc, out = run(tool, "--as-archived", archive, copy)
    check("as_archived_one_analyzer_changed", rc, 3, out, first="gate: FAIL - 0 worse", has=("CHANGED",),
          hasnt=("ANALYZER-CHANGED",))
    print("PASS")


if __name__ == "__main__":
    main()
