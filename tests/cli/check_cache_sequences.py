#!/usr/bin/env python3
"""Runs memhier-bench's cache_sequences family on a simulated device (every cache its paths reach,
plus the launch checks) and checks what it wrote against the config's truth: the minimal eviction
set has the level's ways, the launch check matches `launch_invalidates`, every sequence trace parses
(scripts/seq_summary.py's reader) and holds as many sequences as it says.
   usage: check_cache_sequences.py memhier-bench config.json workdir"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import seq_summary  # noqa: E402

CACHE = {"global_ca": "l1", "texture": "texture", "ldg": "readonly", "global_cg": "l2"}


def main(bench, config, work):
    os.makedirs(work, exist_ok=True)
    cfg = json.load(open(config))
    levels = {l["name"]: l for l in cfg["levels"]}
    paths = {p: v["levels"] for p, v in cfg["paths"].items() if p in CACHE}
    req = os.path.join(work, "req.json")
    json.dump({"format": "memhier-requests/1",
               "cache_sequences": [{"path": p} for p in paths]}, open(req, "w"))
    out = os.path.join(work, "bench.json")
    r = subprocess.run([bench, f"--device=sim:{config}", "--plan=none", f"--memhier_extra={req}",
                        f"--benchmark_out={out}", "--benchmark_out_format=json",
                        f"--memhier_trace_dir={work}/traces"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"memhier-bench failed: {r.stderr[-2000:]}")
    d = json.load(open(out))
    bad = []
    seen = set()
    for b in d["benchmarks"]:
        name = b["name"].split("/iterations")[0]
        if not name.startswith("cache_sequences/"):
            continue
        p = seq_summary.params(name)
        path, truth = p["path"], levels[paths[p["path"]][0]]
        seen.add(path)
        ways = truth["ways"] if isinstance(truth["ways"], int) else truth["ways"][0]
        if b.get("error_occurred"):
            bad.append(f"{name}: {b.get('error_message')}")
            continue
        if b["ways_found"] != ways or b["minimal"] != 1 or b["search_complete"] != 1:
            bad.append(f"{name}: ways {b['ways_found']} (truth {ways}), minimal {b['minimal']}, "
                       f"complete {b['search_complete']}")
        kept = 0 if truth.get("launch_invalidates") else 1
        if b["kept_across_launch"] != kept:
            bad.append(f"{name}: kept_across_launch {b['kept_across_launch']}, truth {kept}")
        tf = os.path.join(work, "traces", name.replace("/", "__").replace(":", "-") + ".seqtrace")
        seqs = seq_summary.read_trace(tf)
        if len(seqs) < 10 or any("error" in s for s in seqs):
            bad.append(f"{tf}: {len(seqs)} sequences, errors {[s.get('error') for s in seqs if 'error' in s][:2]}")
        print(f"{name}: ways {b['ways_found']:.0f} (truth {ways}), {b['launches']:.0f} launches, "
              f"{len(seqs)} sequences, {os.path.getsize(tf) // 1024} KiB trace")
    if seen != set(paths):
        bad.append(f"paths searched {sorted(seen)}, config maps {sorted(paths)}")
    for x in bad:
        print("MISMATCH", x)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
