#!/usr/bin/env python3
"""The site's plot data against the archives (ctest cli_site, before the browser test): for every
usable archive, each P-chase curve holds exactly the points scripts/plot.py draws for it (its own
grouping, plot.series), each latency-spectrum trace plot every record of the trace, each
outstanding-requests plot every record of its traces, and the inferred edges are topology.json's.
usage: check_site_data.py SITE RESULTS   (exit 0 pass, 1 fail)"""
import base64
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import plot  # noqa: E402

site, results = sys.argv[1], sys.argv[2]
fails = []


def globals_of(path, var):
    text = open(path).read()
    m = re.search(r'\[("[^"]+")\] = "([A-Za-z0-9+/=]+)"', text)
    return json.loads(gzip.decompress(base64.b64decode(m.group(2))))


manifest = json.loads(open(os.path.join(site, "data", "manifest.js")).read().split("=", 1)[1].rstrip().rstrip(";"))
checked = 0
for a in manifest["archives"]:
    if not a["usable"]:
        continue
    plots = {p["id"]: p for p in globals_of(os.path.join(site, "data", a["id"] + ".js"), "MEMHIER_DATA")["plots"]}
    arch = os.path.join(results, a["path"])
    _, ctx, entries, trace_dir = plot.load_archive(arch)
    topo = json.load(open(os.path.join(arch, "topology.json")))
    for path in {e.p("path") for e in entries if e.family == "pchase"}:
        cap = [e for e in entries if e.family == "pchase" and e.p("path") == path and e.p("mode") in ("count", "classic")]
        ser = plot.series(cap, lambda e: (e.p("mode"), e.pn("stride"), e.p("carveout", "-"), e.p("warm", "1")),
                          lambda e: e.pn("bytes"), plot.counter("latency_cycles"))
        want = sorted((x, y) for v in ser.values() if len(v) >= 2 for x, y in v)
        p = plots.get("pchase_%s_latency" % path)
        if not want:
            continue
        got = sorted((x, y) for s in p["series"] for x, y in zip(s["x"], s["y"])) if p else []
        if got != want:
            fails.append("%s: pchase %s: %d points in the site, plot.py draws %d" % (a["id"], path, len(got), len(want)))
        for m in (p or {}).get("marks", []):
            name, kind = m["label"].split(" ")[:2]
            c = topo["caches"][name]
            vals = [c.get("size_bytes"), c.get("onset_size_bytes")] + list((c.get("size_bytes_by_carveout") or {}).values()) + \
                list((c.get("onset_size_bytes_by_carveout") or {}).values())
            if m["x"] not in vals:
                fails.append("%s: pchase %s: edge %s at %s is not in topology.json" % (a["id"], path, m["label"], m["x"]))
        checked += 1
    for e in entries:
        if e.family in ("latency_spectrum", "outstanding_requests") and "probe" not in e.params:
            tr = plot.read_trace(plot.find_trace(trace_dir, e.canonical()))
            pid = "spectrum_%s_trace" % e.p("path") if e.family == "latency_spectrum" else "outstanding_%s" % e.p("pattern")
            p = plots.get(pid)
            if e.family == "latency_spectrum":
                ok = p and p["points"] == len(tr[1]) == int(tr[0]["records"])
            else:
                label = "%s load%s, " % (e.p("loads", "1"), "" if e.p("loads", "1") == "1" else "s")
                ok = p and any(s["label"].startswith(label) and len(s["y"]) == len(tr[1]) and s["y"] == [r[1] for r in tr[1]]
                               for s in p["series"])
            if not ok:
                fails.append("%s: %s: the site's %s does not hold the trace's %d records" % (a["id"], e.canonical(), pid, len(tr[1])))
            checked += 1
for f in fails:
    print("FAIL " + f)
print("check_site_data: %d curves of %d archives against the archives; %s" % (
    checked, sum(1 for a in manifest["archives"] if a["usable"]), "%d failures" % len(fails) if fails else "all match"))
sys.exit(1 if fails or not checked else 0)
