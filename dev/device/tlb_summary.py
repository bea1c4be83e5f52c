#!/usr/bin/env python3
"""Summaries for the device part "tlb" (dev/device/part_tlb.sh).

  tlb_summary.py RUN CURVES.tsv      print the map (RUN/topology.json) and write the latency curves
  tlb_summary.py --controls RUN      print a memhier-requests/1 file of control runs
  tlb_summary.py --compare RUN DIAG  compare the control runs (DIAG bench JSON) with the sweep

RUN holds bench.json, refine-N.json and topology.json. The controls repeat the footprints on both
sides of every rise with another line seed (seed 1: other data lines, the same pages; a translation
step must stay), run the two footprints of the smallest step in fine mode (a record per access),
sweep contiguous VMM chunks (alloc vmm) at two strides, and probe what one entry of the first
level covers: stride 3/4 of its reach (aligned regions predict a partial rise where the slots
touch one region more than it has entries) and its own stride with the lines spread over the
whole entry (span).
"""
import glob
import json
import os
import sys


def entries(run):
    out = []
    for f in [os.path.join(run, "bench.json")] + sorted(glob.glob(os.path.join(run, "refine-*.json"))):
        try:
            out += json.load(open(f)).get("benchmarks", [])
        except (OSError, ValueError):
            pass
    return out


def params(name):
    name = name.split("/iterations:")[0].split("/manual_time")[0]
    parts = name.split("/")
    return parts[0], dict(p.split(":", 1) for p in parts[1:] if ":" in p)


def size(b):
    if b is None:
        return "-"
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s:
            return f"{b / s:g} {unit}"
    return f"{b} B"


def histogram(run, alloc, stride, nbytes):
    """(bin width, {bin: count}) of a count-mode tlb run's trace, or None."""
    f = os.path.join(run, "traces", f"tlb__alloc-{alloc}__bytes-{nbytes}__stride-{stride}.trace")
    try:
        lines = open(f).read().split("\n")
    except OSError:
        return None
    width, h, on = 1, {}, False
    for ln in lines:
        if ln.startswith("bin_width"):
            width = int(ln.split()[1])
        elif ln == "data":
            on = True
        elif ln == "end":
            break
        elif on and ln.strip():
            b, c = ln.split()[:2]
            h[int(b)] = int(c)
    return (width, h) if h else None


def quantile(hist, q):
    width, h = hist
    n, acc = sum(h.values()), 0
    for b in sorted(h):
        if acc + h[b] >= q * n:
            return (b + (q * n - acc) / h[b]) * width
        acc += h[b]
    return None


def mode_shift(run, rise):
    """A translation miss shifts the whole latency distribution by the penalty (on the H100 both
    near/far modes of the L2 hit move); placement only moves weight between the modes. Quantile
    shifts across a rise, from the count-mode histograms (4-cycle bins)."""
    lo, hi = rise["reach_bracket_bytes"]
    a, b = histogram(run, rise["alloc"], rise["stride"], lo), histogram(run, rise["alloc"], rise["stride"], hi)
    if not a or not b:
        return ""
    qs = [quantile(b, q) - quantile(a, q) for q in (0.1, 0.25, 0.5, 0.75, 0.9)]
    return "quantile shifts p10..p90 " + " ".join(f"{x:+.1f}" for x in qs)


