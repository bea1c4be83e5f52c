#!/usr/bin/env python3
"""Hostile inputs to memhier-bench (simulated device), memhier-infer, memhier-compare and
scripts/characterize.sh: each must give one clear line on stderr naming what is wrong and a non-zero
exit (2; memhier-infer 1), never an abort, a traceback, a silent success or a partial output. Cases
that must succeed say so. `--table FILE` also writes the list with what each produced (Markdown).
usage: hostile_inputs.py <build dir> <source dir> <work dir> [--table FILE]"""
import json, os, shutil, subprocess, sys

build, src, work = sys.argv[1:4]
table = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else None
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
BENCH, INFER, COMPARE = (os.path.join(build, t) for t in ("memhier-bench", "memhier-infer", "memhier-compare"))
CHAR = os.path.join(src, "scripts", "characterize.sh")
CFG = os.path.join(src, "sim", "configs", "plain_lru.json")
GOLD = os.path.join(src, "tests", "cli", "golden", "infer", "bench.json")
W = lambda *p: os.path.join(work, *p)


def write(name, text):
    with open(W(name), "w") as f:
        f.write(text if isinstance(text, str) else json.dumps(text))
    return W(name)


# --- inputs made from good ones -------------------------------------------------------------
def req(*items, **families):
    d = {"format": "memhier-requests/1"}
    if items:
        d["pchase"] = list(items)
    d.update(families)
    return d


def pc(**kw):
    base = {"path": "global_cg", "mode": "count", "bytes": 65536, "stride": 128, "iters": 512, "warm": 1, "carveout": -1}
    base.update(kw)
    return base


gold = json.load(open(GOLD))
os.makedirs(W("g"))
shutil.copytree(os.path.join(os.path.dirname(GOLD), "traces"), W("g", "traces"))


def bench_variant(name, fn):
    d = json.loads(json.dumps(gold))
    fn(d)
    with open(W("g", name), "w") as f:
        json.dump(d, f)
    return W("g", name)


def set_all(counter, value):
    def f(d):
        for b in d["benchmarks"]:
            if counter in b:
                b[counter] = value
    return f


def rename_name_only(family, old, new):
    """Every entry of `family`: `name` changed, `run_name` (what the analysis reads) left as it was."""
    def f(d):
        for b in d["benchmarks"]:
            if b["name"].startswith(family) and "run_name" in b:
                b["name"] = b["name"].replace(old, new)
    return f


def rename_first(old, new):
    def f(d):
        b = d["benchmarks"][0]
        for k in ("name", "run_name"):
            if k in b:
                b[k] = b[k].replace(old, new)
    return f


cfg = json.load(open(CFG))


def cfg_variant(name, fn):
    d = json.loads(json.dumps(cfg))
    fn(d)
    return write(name, d)


def level(d, lname):
    return next(l for l in d["levels"] if l["name"] == lname)


# (label, tool argv, rc, expected text on stderr (last line), env)
cases = []
B = lambda label, args, want, rc=2, env=None: cases.append((label, [BENCH] + args, rc, want, env))
SIM = "--device=sim:" + CFG
# memhier-bench: its own flags
B("unknown flag", ["--bogus"], "unknown flag '--bogus'")
B("positional argument", [SIM, "extra"], "unknown flag 'extra'")
B("device index not a number", ["--device=cuda:x"], "use cuda:N")
B("unknown device kind", ["--device=tpu:0"], "unknown device")
B("sim without a config", ["--device=sim:"], "use sim:<config.json>")
B("missing sim config", ["--device=sim:" + W("missing.json")], "missing.json")
B("device index past the last GPU", ["--device=cuda:999"], "no CUDA device|out of range")
B("unknown plan", [SIM, "--plan=huge"], "unknown plan 'huge'")
B("plan none without requests", [SIM, "--plan=none"], "give one")
B("progress not a number", [SIM, "--memhier_progress=abc"], "--memhier_progress: a non-negative integer")
B("progress negative", [SIM, "--memhier_progress=-1"], "a non-negative integer")
B("budget zero", [SIM, "--memhier_budget_s=0"], "--memhier_budget_s: seconds per benchmark")
B("budget not a number", [SIM, "--memhier_budget_s=soon"], "--memhier_budget_s")
B("budget of ten days", [SIM, "--memhier_budget_s=864000"], "at most 86400")
B("empty trace directory", [SIM, "--memhier_trace_dir= "], "needs a directory name")
B("flag without its value at the end", [SIM, "--plan"], "--plan needs a value")
B("defer without serve", [SIM, "--memhier_defer=tlb"], "--memhier_defer needs --memhier_serve")
B("serve without an output file", [SIM, "--memhier_serve=" + work], "needs --benchmark_out in JSON")
B("serve into a missing directory", [SIM, "--memhier_serve=" + W("nowhere"), "--benchmark_out=" + W("s.json")],
  "no such directory")
