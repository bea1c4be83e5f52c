#!/usr/bin/env python3
"""Checks of issue 20 ("Analyzer faults that generated configs should expose") on one topology.json.

usage: check_issue20.py <topology.json> <cache> <check>
  null_not_half_point  size_bytes null with a reason that names the 50 % point, the 50 % point kept
                       (half_point_bytes) and the capacity's interval from where misses begin
                       (size_bracket_bytes starts at onset_size_bytes)
  line=N                line_bytes is N
  fit=N:P               size_bytes is N from a fit of the curve (size_source model_fit), replacement P
                        (issue 30 item 5: the fit with every gradual policy replaced the null)
Exit 0 when it holds, 1 with the reason otherwise.
"""
import json
import sys


def null_not_half_point(c):
    reason = c.get("provenance", {}).get("size_bytes", {}).get("reason") or ""
    if c.get("size_bytes") is not None:
        return f"size_bytes {c.get('size_bytes')} ({c.get('size_source')}), expected null"
    if "50 % point" not in reason:
        return f"size_bytes null without the 50 % point's reason: {reason!r}"
    br, onset, half = c.get("size_bracket_bytes"), c.get("onset_size_bytes"), c.get("half_point_bytes")
    if not br or onset is None or half is None or br[0] != onset or br[1] < half:
        return f"size_bracket_bytes {br} should run from the onset {onset} past the 50 % point {half}"
    return ""


def main(argv):
    if len(argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    c = json.load(open(argv[1]))["caches"][argv[2]]
    if argv[3].startswith("fit="):
        n, p = argv[3].split("=", 1)[1].split(":")
        got = (c.get("size_bytes"), c.get("size_source"), c.get("replacement"))
        why = "" if got == (int(n), "model_fit", p) else f"size_bytes, size_source, replacement {got}, expected {(int(n), 'model_fit', p)}"
    elif argv[3].startswith("line="):
        want = int(argv[3].split("=", 1)[1])
        why = "" if c.get("line_bytes") == want else f"line_bytes {c.get('line_bytes')}, expected {want}"
    else:
        why = {"null_not_half_point": null_not_half_point}[argv[3]](c)
    print(f"check_issue20: {argv[2]} {argv[3]}: " + (why or "ok"))
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