def print_map(run, curves_path):
    es = entries(run)
    rows = []
    errors = 0
    for e in es:
        fam, p = params(e["name"])
        if fam != "tlb":
            continue
        if e.get("error_occurred"):
            errors += 1
            continue
        rows.append((p.get("alloc", "malloc"), int(p["stride"]), int(p["bytes"]), int(e.get("slots", 0)),
                     e.get("latency_cycles", 0), e.get("latency_ci95_cycles", 0), e.get("latency_sd_cycles", 0),
                     p.get("seed", "0"), p.get("timed", "")))
    rows.sort()
    with open(curves_path, "w") as f:
        f.write("alloc\tstride\tbytes\tslots\tmean_cycles\tci95\tsd\tseed\ttimed\n")
        for r in rows:
            f.write("\t".join(str(round(x, 3)) if isinstance(x, float) else str(x) for x in r) + "\n")
    print(f"tlb runs: {len(rows)} ({errors} failed); curves: {curves_path}")
    try:
        t = json.load(open(os.path.join(run, "topology.json")))
    except (OSError, ValueError) as ex:
        print(f"no topology: {ex}")
        return
    at = t.get("address_translation", {})
    print(f"page {size(at.get('page_bytes'))} (at most {size(at.get('page_bytes_at_most'))}; vmm_gap entry region "
          f"{size(at.get('entry_region_bytes_vmm_gap'))}; {at.get('page_note', '')})")
    print(f"placement scatter of one slot {at.get('placement_scatter_per_slot_cycles')} cycles "
          f"(a footprint of n slots scatters by that / sqrt(n))")
    print(f"resolution {at.get('resolution_cycles')} cycles between two footprints; scatter between footprints "
          f"{at.get('noise_between_footprints_cycles')} cycles; smallest step {json.dumps(at.get('smallest_step'))}")
    print("level    penalty(+-95%)        entry-reach  entries  total-reach  sets/ways")
    for lv in at.get("levels", []):
        c = t["caches"].get(lv["name"], {})
        pen = (f"{lv['miss_penalty_cycles']:>8} +-{lv.get('miss_penalty_ci95_cycles')!s:<8}"
               if lv.get("miss_penalty_cycles") is not None else f">={lv.get('miss_penalty_lower_bound_cycles')!s:<17}")
        print(f"{lv['name']:8} {pen} "
              f"{size(lv.get('reach_per_entry_bytes')):>12} {str(c.get('entries')):>8} {size(c.get('size_bytes')):>12}  "
              f"{c.get('sets')}/{c.get('ways')}")
        print(f"         {lv.get('entry_note', '')}")
        print("         rises: " + "; ".join(f"{size(r['stride'])}:[{size(r['reach_bracket_bytes'][0])},"
                                            f"{size(r['reach_bracket_bytes'][1])}) +{r['height_cycles']}"
                                            for r in lv.get("rises", [])))
    for n in ("l1_tlb", "l2_tlb"):
        c = t["caches"].get(n, {})
        for k in ("present", "entries", "reach_per_entry_bytes", "sets"):
            if c.get(k) is None:
                print(f"{n}.{k}: null: {c.get('provenance', {}).get(k, {}).get('reason')}")
                break
    for lv in at.get("levels", []):
        full = next((r for r in lv.get("rises", []) if r["stride"] == lv.get("full_height_from_stride")), None)
        if full:
            print(f"{lv['name']} rise at {size(full['stride'])}: +{full['height_cycles']} mean, {mode_shift(run, full)}")
    for lv in at.get("not_translation", []):
        print(f"not translation (+{lv.get('miss_penalty_cycles')}): {lv.get('reason')}")
        top = (lv.get("rises") or [None])[-1]
        if top:
            print(f"  its rise at {size(top['stride'])}: +{top['height_cycles']} mean, {mode_shift(run, top)}")
    for lv in at.get("levels_vmm_gap", []):
        print(f"vmm_gap {lv['name']}: penalty {lv['miss_penalty_cycles']}, entry reach {size(lv.get('reach_per_entry_bytes'))}")
    for r in at.get("unconfirmed_rises", [])[:6]:
        print(f"unconfirmed rise: {json.dumps(r)}")
    for n in at.get("notes", [])[:6]:
        print(f"note: {n}")
    for path, lst in (t.get("global_memory", {}).get("latency_spectrum") or {}).items():
        print(f"spectrum {path}: " + ", ".join(f"{e['pattern']}{'(' + e['p'] + ')' if e.get('p') else ''} {e['cycles']:g}"
                                               for e in lst))
        steps = [e for e in lst if e.get("step_cycles") is not None]
        if steps:
            print(f"spectrum {path} revisit steps on the same lines: " +
                  ", ".join(f"{e['pattern']} {e['step_cycles']:+.1f}+-{e.get('step_se_cycles', 0):.1f}" for e in steps))
    pend = t.get("refinement_pending", {})
    print(f"refinement pending: {pend.get('tlb', 0)} tlb requests")