B("defer an unknown family", [SIM, "--memhier_serve=" + work, "--benchmark_out=" + W("s.json"), "--memhier_defer=tlbx"],
  "no family 'tlbx'")
# Google Benchmark's flags
for flag, want in [("--benchmark_format=xml", "use console, json or csv"), ("--benchmark_out_format=xml", "use console, json or csv"),
                   ("--benchmark_repetitions=0", "an integer from 1"), ("--benchmark_repetitions=-3", "an integer from 1"),
                   ("--benchmark_repetitions=abc", "an integer from 1"), ("--benchmark_min_time=abc", "--benchmark_min_time"),
                   ("--benchmark_min_warmup_time=-1", "seconds >= 0"), ("--benchmark_color=purple", "use auto, true or false"),
                   ("--benchmark_time_unit=xx", "use ns, us, ms or s"),
                   ("--benchmark_enable_random_interleaving=maybe", "use true or false"),
                   ("--benchmark_list_tests=maybe", "use true or false"), ("--benchmark_counters_tabular=2", "use true or false"),
                   ("--benchmark_perf_counters=CYCLES", "host CPU events"), ("--benchmark_context=novalue", "key=value pairs"),
                   ("--benchmark_context=gpu_name=FAKE", "key 'gpu_name' is one memhier-bench sets itself"),
                   ("--benchmark_filter=[", "not a regular expression"), ("--benchmark_out=", "needs a file name"),
                   ("--benchmark_out=/proc/memhier.json", "cannot write /proc/memhier.json"), ("--v=abc", "an integer from 0"),
                   ("--benchmark_format", "needs a value")]:
    B(flag, [SIM, flag], want)
B("filter matching nothing", [SIM, "--benchmark_filter=^nomatch$"], "no benchmark of this plan matches the filter")
B("BENCHMARK_FORMAT=xml in the environment", [SIM], "environment variable BENCHMARK_FORMAT", env={"BENCHMARK_FORMAT": "xml"})
B("BENCHMARK_REPETITIONS=-3 in the environment", [SIM], "environment variable BENCHMARK_REPETITIONS",
  env={"BENCHMARK_REPETITIONS": "-3"})
# requests files
for label, content, want in [
        ("requests: missing file", None, "cannot open the requests file"),
        ("requests: not JSON", "{", "not valid JSON"),
        ("requests: another format", {"format": "memhier-requests/9"}, "not a memhier-requests/1 file"),
        ("requests: unknown path", req(pc(path="l3")), "unknown path 'l3'"),
        ("requests: stride 0", req(pc(stride=0)), "stride: 0 is outside"),
        ("requests: stride -32", req(pc(stride=-32)), "stride: -32 is outside"),
        ("requests: stride not a multiple of 4", req(pc(stride=30)), "not a multiple of 4"),
        ("requests: iters 4e12", req(pc(iters=4 * 10**12)), "iters: 4000000000000 is outside"),
        ("requests: iters over the time budget", req(pc(iters=10**11)), "over the per-benchmark budget"),
        ("requests: footprint larger than the device memory", req(pc(bytes=1 << 36, stride=1 << 20)), "exceeds what the global_cg path can chase"),
        ("requests: 2^38 chain elements", req(pc(bytes=1 << 40, stride=4)), "more than 2.32 elements"),
        ("requests: fractional bytes", req(pc(bytes=65536.5)), "must be an integer, not 65536.5"),
        ("requests: unknown key", req(pc(colour=1)), "unknown key 'colour'"),
        ("requests: carveout 150", req(pc(carveout=150)), "carveout: 150 is outside"),
        ("requests: a family nobody takes", req(bogus=[{"x": 1}]), "'bogus' requests are taken by no family"),
        ("requests: tlb past the tlb limit", req(tlb=[{"bytes": 1 << 40, "stride": 1 << 21}]), "exceed the tlb family's limit")]:
    path = W("absent.json") if content is None else write("req_%d.json" % len(cases), content)
    B(label, [SIM, "--plan=none", "--memhier_extra=" + path], want)
