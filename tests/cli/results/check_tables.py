#!/usr/bin/env python3
"""scripts/results_table.py --check fails when a document's table disagrees with the archives
(ctest cli_results_tables_detects).

usage: check_tables.py <source-dir> <work-dir>

On a copy of docs/results.md: unchanged it agrees (exit 0); with one value of a generated table
changed it disagrees (exit 1) and names the line; with a block's end marker gone, or a marker naming
a folder without archives, it is bad input (exit 2, one line); --update puts the tables back.
"""
import os
import re
import shutil
import subprocess
import sys

src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tool = os.path.join(src, "scripts", "results_table.py")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
doc = os.path.join(work, "results.md")
text = open(os.path.join(src, "docs", "results.md")).read()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(*args):
    r = subprocess.run([sys.executable, tool] + list(args), cwd=src, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check(body, want, what):
    open(doc, "w").write(body)
    rc, out, err = run("--check", doc, "--results", "results")
    if rc != want:
        fail("%s: exit %d, expected %d\n%s%s" % (what, rc, want, out, err))
    if want == 2 and len(err.strip().splitlines()) != 1:
        fail("%s: expected one line on stderr, got %r" % (what, err))
    print("ok: %s (exit %d)" % (what, rc))
    return out


check(text, 0, "the committed document")
# the first numeric value cell of a generated table, one digit changed
m = re.search(r"^\| [^|\n]*\| [^|\n]*\| (\d)", text, re.M)
if not m:
    fail("no table row with a numeric value in docs/results.md")
d = m.group(1)
changed = text[:m.start(1)] + str((int(d) + 1) % 10) + text[m.end(1):]
out = check(changed, 1, "one value changed")
if "disagrees" not in out:
    fail("the disagreement is not named")
check(text.replace("<!-- end results_table -->", "", 1), 2, "an end marker missing")
check(re.sub(r"<!-- results_table: \S+ -->", "<!-- results_table: sm_0/none/0 -->", text, count=1), 2,
      "a marker naming no archive folder")
open(doc, "w").write(changed)
rc, _, err = run("--update", doc, "--results", "results")
if rc != 0 or open(doc).read() != text:
    fail("--update did not restore the tables (%s)" % err.strip())
print("PASS")
