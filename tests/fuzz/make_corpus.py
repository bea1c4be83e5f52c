#!/usr/bin/env python3
"""Seed corpus of tests/fuzz/fuzz_loaders.cpp from real files of the repository: the archived H100
runs (a slice of bench.json, requests, topology), the golden test inputs, traces, the shipped sim
configs. Each seed is the reader's selector byte followed by the file's text.
usage: make_corpus.py <source dir> <out dir>"""
import glob, gzip, json, os, sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
MAX = 60000  # libFuzzer's -max_len in run_fuzz.sh is 65536
n = 0


def seed(selector, text):
    global n
    data = bytes([selector]) + text.encode()[:MAX]
    with open(os.path.join(out, "seed-%d-%03d" % (selector, n)), "wb") as f:
        f.write(data)
    n += 1


def load(path):
    """A plain file or its packed archive's .gz (archives keep bench.json.gz, refine-N.json.gz)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return json.load(gzip.open(path + ".gz", "rt"))
    return json.load(open(path))


def bench_slice(path, count):
    d = load(path)
    d["benchmarks"] = d["benchmarks"][:count]
    return json.dumps(d)


h100 = sorted(a for a in glob.glob(os.path.join(src, "results", "sm_*", "*", "*", "*"))
              if os.path.isdir(a) and not os.path.basename(a).startswith("parts-"))
g = os.path.join(src, "tests", "cli", "golden")
for p in [os.path.join(g, "infer", "bench.json"), os.path.join(g, "compare", "base", "bench.json")]:
    seed(0, open(p).read())
for a in h100[:1]:
    seed(0, bench_slice(os.path.join(a, "bench.json"), 40))
    seed(0, bench_slice(os.path.join(a, "refine-1.json"), 30))
    for q in sorted(glob.glob(os.path.join(a, "requests-*.json*")))[:3]:
        d = load(q[:-3] if q.endswith(".gz") else q)
        d["pchase"] = d.get("pchase", [])[:20]
        seed(3, json.dumps(d))
    seed(4, open(os.path.join(a, "topology.json")).read()[:MAX] if os.path.getsize(os.path.join(a, "topology.json")) < MAX
         else json.dumps({k: v for k, v in json.load(open(os.path.join(a, "topology.json"))).items() if k != "caches"}))
traces = sorted(glob.glob(os.path.join(g, "**", "*.trace"), recursive=True), key=os.path.getsize)
for t in traces[:6] + traces[-2:]:
    seed(1, open(t).read())
for c in sorted(glob.glob(os.path.join(src, "sim", "configs", "*.json"))):
    seed(2, open(c).read())
seed(3, json.dumps({"format": "memhier-requests/1", "pchase": [{"path": "global_ca", "mode": "fine", "bytes": 16512,
     "stride": 128, "iters": 4096, "warm": 1, "carveout": 0, "max_records": 64}], "tlb": [{"bytes": 138412032, "stride": 2097152}]}))
seed(4, open(os.path.join(g, "compare", "base", "topology.json")).read())
print("%d seeds in %s" % (n, out))