# sim configs with contradictions
for label, fn, want in [
        ("sim config: sets x ways x line != size", lambda d: level(d, "l1").update(size_bytes=level(d, "l1")["size_bytes"] + 128), "does not match sets x ways x line"),
        ("sim config: unknown policy", lambda d: level(d, "l1").update(replacement="lfu7"), "lfu7"),
        ("sim config: unknown key", lambda d: d.update(colour=1), "colour"),
        ("sim config: path through an undefined level", lambda d: d["paths"]["global_ca"].update(levels=["l9"]), "l9"),
        ("sim config: line not a power of two", lambda d: level(d, "l1").update(line_bytes=96), "line_bytes"),
        ("sim config: wrong format", lambda d: d.update(format="memhier-sim-config/7"), "format")]:
    B(label, ["--device=sim:" + cfg_variant("cfg_%d.json" % len(cases), fn)], want)
B("sim config: empty file", ["--device=sim:" + write("empty.json", "")], "not valid JSON")

# memhier-infer
I = lambda label, args, want, rc=1: cases.append((label, [INFER] + args, rc, want, None))
I("no input", [], "no input")
I("unknown option", [GOLD, "--fast"], "unknown option '--fast'")
I("-o without its value", [GOLD, "-o"], "-o needs a file name")
I("empty benchmarks list", [write("empty_list.json", {"context": gold["context"], "benchmarks": []})], "the benchmarks list is empty")
neg = bench_variant("negative.json", set_all("latency_cycles", -5.0))
I("every latency_cycles negative", [neg], "latency_cycles = -5 is negative")
I("every latency_cycles negative, --allow-errors", [neg, "--allow-errors", "-o", W("t_neg.json")], "nothing could be determined")
I("latency 1e308", [bench_variant("huge.json", set_all("latency_cycles", 1e308))], "beyond any measured quantity")
I("latency 1e999 (beyond a double)", [write("inf.json", open(GOLD).read().replace('"latency_cycles": 30.0', '"latency_cycles": 1e999'))],
  "not finite|not valid JSON")
I("latency Infinity (as Google Benchmark writes it)", [bench_variant("infinity.json", set_all("latency_cycles", float("inf")))],
  "counter latency_cycles is not finite")
I("miss rate 1.5", [bench_variant("mr.json", lambda d: d["benchmarks"][3].update(miss_rate=1.5))],
  "miss_rate = 1.5 is above 1")
I("more misses than accesses", [bench_variant("mm.json", lambda d: d["benchmarks"][3].update(misses=1e6))], "more misses")
I("name with stride:-32", [bench_variant("negstride.json", rename_first("stride:32", "stride:-32"))], "parameter stride: '-32' is negative")
I("name with bytes:abc", [bench_variant("abc.json", rename_first("bytes:", "bytes:abc"))], "is not a non-negative integer|is not a number")
I("every pchase name renamed to stride:-32, run_name left", [bench_variant("nameonly.json", rename_name_only("pchase/", "stride:32", "stride:-32"))],
  "its name and run_name disagree")
def add_entry(name):
    def f(d):
        b = json.loads(json.dumps(d["benchmarks"][0]))
        b["name"] = b["run_name"] = name
        d["benchmarks"].append(b)
    return f


I("l1_throughput name with bytes:x", [bench_variant("l1x.json", add_entry("l1_throughput/bytes:x/cta_size:256/ctas:8/ilp:4/carveout:0"))],
  "parameter bytes: 'x' is not a non-negative integer")
I("gmem_throughput name with ctas:x", [bench_variant("ctasx.json", add_entry("gmem_throughput/kind:read/width:16/ilp:1/cta_size:128/ctas:x"))],
  "parameter ctas: 'x' is not a non-negative integer")
I("cache_sharing name with bytes:1e3", [bench_variant("b1e3.json", add_entry("cache_sharing/victim:l1/bytes:1e3"))],
  "parameter bytes: '1e3' is not a non-negative integer")
cases.append(("an entry of a family the analyzer does not read: a counted warning",
              [INFER, bench_variant("unknownfam.json", add_entry("future_family/bytes:4096")), "-o", W("t_unknown.json")], 0,
              "warning: 1 entry of family 'future_family', which this analyzer does not read: skipped", None))
I("name with a component without value", [bench_variant("noval.json", rename_first("/stride:32", "/stride"))], "has no value")
I("duplicated entry", [bench_variant("dup.json", lambda d: d["benchmarks"].append(d["benchmarks"][0]))], "appears twice")
I("-o overwrites the input", [GOLD, "-o", GOLD], "would overwrite an input")
I("same input twice", [GOLD, GOLD], "given twice")
I("-o is a directory", [GOLD, "-o", work], "is a directory")
I("--report into a missing directory", [GOLD, "-o", W("t.json"), "--report", W("no", "dir", "r.md")], "cannot write")
part = bench_variant("partial.json", lambda d: d["benchmarks"][0].update(latency_cycles=-1.0))
cases.append(("one invalid entry, --allow-errors: left out and listed", [INFER, part, "--allow-errors", "-o", W("t_part.json")],
              0, "", None))

