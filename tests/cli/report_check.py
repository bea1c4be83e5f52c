#!/usr/bin/env python3
"""report.md is for people (issue 12): one screen per cache (<= 45 lines from its heading to the
next), a reason shared by several fields said once (no reason text on two lines of one cache),
the reason every cache shares said once for all, and no table repeating an identical row (within one table).
It reads like a datasheet (issue 19): no list of equal values left uncollapsed (e.g. 512 ways of 4),
no raw JSON list, no empty interval ([x, x) or [x, x]), no unit after a reason ('(why) cycles'),
and a TLB's screen names its rows for a TLB (entries, reach per entry, total reach, ...), never
a cache's capacity or line.
usage: report_check.py report.md"""
import re
import sys


EQUAL_LIST = re.compile(r"\[(\d+)(?:, ?\1){7,}\]")
RAW_LIST = re.compile(r'\["|\[\d+,\d')
EMPTY_INTERVAL = re.compile(r"\[([^\[\],]+), \1[\)\]]")
TLB_WRONG_ROWS = ("| capacity |", "| line |", "| size", "| ways |", "| fill granularity")


def datasheet_errors(lines, heads, caches_end):
    errors = []
    for l in lines:
        if EQUAL_LIST.search(l):
            errors.append("list of equal values not collapsed: " + l[:100])
        elif RAW_LIST.search(l):
            errors.append("raw JSON list: " + l[:100])
        if EMPTY_INTERVAL.search(l):
            errors.append("empty interval: " + EMPTY_INTERVAL.search(l).group(0))
        if re.search(r"\) (cycles|bytes|B)\b", l) and "— (" in l:
            errors.append("a unit after a reason: " + l[:100])
    for a, b in zip(heads, heads[1:] + [caches_end]):
        if a < caches_end and lines[a].endswith("_tlb"):
            for l in lines[a:min(b, caches_end)]:
                if l.startswith(TLB_WRONG_ROWS):
                    errors.append("%s: a cache's row in a TLB's screen: %s" % (lines[a], l[:60]))
    return errors


def main(path):
    lines = open(path).read().splitlines()
    errors = []
    seen_rows = set()  # rows of the current table
    for l in lines:
        if not l.startswith("|"):
            seen_rows = set()
        elif not set(l) <= set("|-: "):
            if l in seen_rows:
                errors.append("table row repeated: " + l[:100])
            seen_rows.add(l)
    heads = [i for i, l in enumerate(lines) if l.startswith("### ")]
    caches_end = next((i for i, l in enumerate(lines) if l.startswith("## Global memory")), len(lines))
    for a, b in zip(heads, heads[1:] + [caches_end]):
        if a >= caches_end:
            break
        b = min(b, caches_end)
        if b - a > 45:
            errors.append("%s takes %d lines (more than a screen)" % (lines[a], b - a))
        reasons = [l.split(" — ", 1)[1] for l in lines[a:b] if l.startswith("- Not determined") and " — " in l]
        if len(reasons) != len(set(reasons)):
            errors.append("%s states one reason on several lines" % lines[a])
    errors += datasheet_errors(lines, heads, caches_end)
    shared = [l for l in lines if "Not determined for any cache" in l]
    every = [l for l in lines if re.search(r"cache_sharing family not evaluated", l)]
    if len(every) > 1 and not shared:
        errors.append("the reason every cache shares is repeated %d times" % len(every))
    for e in errors:
        print("report_check: " + e)
    print("report_check: %s: %s" % (path, "FAIL" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
