#!/usr/bin/env python3
"""Issue 30 item 3: one L2 story. Fails where two sections of one report (or topology.json's
caches.l2 and its l2_sets / l2_slices / l2_partitions sections) say different things of the L2.

usage: check_l2_story.py <topology.json> <report.md>

Checked where the L2's eviction sets (l2_sets) decided them:
  - caches.l2's ways, sets and replacement are l2_sets' (or null with a reason naming the disagreement)
  - caches.l2.size_bytes is not the 50 % point; from the structure it is partitions x slices x sets
    per slice x ways x line and the device's L2 size
  - report.md: the Summary's l2 capacity is caches.l2.size_bytes; the "### l2" screen's ways, sets
    and replacement rows are the "L2 sets" section's; no "Not determined" line of the l2 screen names
    what the L2 sets section determined
Exit 0 when it holds, 1 with every disagreement otherwise.
"""
import json
import re
import sys

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def section(md, head):
    """The lines of report.md from the heading `head` to the next heading of its level or higher."""
    lines, out, level = md.splitlines(), [], None
    for ln in lines:
        m = re.match(r"^(#+) ", ln)
        if level is None:
            if ln.strip() == head:
                level = len(m.group(1))
            continue
        if m and len(m.group(1)) <= level:
            break
        out.append(ln)
    return out


def rows(lines):
    """| label | value | ... rows: label -> value (first cell after the label)."""
    out = {}
    for ln in lines:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            out.setdefault(cells[0], cells[1])
    return out


def first_word(v):
    return re.sub(r"\s*\(.*$", "", v).strip()


def topology_checks(t):
    bad = []
    s, c = t.get("l2_sets"), t["caches"]["l2"]
    for k in ("ways", "sets", "replacement"):
        v = s.get(k)
        if v is None:
            continue
        r = (c.get("provenance", {}).get(k) or {}).get("reason") or ""
        mine = c.get(k)
        if isinstance(mine, list) and k == "ways" and mine and all(w == v for w in mine):
            continue  # the ways of every set, all l2_sets' count
        if mine != v and not (mine is None and "disagree" in r):
            bad.append(f"caches.l2.{k} {json.dumps(mine)[:80]} but l2_sets.{k} {v!r}")
    if c.get("size_source") == "half_point":
        bad.append(f"caches.l2.size_bytes is the 50 % point ({c.get('size_bytes')}) beside l2_sets' structure")
    dev = s.get("l2_bytes")
    if c.get("size_source") == "structure":
        sl, lp = t.get("l2_slices") or {}, (t.get("l2_partitions") or {}).get("map") or {}
        prod = lp.get("partitions", 0) * sl.get("slices_per_partition", 0) * s.get("sets_per_slice", 0) * s.get("ways", 0) * \
            s.get("line_bytes", 0)
        if prod != c.get("size_bytes") or (dev is not None and prod != dev):
            bad.append(f"caches.l2.size_bytes {c.get('size_bytes')} from the structure, but the product is {prod} and the "
                       f"device's L2 {dev}")
    elif c.get("size_bytes") is not None and dev is not None and c["size_bytes"] != dev:
        bad.append(f"caches.l2.size_bytes {c['size_bytes']} is not the device's L2 size {dev}")
    return bad


def bytes_of(cell):
    m = re.match(r"^([0-9.,]+) (B|KiB|MiB|GiB)", cell)
    return float(m.group(1).replace(",", "")) * UNITS[m.group(2)] if m else None


def report_checks(t, md):
    bad = []
    c = t["caches"]["l2"]
    summary = {}
    for ln in section(md, "## Summary"):
        cells = [x.strip() for x in ln.strip().strip("|").split("|")]
        if cells and cells[0] == "l2":
            summary = cells
    if summary and c.get("size_bytes") is not None:
        got = bytes_of(summary[1])
        if got is None or abs(got - c["size_bytes"]) > 0.006 * c["size_bytes"]:
            bad.append(f"Summary's l2 capacity {summary[1]!r}, caches.l2.size_bytes {c['size_bytes']}")
        if "50 % point" in summary[1] and c.get("size_source") != "half_point":
            bad.append(f"Summary's l2 capacity {summary[1]!r} says 50 % point; size_source {c.get('size_source')}")
    screen = section(md, "### l2")
    sets = rows(section(md, "## L2 sets (eviction sets)"))
    scr = rows(screen)
    pairs = [("ways", "ways"), ("sets", "sets"), ("replacement policy", "replacement")]
    for label, key in pairs:
        theirs = next((v for k, v in sets.items() if k.split(" (")[0] == key), None)
        if theirs is None or theirs.startswith("not determined"):
            continue
        mine = scr.get(label)
        want = re.findall(r"[A-Za-z0-9_]+", first_word(theirs))
        got = re.findall(r"[A-Za-z0-9_]+", mine or "")
        if mine is None or any(w not in got for w in want):
            bad.append(f"the l2 screen's {label} {mine!r}, the L2 sets section's {theirs!r}")
    for ln in screen:
        if ln.startswith("- Not determined:"):
            named = ln.split("—")[0]
            for label, key in pairs:
                theirs = next((v for k, v in sets.items() if k.split(" (")[0] == key), None)
                if theirs and not theirs.startswith("not determined") and re.search(rf"\b{label}\b", named):
                    bad.append(f"the l2 screen says {label} not determined; the L2 sets section: {theirs!r}")
    return bad


def main(argv):
    if len(argv) != 3:
        print(__doc__.splitlines()[3], file=sys.stderr)
        return 2
    t = json.load(open(argv[1]))
    md = open(argv[2]).read()
    if not isinstance(t.get("l2_sets"), dict):
        print("check_l2_story: no l2_sets section: nothing to compare")
        return 0
    bad = topology_checks(t) + report_checks(t, md)
    for b in bad:
        print("check_l2_story: " + b)
    print("check_l2_story: " + ("ok" if not bad else f"{len(bad)} disagreement(s)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
