#!/usr/bin/env python3
"""Compares a measured archive with its simulated twin (issue 32; docs/simulator.md, "A twin of the
GPU you measured").

usage:
  twin_compare.py requests ARCHIVE -o requests.json
      every P-chase and TLB benchmark of ARCHIVE (bench.json(.gz), refine-N.json(.gz)) as a
      memhier-requests/1 file, so that the twin runs exactly those:
      memhier-bench --device=sim:twin.json --plan=none --memhier_extra=requests.json --benchmark_out=twin.json
  twin_compare.py run ARCHIVE TWIN.json -o TWIN_BENCH.json [--bench memhier-bench] [--only KEY ...]
      both steps above; requests beyond the twin's own limits (e.g. a TLB footprint above its
      memory) are left out and counted; --only keeps the requests whose key contains a string
  twin_compare.py curves ARCHIVE TWIN_BENCH.json [--json out.json] [--max-median PCT]
      per benchmark the relative latency error |twin - real| / real (latency_cycles); median and
      95th percentile per path (pchase path:..., tlb alloc:...; a P-chase at a carveout other than 0
      is its own group: the simulator models no carveout) and per family; the ten worst named;
      the benchmarks the twin did not answer. --max-median: exit 1 when a path's median is above PCT
      (--except SUBSTR ...: paths containing one of them exempt).
  twin_compare.py fields REAL_TOPOLOGY TWIN_TOPOLOGY
      every value the real topology decided (caches: size, line, sector, sets, ways, index bits,
      replacement, hit latency; TLBs: entries, reach per entry, miss penalty) against the twin's
      characterization; a size must lie in the archive's size bracket (the closed interval the
      capacity lies in: [C, C] for an exact structure, wider for a 50 % point or a TLB's total
      reach), a latency within 1 cycle (or 2 %). Exit 1 with one line per mismatch.
Stream (throughput) families are not compared: the simulated device answers no throughput family.
"""
import signal
import argparse
import gzip
import json
import os
import statistics
import sys

PCHASE_KEYS = {"path", "mode", "bytes", "stride", "iters", "warm", "carveout", "max_records"}
TLB_KEYS = {"alloc", "bytes", "stride", "lines", "timed", "span", "seed", "mode"}


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def archive_entries(archive):
    """The benchmark entries of an archive directory (or one bench.json), plan then refinements."""
    if not os.path.isdir(archive):
        return load_json(archive).get("benchmarks", [])
    files = sorted(f for f in os.listdir(archive)
                   if f.startswith(("bench.json", "refine-")) and f.endswith((".json", ".json.gz")))
    files.sort(key=lambda f: (not f.startswith("bench"), int(f.split("-")[1].split(".")[0]) if "-" in f else 0))
    out = []
    for f in files:
        out += load_json(os.path.join(archive, f)).get("benchmarks", [])
    return out


def parse_name(name):
    parts = name.split("/")
    kv = {}
    for p in parts[1:]:
        if ":" in p:
            k, v = p.split(":", 1)
            kv[k] = v
    return parts[0], kv


def key_of(family, kv):
    """A benchmark's identity without Google Benchmark's suffixes."""
    keys = PCHASE_KEYS if family == "pchase" else TLB_KEYS
    return family + "/" + "/".join(f"{k}:{kv[k]}" for k in sorted(kv) if k in keys)


def group_of(family, kv):
    """The path; a P-chase under a shared-memory carveout other than 0 apart (the simulator has none)."""
    if family == "tlb":
        return f"tlb/alloc:{kv.get('alloc', 'malloc')}"
    cv = kv.get("carveout", "-1")
    return f"pchase/path:{kv.get('path')}" + ("" if cv in ("0", "-1") else f"/carveout:{cv}")


def measured(entries):
    """{key: (group, latency_cycles, name)} of every P-chase and TLB benchmark with a latency."""
    out = {}
    for e in entries:
        fam, kv = parse_name(e.get("name", ""))
        if fam not in ("pchase", "tlb") or e.get("error_occurred") or not isinstance(e.get("latency_cycles"), (int, float)):
            continue
        out[key_of(fam, kv)] = (group_of(fam, kv), float(e["latency_cycles"]), e["name"])
    return out


