#!/usr/bin/env python3
"""One line per cache_streams point of a bench.json (the device parts' summaries): cache, variant,
loads, k, trials, P(evicted); mid's re-read where measured; the L2's classes (near / far targets)
where the benchmark split them; with --cycles the hit reference and first-load medians. A missing
or unreadable file is one line, not an error (the part's log says why the run failed).

usage: streams_table.py BENCH_JSON [--cycles]
"""
import json
import sys


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        b = json.load(open(argv[0]))
    except Exception as e:  # noqa: BLE001 - any failure is reported in the summary
        print("  no bench.json: %s" % e)
        return 0
    cycles = "--cycles" in argv[1:]
    for e in b.get("benchmarks", []):
        if not e["name"].startswith("cache_streams/"):
            continue
        n = dict(p.split(":", 1) for p in e["name"].split("/")[1:] if ":" in p)
        g = lambda k: e.get(k, float("nan"))  # noqa: E731
        head = "  %-8s %-8s %-5s k %7s" % (n.get("cache"), n.get("variant"), n.get("loads"), n.get("k"))
        if "error_message" in e:
            print("%s ERROR %s" % (head, e["error_message"]))
            continue
        line = "%s n %5d p %.3f" % (head, g("trials"), g("p_evicted"))
        if "mid_missed" in e:
            line += " mid %.3f" % (g("mid_missed") / max(g("trials"), 1))
        if cycles:
            line += " hit %s miss %s" % (e.get("hit_cycles"), e.get("miss_cycles"))
        if "near_trials" in e:
            nt, ft = g("near_trials"), g("far_trials")
            line += " | near %d ev %.3f" % (nt, g("near_evicted") / max(nt, 1))
            if "near_mid_missed" in e:
                line += " mid %.3f" % (g("near_mid_missed") / max(nt, 1))
            line += " | far %d near_lost %.3f ev %.3f" % (ft, g("far_near_lost") / max(ft, 1), g("far_evicted") / max(ft, 1))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
