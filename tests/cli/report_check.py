#!/usr/bin/env python3
"""report.md is for people (issue 12): one screen per cache (<= 45 lines from its heading to the
next), a reason shared by several fields said once (no reason text on two lines of one cache),
the reason every cache shares said once for all, and no table repeating an identical row (within one table).
usage: report_check.py report.md"""
import re
import sys


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
