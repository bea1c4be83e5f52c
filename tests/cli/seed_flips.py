#!/usr/bin/env python3
"""Structural flips between back-to-back characterizations of one noisy simulated device
(issues 10 and 12: the analyzer's structural answers must be stable run to run).

usage: seed_flips.py --build DIR --work DIR [--config NAME_OR_PATH | gen:SEED]... [--runs N]
                     [--rounds R] [--seed0 S] [--max-flips K] [--json OUT]

For every config: N characterizations (infer_sim_loop.sh: plan, R refinement rounds, final
analysis) of the config with the noise model of the gate test (jitter 4 cycles, 1 in 2000
accesses +400 cycles), noise seeds S, S+1, ..., then memhier-compare on every pair of them
(N (N-1) / 2 pairs). A flip is a structural field the gate calls CHANGED. Prints one line per
config (runs, pairs, flipping pairs, flips) and per flipping field the pairs it flipped in with
both values; exits 1 when the flips exceed --max-flips (default 0), 2 on a failed step.
Configs: a name under sim/configs (plain_lru), a path, or gen:SEED (tests/cli/gen_sim_config.py).
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOISE = {"jitter_cycles": 4, "outlier_rate": 0.0005, "outlier_cycles": 400}


def config_of(spec, work):
    """The config as a dict, and a short name."""
    if spec.startswith("gen:"):
        out = os.path.join(work, "gen_%s.json" % spec[4:])
        subprocess.run([sys.executable, os.path.join(HERE, "gen_sim_config.py"), "--seed", spec[4:], "-o", out],
                       check=True)
        return json.load(open(out)), "gen_" + spec[4:]
    path = spec if os.path.exists(spec) else os.path.join(ROOT, "sim", "configs", spec + ".json")
    return json.load(open(path)), os.path.splitext(os.path.basename(path))[0]


def characterize(build, cfg, seed, rounds, work):
    """One characterization with noise seed `seed`; returns its directory (bench.json, topology.json)."""
    os.makedirs(work, exist_ok=True)
    c = json.loads(json.dumps(cfg))
    c["noise"] = dict(NOISE, seed=seed)
    path = os.path.join(work, "config-%d.json" % seed)
    json.dump(c, open(path, "w"))
    out = os.path.join(work, "run-%d" % seed)
    p = subprocess.run(["bash", os.path.join(HERE, "infer_sim_loop.sh"), build, path, out, str(rounds)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout[-3000:])
        raise RuntimeError("characterization of %s seed %d failed" % (path, seed))
    return out


def flips_of(build, a, b):
    """The structural fields memhier-compare calls CHANGED between two runs, with both values."""
    p = subprocess.run([os.path.join(build, "memhier-compare"), "--format=json", a, b],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1, 3):
        raise RuntimeError("memhier-compare %s %s: exit %d: %s" % (a, b, p.returncode, p.stderr[-500:]))
    d = json.loads(p.stdout)
    return [(f["id"], f["base"], f["new"], f.get("note", "")) for f in d["figures"]
            if f["kind"] == "structure" and f["verdict"] == "CHANGED"]


def short(v):
    s = json.dumps(v)
    return s if len(s) <= 40 else s[:37] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed0", type=int, default=11)
    ap.add_argument("--max-flips", type=int, default=0)
    ap.add_argument("--json")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    os.makedirs(a.work, exist_ok=True)
    configs = a.config or ["plain_lru"]
    total, summary = 0, {}
    for spec in configs:
        t0 = time.time()
        cfg, name = config_of(spec, a.work)
        work = os.path.join(os.path.abspath(a.work), name)
        try:
            runs = [characterize(build, cfg, a.seed0 + i, a.rounds, work) for i in range(a.runs)]
            pairs = list(itertools.combinations(range(len(runs)), 2))
            per_field, flipping = {}, 0
            for i, j in pairs:
                f = flips_of(build, runs[i], runs[j])
                flipping += 1 if f else 0
                for fid, va, vb, note in f:
                    per_field.setdefault(fid, []).append((a.seed0 + i, a.seed0 + j, va, vb, note))
        except (RuntimeError, subprocess.CalledProcessError) as e:
            print("seed_flips: %s" % e)
            return 2
        n = sum(len(v) for v in per_field.values())
        total += n
        summary[name] = {"runs": len(runs), "pairs": len(pairs), "flipping_pairs": flipping, "flips": n,
                         "fields": {k: len(v) for k, v in per_field.items()}}
        print("%-14s runs %2d  pairs %3d  flipping pairs %3d  flips %3d  (%.0f s)" %
              (name, len(runs), len(pairs), flipping, n, time.time() - t0))
        for fid, lst in sorted(per_field.items()):
            sa, sb, va, vb, note = lst[0]
            print("   %-44s %3d pair(s), e.g. seeds %d/%d: %s vs %s %s" % (fid, len(lst), sa, sb, short(va), short(vb),
                                                                     note[:60]))
        sys.stdout.flush()
    print("structural flips: %d over %d config(s)" % (total, len(configs)))
    if a.json:
        json.dump({"rounds": a.rounds, "noise": NOISE, "configs": summary, "flips": total}, open(a.json, "w"), indent=1)
    return 1 if total > a.max_flips else 0


if __name__ == "__main__":
    sys.exit(main())