def controls(run):
    t = json.load(open(os.path.join(run, "topology.json")))
    at = t.get("address_translation", {})
    reqs = []
    lines = at.get("lines_per_run", 4096)
    # fine mode (a record per access) on both sides of the first level's full step (its smallest
    # penalty), else of the smallest step found
    step = at.get("smallest_step")
    for lv in at.get("levels", [])[:1]:
        step = next((r for r in lv.get("rises", []) if r["stride"] == lv.get("full_height_from_stride")), step)
    if step:
        for b in step["reach_bracket_bytes"]:
            reqs.append({"bytes": b, "stride": step["stride"], "alloc": step["alloc"], "mode": "fine", "lines": lines})
    for lv in at.get("levels", []):
        rises = lv.get("rises", [])
        for r in rises[:1] + rises[-1:] + [x for x in rises if x["stride"] == lv.get("reach_per_entry_bytes")]:
            for b in r["reach_bracket_bytes"]:
                reqs.append({"bytes": b, "stride": r["stride"], "alloc": "malloc", "seed": 1, "lines": lines})
    # What one entry of the first level covers: at stride 3E/4 aligned regions of E predict a rise
    # of 3/4 of the penalty once the slots touch N+1 regions (slot 4N/3+2); at stride E with the
    # lines spread over the whole entry (span E) the full rise at N+1 slots (all of E, not its
    # first page, is one entry).
    for lv in at.get("levels", [])[:1]:
        e, n = lv.get("reach_per_entry_bytes"), lv.get("entries")
        if e and n:
            s3 = e * 3 // 4 // 128 * 128
            for m in range(max(2, n - 2), n * 4 // 3 + 6):
                reqs.append({"bytes": m * s3, "stride": s3, "alloc": "malloc", "lines": lines})
            for m in (n - 1, n, n + 1, n + 2):
                reqs.append({"bytes": m * e, "stride": e, "alloc": "malloc", "span": e, "lines": lines})
    g = int(t["device"].get("vmm_granularity_bytes") or 0)
    lim = int(t["device"].get("tlb_limit_bytes_vmm") or 0)
    if g and lim:
        for s in (g, 16 * g):
            m = 2
            while m * s <= min(lim, 8 << 30) and m <= 4096:
                reqs.append({"bytes": m * s, "stride": s, "alloc": "vmm", "lines": lines})
                m *= 2
    uniq = {json.dumps(r, sort_keys=True): r for r in reqs}
    json.dump({"format": "memhier-requests/1", "tlb": list(uniq.values())}, sys.stdout)


def compare(run, diag):
    base = {}
    for e in entries(run):
        fam, p = params(e["name"])
        if fam == "tlb" and not e.get("error_occurred") and p.get("seed", "0") == "0":
            base[(p.get("alloc", "malloc"), p["stride"], p["bytes"])] = e
    vmm, probes = [], {}
    for e in json.load(open(diag)).get("benchmarks", []):
        fam, p = params(e["name"])
        if fam != "tlb":
            continue
        if e.get("error_occurred"):
            print(f"control {e['name']}: error {e.get('error_message')}")
            continue
        key = (p.get("alloc", "malloc"), p["stride"], p["bytes"])
        if p.get("mode") == "fine" and key in base:
            b = base[key]
            print(f"control fine mode: stride {size(int(p['stride']))} {size(int(p['bytes']))}: {e['latency_cycles']:.2f} "
                  f"+-{e.get('latency_ci95_cycles', 0):.2f} (count mode {b['latency_cycles']:.2f})")
        elif p.get("seed") == "1" and key in base:
            b = base[key]
            d = e["latency_cycles"] - b["latency_cycles"]
            ci = (e.get("latency_ci95_cycles", 0) ** 2 + b.get("latency_ci95_cycles", 0) ** 2) ** 0.5
            print(f"control seed 1: stride {size(int(p['stride']))} {size(int(p['bytes']))}: {e['latency_cycles']:.2f} vs "
                  f"{b['latency_cycles']:.2f} (diff {d:+.2f} +-{ci:.2f})")
        elif p.get("alloc") == "vmm":
            vmm.append((int(p["stride"]), int(p["bytes"]), e["latency_cycles"]))
        elif p.get("span") or key not in base:
            probes.setdefault((int(p["stride"]), p.get("span", "")), []).append((int(p["bytes"]), e["latency_cycles"]))
    t = json.load(open(os.path.join(run, "topology.json")))
    lv = (t.get("address_translation", {}).get("levels") or [{}])[0]
    e, n, pen = lv.get("reach_per_entry_bytes"), lv.get("entries"), lv.get("miss_penalty_cycles")
    for (st, span), pts in sorted(probes.items()):
        pts.sort()
        what = f"span {size(int(span))}" if span else "no power of two"
        pred = ""
        if e and n and pen and not span:
            m1 = next((m for m in range(2, 4 * n) if ((m - 1) * st) // e + 1 > n), None)
            pred = f"; aligned {size(e)} regions predict +{0.75 * pen:.1f} from {m1} slots"
        elif e and n and pen:
            pred = f"; one entry per {size(e)} predicts +{pen:.1f} from {n + 1} slots"
        print(f"control stride {size(st)} ({what}): " + ", ".join(f"{b // st} slots {m:.1f}" for b, m in pts) + pred)
    for s in sorted({v[0] for v in vmm}):
        print(f"vmm contiguous stride {size(s)}: " + ", ".join(f"{size(b)} {m:.1f}" for st, b, m in sorted(vmm) if st == s))


def main(argv):
    if len(argv) >= 3 and argv[1] == "--controls":
        controls(argv[2])
    elif len(argv) >= 4 and argv[1] == "--compare":
        compare(argv[2], argv[3])
    elif len(argv) >= 3:
        print_map(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
