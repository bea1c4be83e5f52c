#!/usr/bin/env python3
"""Issue 30 item 5: what memhier-infer says of a generated cache (gen_l2_case.py) against its truth.

usage: check_l2_case.py <config.json> <topology.json> <case>

The rule of every case: a value is right or null with a reason, never confidently wrong.
  l2_gradual      caches.l2: size_bytes within 3 % of sets x ways x line, or null with a reason
                  (never the 50 % point, except where the run that reads the policy was deferred past
                  the refinement budget: a known limit, printed); replacement the config's policy, a
                  list holding it, or null (tree-PLRU never read as random)
  l1_plru128      caches.l1: line_bytes 128 or null with a reason
  l1_nru_unequal  caches.l1: replacement nru, a list holding it, lru_or_fifo with nru in
                  replacement_cyclic_class (the class a cyclic chase cannot tell apart), or null
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
        stopped = (topo.get("refinement") or {}).get("stopped") or ""
        if c.get("replacement") is None and "not measured yet" in reason(c, "replacement") and "budget" in stopped:
            # the run that reads the curve's policy was deferred past the refinement budget: the 50 %
            # point stays, labelled (issue 30 item 5: not fixed, see docs/methodology.md)
            print(f"check_l2_case: known limit: size_bytes is the 50 % point ({c.get('size_bytes')}, truth {truth}): "
                  f"the replacement run was not measured within the budget ({stopped})")
        else:
            bad.append(f"size_bytes is the 50 % point ({c.get('size_bytes')}; truth {truth})")
        return bad
    bad += right_or_null(c, "size_bytes", lambda v: abs(v - truth) <= 0.03 * truth, f"truth {truth}")
    pol = policy_of(lv)
    # a list is "one of": right where the truth is in it
    names = PLRU if pol == "plru" else {pol}
    same = lambda v: (v in names) if isinstance(v, str) else any(x in names for x in v)  # noqa: E731
    bad += right_or_null(c, "replacement", same, f"truth {pol}")
    return bad


def l1_plru128(cfg, topo):
    return right_or_null(topo["caches"]["l1"], "line_bytes", lambda v: v == 128, "truth 128")


def l1_nru_unequal(cfg, topo):
    c = topo["caches"]["l1"]
    cls = c.get("replacement_cyclic_class") or []
    # lru_or_fifo is right only as the class of policies a cyclic chase cannot tell apart, listed
    return right_or_null(c, "replacement", lambda v: v == "nru" or (isinstance(v, list) and "nru" in v) or
                         (v == "lru_or_fifo" and "nru" in cls), f"truth nru (replacement_cyclic_class {cls})")


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