# memhier-compare
C = lambda label, args, want: cases.append((label, [COMPARE] + args, 2, want, None))
base = os.path.join(src, "tests", "cli", "golden", "compare", "base")
C("one input", [base], "needs exactly two inputs")
C("three inputs", [base, base, base], "needs exactly two inputs")
C("missing input", [base, W("nothing")], "no such file or directory")
C("directory without bench.json", [base, work], "without bench.json")
C("input not JSON", [base, write("cmp_bad.json", "{")], "not valid JSON")
for flag, want in [("--threshold=abc", "bad value 'abc' for --threshold"), ("--threshold=nan", "--threshold"),
                   ("--threshold=-1", "--threshold"), ("--alpha=2", "--alpha"), ("--size-tolerance=5", "--size-tolerance"),
                   ("--format=xml", "unknown format 'xml'"), ("--fast", "unknown flag '--fast'")]:
    C(flag, [flag, base, base], want)
C("--threshold without its value", [base, base, "--threshold"], "--threshold needs a value")

# characterize.sh
H = lambda label, args, want: cases.append((label, ["bash", CHAR] + args, 2, want, None))
H("unknown argument", ["--fast"], "unknown argument '--fast'")
H("--plan huge", ["--plan", "huge"], "--plan must be full, quick or check")
H("--rounds -1", ["--rounds", "-1"], "--rounds must be an integer")
H("--rounds abc", ["--rounds=abc"], "--rounds must be an integer")
H("--rounds 99", ["--rounds", "99"], "from 0 to 20")
H("--device tpu:0", ["--device", "tpu:0"], "unknown device 'tpu:0'")
H("--device cuda:x", ["--device=cuda:x"], "use cuda:N")
H("--device sim:missing", ["--device", "sim:" + W("missing.json")], "no such readable file")
H("--device without its value", ["--device"], "--device needs a value")
H("--device followed by a flag", ["--device", "--plan", "quick"], "--device needs a value")
H("--all with --device", ["--all", "--device", "cuda:0"], "does not take --device")
H("--build-dir missing", ["--build-dir", W("nodir")], "no such directory")
H("--build-dir without memhier-bench", ["--build-dir", work], "has no memhier-bench")
H("--results not writable", ["--results", "/proc/memhier-results", "--build-dir", build], "cannot create or write")
H("extra flag characterize sets itself", ["--build-dir", build, "--", "--benchmark_out=x.json"], "is set by characterize.sh itself")

# --- run ------------------------------------------------------------------------------------
failures, rows = [], []
for label, argv, rc_want, want, env in cases:
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=work, timeout=120)
    err = p.stderr.decode(errors="replace")
    lines = [l for l in err.splitlines() if l.strip() and "Library was built as DEBUG" not in l]
    last = lines[-1] if lines else ""
    import re
    ok = p.returncode == rc_want and (not want or re.search(want, last)) and "Traceback" not in err and "terminate called" not in err
    if rc_want != 0 and len(lines) != 1 and not label.startswith("filter matching nothing"):
        ok = False  # one line (Google Benchmark adds its own line before ours for an empty match)
    if label.startswith("one invalid entry"):
        t = json.load(open(W("t_part.json")))
        listed = t["measurement"]["skipped_benchmarks"]
        ok = ok and len(listed) == 1 and "invalid input" in listed[0]
        last = "exit 0; measurement.skipped_benchmarks: " + listed[0][:90] + "..."
    tool = os.path.basename(argv[1] if argv[0] == "bash" else argv[0])
    rows.append((tool, label, p.returncode, last))
    if not ok:
        failures.append(label)
        print("FAIL: %s: exit %d (want %d), stderr:\n%s" % (label, p.returncode, rc_want, err))
leftovers = [f for f in os.listdir(work) if ".incomplete-" in f]
if leftovers:
    failures.append("temporary files left: %s" % leftovers)
if table:
    with open(table, "w") as f:
        f.write("| tool | hostile input | exit | what it said (last line of stderr) |\n|---|---|---|---|\n")
        for tool, label, rc, last in rows:
            last = last.replace(work, "<work>").replace(src, "<src>").replace(build, "<build>").replace("|", "\\|")
            f.write("| %s | %s | %d | %s |\n" % (tool, label.replace("|", "\\|"), rc, last))
print("%d hostile inputs, %d failed" % (len(cases), len(failures)))
print("FAIL" if failures else "PASS")
sys.exit(1 if failures else 0)
