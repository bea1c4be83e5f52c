#!/usr/bin/env python3
"""memhier-infer --sections-cache on a committed archive (docs/methodology.md, Wall time): the early
sections computed from the archive's early families alone (what characterize.sh analyzes while the
GPU measures the deferred families) and then reused by the analysis of the whole archive give the
same topology, byte for byte, as one analysis without the cache; a changed early entry is not reused.

usage: check_early_sections.py MEMHIER_INFER ARCHIVE WORK"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

from check_util import finish, want

# The families scripts/characterize.sh defers (DEFER): the data the early sections must not read.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "characterize.sh")) as f:
    DEFER = next(l.split("=", 1)[1].strip() for l in f if l.startswith("DEFER=")).split(",")


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def infer(tool, args, env_threads="2"):
    env = dict(os.environ, MEMHIER_THREADS=env_threads)
    p = subprocess.run([tool, "--allow-errors"] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def main():
    tool, archive, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    early = os.path.join(work, "early")
    os.makedirs(early)
    cache = os.path.join(work, "sections.json")
    # the early inputs: bench.json without the deferred families' entries, the refinement rounds, the traces
    bench = load(glob.glob(os.path.join(archive, "bench.json*"))[0])
    kept = [b for b in bench["benchmarks"] if b.get("run_name", b["name"]).split("/")[0] not in DEFER]
    want(0 < len(kept) < len(bench["benchmarks"]), "the archive has early and deferred entries (%d of %d early)" % (len(kept), len(bench["benchmarks"])))
    bench["benchmarks"] = kept
    with open(os.path.join(early, "bench.json"), "w") as f:
        json.dump(bench, f)
    for p in glob.glob(os.path.join(archive, "refine-*.json*")) + glob.glob(os.path.join(archive, "traces.pack*")):
        shutil.copy(p, early)
    rc, err = infer(tool, [early, "-o", os.path.join(work, "early.json"), "--sections-cache", cache])
    want(rc == 0 and "early sections computed" in err, "the early analysis writes the cache (exit %d: %s)" % (rc, err.strip()[-300:]))
    rc, err = infer(tool, [archive, "-o", os.path.join(work, "full.json")])
    want(rc == 0, "the analysis without the cache (exit %d: %s)" % (rc, err.strip()[-300:]))
    rc, err = infer(tool, [archive, "-o", os.path.join(work, "reused.json"), "--sections-cache", cache])
    want(rc == 0 and "early sections reused" in err, "the whole archive's analysis reuses the early sections (%s)" % err.strip()[-300:])
    with open(os.path.join(work, "full.json")) as a, open(os.path.join(work, "reused.json")) as b:
        full, reused = a.read(), b.read()
    if full != reused:
        fj, rj = json.loads(full), json.loads(reused)
        diff = [k for k in sorted(set(fj) | set(rj)) if fj.get(k) != rj.get(k)]
        sub = [k for k in sorted(set(fj.get("caches", {})) | set(rj.get("caches", {})))
               if fj.get("caches", {}).get(k) != rj.get("caches", {}).get(k)]
        want(False, "reused topology equals the full one (differ: %s; caches: %s)" % (diff, sub))
    else:
        want(True, "reused topology equals the full one")
    # one early counter changed: the fingerprint differs, nothing is reused
    b0 = kept[0]
    for k, v in b0.items():
        if isinstance(v, float) and k not in ("real_time", "cpu_time"):
            b0[k] = v * 1.001 + 1
            break
    else:
        b0["real_time"] = b0.get("real_time", 0) + 1
    bench["benchmarks"] = kept
    changed = os.path.join(work, "changed")
    os.makedirs(changed)
    with open(os.path.join(changed, "bench.json"), "w") as f:
        json.dump(bench, f)
    for p in glob.glob(os.path.join(early, "refine-*.json*")) + glob.glob(os.path.join(early, "traces.pack*")):
        shutil.copy(p, changed)
    rc, err = infer(tool, [changed, "-o", os.path.join(work, "changed.json"), "--sections-cache", cache])
    want(rc == 0 and "early sections computed (input 1: another set of early entries)" in err,
         "a changed early entry is not reused (%s)" % err.strip()[-300:])
    finish("early sections of " + os.path.basename(archive.rstrip("/")))


if __name__ == "__main__":
    main()
