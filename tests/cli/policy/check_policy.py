#!/usr/bin/env python3
"""Checks the replacement a simulated cache's access sequences gave (tests/cli/infer_sim_policy.cmake).

usage: check_policy.py <topology.json> <cache> <policy>
Holds when `replacement` is <policy>, or a list that holds it or names its class (one name per class
of identical outcomes: replacement_consistent.class_members; never a list without it, never
"none of the known policies"), replacement_consistent counts at least the names listed, and
replacement_gpgpusim names lru and/or fifo with their shares of records predicted (1.0 for the
one the cache runs). Exit 0 when it holds, 1 with the reason otherwise.
"""
import json
import sys


def check(c, want):
    v = c.get("replacement")
    names = v if isinstance(v, list) else [v]
    rc = c.get("replacement_consistent") or {}
    classes = [m for m in rc.get("class_members", []) if m and m[0] in names]
    if want not in names and not any(want in m for m in classes):
        return f"replacement {v!r} (classes {rc.get('class_members')}) does not hold {want}"
    if rc.get("policies", 0) < len(names) or rc.get("listed") != len(names):
        return f"replacement_consistent {rc} does not count the {len(names)} names listed"
    g = c.get("replacement_gpgpusim") or {}
    frac = g.get("predicted_fraction", {})
    if set(frac) != {"lru", "fifo"} or not g.get("records"):
        return f"replacement_gpgpusim {g} lacks lru / fifo"
    if want in ("lru", "fifo") and (frac[want] != 1.0 or want not in g.get("nearest", "")):
        return f"replacement_gpgpusim {g}: {want} predicts every record of a {want} cache"
    return ""


def main(argv):
    if len(argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    c = json.load(open(argv[1]))["caches"][argv[2]]
    why = check(c, argv[3])
    print(f"check_policy: {argv[2]} {argv[3]}: " + (why or f"ok ({c.get('replacement')!r})"))
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
