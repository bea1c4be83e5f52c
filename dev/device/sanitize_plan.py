#!/usr/bin/env python3
"""Helpers of dev/device/part_sanitize.sh (no GPU needed; tested in tests/cli/reliability).
  select LIST K [FAM]  from `memhier-bench --benchmark_list_tests` output, a small plan of every
                       family (or of family FAM only): per family the first benchmark of each
                       distinct value of its first parameter, then of its second, up to K (a
                       family of at most K benchmarks: by its name); prints a --benchmark_filter regex
  families REGEX LIST  the families the regex selects, one per line
  attribute LOG        compute-sanitizer output of a run with MEMHIER_ANNOUNCE=1: per family the
                       benchmarks run and the errors/hazards/API errors reported while each ran;
                       prints `family benchmarks errors hazards api` lines and the tool's summary
"""
import collections, re, sys


def families_of(names):
    by = collections.OrderedDict()
    for n in names:
        by.setdefault(n.split("/")[0], []).append(n)
    return by


def select(names, k):
    chosen = []
    for fam, ns in families_of(names).items():
        picked = []
        for depth in (1, 2):
            seen = set()
            for n in ns:
                parts = n.split("/")
                key = tuple(parts[1:1 + depth])
                if key not in seen and n not in picked and len(picked) < k:
                    seen.add(key)
                    picked.append(n)
        chosen += picked
    return chosen


def base_name(n):
    return re.sub(r"/(iterations|repeats|threads):[0-9]+|/(manual|real|process)_time", "", n)


def main():
    cmd = sys.argv[1]
    if cmd == "select":
        names = [l.strip() for l in open(sys.argv[2]) if l.strip()]
        if len(sys.argv) > 4:
            names = [n for n in names if n.split("/")[0] == sys.argv[4]]
        k = int(sys.argv[3])
        chosen = select(names, k)
        # A family of at most k benchmarks is taken whole by its name: its benchmark names may
        # depend on the free memory at start (latency_spectrum's footprint), which a sanitizer's own
        # allocations change, so exact names listed natively would match nothing under the tool.
        whole = {f for f, ns in families_of(names).items() if len(ns) <= k}
        parts = [re.escape(f) for f in families_of(names) if f in whole]
        parts += [re.escape(base_name(n)) for n in chosen if n.split("/")[0] not in whole]
        print("^(" + "|".join(parts) + ")(/|$)")
    elif cmd == "families":
        rx = re.compile(sys.argv[2])
        names = [l.strip() for l in open(sys.argv[3]) if l.strip()]
        for fam in families_of([n for n in names if rx.search(n)]):
            print(fam)
    elif cmd == "attribute":
        stats = collections.OrderedDict()
        current = "(before the first benchmark)"
        summary = []
        for line in open(sys.argv[2], errors="replace"):
            m = re.match(r"memhier-bench: running (\S+)", line)
            if m:
                current = m.group(1).split("/")[0]
                stats.setdefault(current, collections.Counter())["benchmarks"] += 1
                continue
            if re.match(r"=+ (ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|INITCHECK SUMMARY)", line) or "SUMMARY:" in line:
                summary.append(line.strip("= \n"))
                continue
            if not line.startswith("========= ") or line.startswith("=========  "):
                continue
            text = line[10:]
            if re.match(r"(COMPUTE-SANITIZER|Saved host backtrace|Target application|Host Frame|Note:)", text):
                continue
            kind = "hazards" if "Race reported" in text or "hazard" in text.lower() else \
                   "api" if text.startswith("Program hit") else "errors"
            stats.setdefault(current, collections.Counter())[kind] += 1
        for fam, c in stats.items():
            print("%-24s %4d %6d %7d %4d" % (fam, c["benchmarks"], c["errors"], c["hazards"], c["api"]))
        for s in summary[-2:]:
            print("summary: " + s)


if __name__ == "__main__":
    main()