def cmd_requests(args):
    req = {"format": "memhier-requests/1", "pchase": [], "tlb": []}
    seen = set()
    for e in archive_entries(args.archive):
        fam, kv = parse_name(e.get("name", ""))
        if fam not in ("pchase", "tlb") or key_of(fam, kv) in seen:
            continue
        seen.add(key_of(fam, kv))
        keys = PCHASE_KEYS if fam == "pchase" else TLB_KEYS
        item = {k: (v if k in ("path", "mode", "alloc") else int(v)) for k, v in kv.items() if k in keys}
        req[fam].append(item)
    with open(args.o, "w") as f:
        json.dump(req, f, indent=1)
    print(f"{len(req['pchase'])} pchase and {len(req['tlb'])} tlb requests -> {args.o}")
    return 0


def cmd_run(args):
    """requests + memhier-bench on the twin; items beyond the twin's own limits are left out (named)."""
    import re
    import subprocess
    req_path = args.out + ".requests.json"
    args_r = argparse.Namespace(archive=args.archive, o=req_path)
    cmd_requests(args_r)
    req = json.load(open(req_path))
    if args.only:
        req = {k: ([i for i in v if any(o in key_of(k, {kk: str(vv) for kk, vv in i.items()}) for o in args.only)]
                   if isinstance(v, list) else v) for k, v in req.items()}
    dropped = 0
    for _ in range(64):
        with open(req_path, "w") as f:
            json.dump(req, f)
        p = subprocess.run([args.bench, f"--device=sim:{args.twin}", "--plan=none", f"--memhier_extra={req_path}",
                            "--memhier_progress=0", f"--benchmark_out={args.out}", "--benchmark_out_format=json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        m = re.search(r"requests (\w+)\[(\d+)\]: (\d+) bytes exceed", p.stderr)
        if p.returncode == 0 or not m:
            break
        limit = int(m.group(3)) - 1
        fam = m.group(1)
        before = len(req[fam])
        req[fam] = [i for i in req[fam] if i["bytes"] <= limit or (fam == "tlb" and i.get("alloc", "malloc") != json.loads(
            json.dumps(req[fam][int(m.group(2))])).get("alloc", "malloc"))]
        dropped += before - len(req[fam])
    if p.returncode != 0:
        print(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "memhier-bench failed", file=sys.stderr)
        return 1
    print(f"twin ran {len(req['pchase'])} pchase and {len(req['tlb'])} tlb benchmarks -> {args.out}"
          f" ({dropped} beyond the twin's limits left out)")
    return 0


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    i = q * (len(xs) - 1)
    lo = int(i)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)


def summarize(rows):
    errs = [r["error_pct"] for r in rows]
    return {"benchmarks": len(rows), "median_error_pct": round(statistics.median(errs), 2),
            "p95_error_pct": round(pct(errs, 0.95), 2)}


def cmd_curves(args):
    real = measured(archive_entries(args.archive))
    twin = measured(archive_entries(args.twin_bench))
    rows, missing = [], []
    for k, (group, lat, name) in real.items():
        if k not in twin:
            missing.append(name)
            continue
        t = twin[k][1]
        rows.append({"name": name, "group": group, "family": group.split("/")[0], "real": lat, "twin": t,
                     "error_pct": 100.0 * abs(t - lat) / lat if lat > 0 else 0.0})
    if not rows:
        print("twin_compare: no benchmark in common", file=sys.stderr)
        return 2
    res = {"per_path": {}, "per_family": {}, "worst": [], "not_answered": len(missing),
           "not_answered_first": missing[:10]}
    for g in sorted({r["group"] for r in rows}):
        res["per_path"][g] = summarize([r for r in rows if r["group"] == g])
    for f in sorted({r["family"] for r in rows}):
        res["per_family"][f] = summarize([r for r in rows if r["family"] == f])
    res["all"] = summarize(rows)
    res["worst"] = [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.items()}
                    for r in sorted(rows, key=lambda r: -r["error_pct"])[:10]]
    print(f"{'path':28} {'n':>5} {'median %':>9} {'p95 %':>8}")
    for g, s in list(res["per_path"].items()) + [("family " + f, s) for f, s in res["per_family"].items()]:
        print(f"{g:28} {s['benchmarks']:5d} {s['median_error_pct']:9.2f} {s['p95_error_pct']:8.2f}")
    print("worst ten:")
    for r in res["worst"]:
        print(f"  {r['error_pct']:7.1f} %  real {r['real']:9.1f}  twin {r['twin']:9.1f}  {r['name']}")
    print(f"not answered by the twin: {len(missing)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.max_median is not None:
        bad = [g for g, s in res["per_path"].items()
               if s["median_error_pct"] > args.max_median and not any(e in g for e in args.exempt or [])]
        if bad:
            print("median error above %.1f %% on: %s" % (args.max_median, ", ".join(bad)))
            return 1
    return 0


CACHE_FIELDS = ["size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "index_bits", "replacement",
                "hit_latency_cycles", "entries", "reach_per_entry_bytes", "miss_penalty_cycles"]
LATENCIES = {"hit_latency_cycles", "miss_penalty_cycles"}


def field_problem(name, field, real, twin, rc):
    """None when the twin's value matches what the archive decided, else one line."""
    if twin is None:
        return f"{name}.{field}: archive {json.dumps(real)}, twin not determined"
    if field in LATENCIES:
        if abs(twin - real) <= max(1.0, 0.02 * abs(real)):
            return None
    elif field == "size_bytes" and isinstance(rc.get("size_bracket_bytes"), list):
        lo, hi = rc["size_bracket_bytes"]
        if lo <= twin <= hi:
            return None
        return f"{name}.size_bytes: twin {twin} outside the archive's bracket [{lo}, {hi}] (value {real})"
    elif twin == real:
        return None
    return f"{name}.{field}: archive {json.dumps(real)[:80]}, twin {json.dumps(twin)[:80]}"


def comparable(c):
    """A cache as the twin comparison reads it, whichever analyzer wrote it: ways as one count where
    every set agrees (memhier-topology/1 lists them by set, /2 states the count or ways_per_set), and
    the size one SM's chase sees (a topology whose caches.l2 is the whole L2 keeps that view under
    one_sm_sees; the whole L2's size is the structure's, compared as sets x ways)."""
    c = dict(c) if isinstance(c, dict) else {}
    w = c.get("ways_per_set") if isinstance(c.get("ways_per_set"), list) else c.get("ways")
    if isinstance(w, list) and w and all(x == w[0] for x in w):
        w = w[0]
    c["ways"] = w
    v = c.get("one_sm_sees")
    if isinstance(v, dict):
        c["size_bytes"] = v.get("half_point_bytes")
        c["size_bracket_bytes"] = v.get("half_point_bracket_bytes")
    return c


def cmd_fields(args):
    real, twin = load_json(args.real), load_json(args.twin)
    problems, checked = [], 0
    for name, rc in sorted(real.get("caches", {}).items()):
        if not isinstance(rc, dict) or rc.get("present") is not True:
            continue
        rc = comparable(rc)
        tc = comparable(twin.get("caches", {}).get(name, {}))
        for f in CACHE_FIELDS:
            if rc.get(f) is None:
                continue
            checked += 1
            p = field_problem(name, f, rc[f], tc.get(f), rc)
            if p:
                problems.append(p)
    for p in problems:
        print(p)
    print(f"{checked} decided fields compared, {len(problems)} differ")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("requests")
    r.add_argument("archive")
    r.add_argument("-o", required=True)
    c = sub.add_parser("curves")
    c.add_argument("archive")
    c.add_argument("twin_bench")
    c.add_argument("--json")
    c.add_argument("--max-median", type=float)
    c.add_argument("--except", dest="exempt", nargs="*", help="paths containing one of these are exempt from --max-median")
    u = sub.add_parser("run")
    u.add_argument("archive")
    u.add_argument("twin")
    u.add_argument("--bench", default="build/release/memhier-bench")
    u.add_argument("--only", nargs="*", help="keep requests whose key contains one of these strings")
    u.add_argument("-o", dest="out", required=True)
    f = sub.add_parser("fields")
    f.add_argument("real")
    f.add_argument("twin")
    args = ap.parse_args()
    return {"requests": cmd_requests, "run": cmd_run, "curves": cmd_curves, "fields": cmd_fields}[args.cmd](args)


if __name__ == "__main__":
    # a reader that stops early (`| head`) ends the output quietly, as other Unix tools do
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
