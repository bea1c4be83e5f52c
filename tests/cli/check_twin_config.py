#!/usr/bin/env python3
"""Checks a twin (memhier-infer --twin-config) against the topology it was written from.

usage: check_twin_config.py TOPOLOGY TWIN

Every value the topology decided for a cache the twin models as its own level (line, sector, sets,
ways, hit latency; replacement where it names a simulator model) is the twin's value; every field
the topology left null (line, sector, sets, ways, replacement, hit latency) is named in the twin's
"defaulted" list, unless "derived" names how it was computed from other measurements. TLB levels:
entries and reach per entry where decided. Exit 1 with one line per problem.
"""
import json
import sys

LEVEL_OF = {"l1": "l1", "texture": "texture", "readonly": "readonly", "constant_l1": "constant_l1",
            "constant_l15": "constant_l15", "l2": "l2"}
SIM_POLICIES = {"lru", "fifo", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "slru", "random", "srrip", "brrip"}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    topo, twin = (json.load(open(p)) for p in argv[1:])
    levels = {L["name"]: L for L in twin["levels"]}
    notes = twin.get("defaulted", []) + twin.get("derived", [])
    problems = []

    def named(prefix):
        return any(n.startswith(prefix) for n in notes)

    for cache, lname in LEVEL_OF.items():
        c = topo["caches"].get(cache, {})
        if not c.get("present") or lname not in levels:
            continue
        L = levels[lname]
        sets = L["sets"]
        ways = L["ways"] if isinstance(L["ways"], list) else [L["ways"]] * sets
        twin_vals = {"line_bytes": L["line_bytes"], "sector_bytes": L["sector_bytes"], "sets": sets, "ways": ways,
                     "hit_latency_cycles": L["hit_latency_cycles"], "replacement": L["replacement"]}
        for f, tv in twin_vals.items():
            real = c.get(f)
            if f in ("sets", "ways") and isinstance(c.get("one_sm_sees"), dict):
                # caches.l2 is the whole L2; the twin's level is what one SM sees (derived, noted)
                if not named(f"levels.{lname}.size_bytes"):
                    problems.append(f"{cache}: the whole L2 in the topology, one SM's view in the twin without a note")
                continue
            if f == "ways" and isinstance(real, (int, float)) and not isinstance(real, bool):
                real = [real] * sets  # memhier-topology/2: one count where every set agrees
            key = f"levels.{lname}." + ("sets" if f == "ways" and real is None else f)
            if real is None:
                if not named(f"levels.{lname}.{f}") and not named(key):
                    problems.append(f"{cache}.{f} is null in the topology but not in the twin's defaulted/derived lists")
            elif f == "hit_latency_cycles":
                if abs(tv - real) > 0.5 + 1e-9:
                    problems.append(f"{cache}.hit_latency_cycles: topology {real}, twin {tv}")
            elif f == "replacement" and isinstance(real, list):
                if tv not in real and not named(f"levels.{lname}.replacement"):
                    problems.append(f"{cache}.replacement: candidates {real}, twin {tv} without a note")
            elif f == "replacement":
                if real in SIM_POLICIES and tv != real:
                    problems.append(f"{cache}.replacement: topology {real}, twin {tv}")
                if real not in SIM_POLICIES and not named(f"levels.{lname}.replacement"):
                    problems.append(f"{cache}.replacement '{real}' replaced without a note")
            elif tv != real:
                problems.append(f"{cache}.{f}: topology {json.dumps(real)[:60]}, twin {json.dumps(tv)[:60]}")
    tl = {T["name"]: T for T in twin.get("tlbs", [])}
    for lv in topo.get("address_translation", {}).get("levels", []):
        T = tl.get(lv.get("name"))
        if T is None:
            continue
        if lv.get("entries") is not None and T["entries"] != lv["entries"]:
            problems.append(f"{lv['name']}.entries: topology {lv['entries']}, twin {T['entries']}")
        if lv.get("reach_per_entry_bytes") is not None and T["entry_bytes"] != lv["reach_per_entry_bytes"]:
            problems.append(f"{lv['name']}.reach_per_entry_bytes: topology {lv['reach_per_entry_bytes']}, twin {T['entry_bytes']}")
    for p in problems:
        print(p)
    print(f"{len(levels)} levels, {len(tl)} TLBs, {len(twin.get('defaulted', []))} defaulted, "
          f"{len(twin.get('derived', []))} derived; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
