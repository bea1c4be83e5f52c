#!/usr/bin/env python3
"""Issue 30 item 5: what memhier-infer says of a generated cache (gen_l2_case.py) against its truth.

usage: check_l2_case.py <config.json> <topology.json> <case>

The rule of every case: a value is right or null with a reason, never confidently wrong.
  l2_gradual      caches.l2: size_bytes within 3 % of sets x ways x line, or null with a reason
                  (never the 50 % point: size_source is not half_point); replacement the config's
                  policy or null (tree-PLRU never read as random)
  l1_plru128      caches.l1: line_bytes 128 or null with a reason
  l1_nru_unequal  caches.l1: replacement not lru_or_fifo (nru, or null with a reason)
Exit 0 when it holds, 1 with the reasons otherwise.
"""
import json
import sys

PLRU = {"plru", "plru_tree", "tree_plru", "tree-plru"}


def policy_of(level):
    r = level["replacement"]
    return r["policy"] if isinstance(r, dict) else r


def reason(c, k):
    return (c.get("provenance", {}).get(k, {}) or {}).get("reason") or ""


def right_or_null(c, k, ok, what):
    v = c.get(k)
    if v is None:
        return [] if reason(c, k) else [f"{k} null without a reason"]
    return [] if ok(v) else [f"{k} {v!r}: {what}"]


def l2_gradual(cfg, topo):
    lv = next(l for l in cfg["levels"] if l["name"] == "l2")
    truth = lv["sets"] * lv["ways"] * lv["line_bytes"]
    c = topo["caches"]["l2"]
    bad = []
    if c.get("size_source") == "half_point":
        bad.append(f"size_bytes is the 50 % point ({c.get('size_bytes')}; truth {truth})")
    bad += right_or_null(c, "size_bytes", lambda v: abs(v - truth) <= 0.03 * truth, f"truth {truth}")
    pol = policy_of(lv)
    same = (lambda v: v in PLRU) if pol == "plru" else (lambda v: v == pol)
    bad += right_or_null(c, "replacement", same, f"truth {pol}")
    return bad


def l1_plru128(cfg, topo):
    return right_or_null(topo["caches"]["l1"], "line_bytes", lambda v: v == 128, "truth 128")


def l1_nru_unequal(cfg, topo):
    return right_or_null(topo["caches"]["l1"], "replacement", lambda v: v == "nru" or (isinstance(v, list) and "nru" in v),
                         "truth nru")


def main(argv):
    if len(argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    cfg, topo = json.load(open(argv[1])), json.load(open(argv[2]))
    bad = {"l2_gradual": l2_gradual, "l1_plru128": l1_plru128, "l1_nru_unequal": l1_nru_unequal}[argv[3]](cfg, topo)
    print(f"check_l2_case {argv[3]} {cfg['name']}: " + ("; ".join(bad) if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
