#!/usr/bin/env python3
"""memhier-bench's outputs with every family of the simulated device: console, JSON and CSV on the
console and in --benchmark_out, with repetitions, aggregates and random interleaving; and an output
file that is never left truncated: a run ended by SIGTERM, a run refused for a bad flag and a
--benchmark_list_tests run leave an existing file as it was and no temporary file behind.
usage: output_formats.py <memhier-bench> <memhier-infer> <source dir> <work dir>"""
import csv, glob, io, json, os, shutil, signal, subprocess, sys, time

bench, infer, src, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, **kw):
    return subprocess.run([bench] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work, timeout=300, **kw)


def check_csv(text, what, expect_rows=None, aggregates_only=False):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][:4] != ["name", "iterations", "real_time", "cpu_time"]:
        fail("%s: no CSV header (%r)" % (what, text[:200]))
        return
    width = len(rows[0])
    bad = [r for r in rows[1:] if len(r) != width]
    if bad:
        fail("%s: %d rows of another width than the header (%d)" % (what, len(bad), width))
    if expect_rows is not None and len(rows) - 1 != expect_rows:
        fail("%s: %d rows, expected %d" % (what, len(rows) - 1, expect_rows))
    if aggregates_only and any(not r[0].rstrip('"').endswith(("_mean", "_median", "_stddev", "_cv")) for r in rows[1:]):
        fail("%s: a row that is not an aggregate" % what)
    counters = [c for c in rows[0][10:]]
    return counters


configs = sorted(glob.glob(os.path.join(src, "sim", "configs", "*.json")))
for cfg in configs:
    name = os.path.basename(cfg)
    dev = "--device=sim:" + cfg
    listed = run([dev, "--plan=quick", "--benchmark_list_tests=true"]).stdout.decode().split()
    families = sorted({n.split("/")[0] for n in listed})
    p = run([dev, "--plan=quick", "--benchmark_format=csv"])
    if p.returncode != 0:
        fail("%s: CSV on the console exited %d: %s" % (name, p.returncode, p.stderr.decode()[-300:]))
        continue
    counters = check_csv(p.stdout.decode(), name + " console CSV", len(listed))
    out = os.path.join(work, name + ".csv")
    p = run([dev, "--plan=quick", "--benchmark_out=" + out, "--benchmark_out_format=csv", "--benchmark_format=json"])
    if p.returncode != 0:
        fail("%s: CSV file exited %d" % (name, p.returncode))
        continue
    check_csv(open(out).read(), name + " CSV file", len(listed))
    try:
        json.loads(p.stdout.decode())
    except ValueError as e:
        fail("%s: --benchmark_format=json is not JSON: %s" % (name, e))
    print("%s: families %s, %d benchmarks, %d CSV counter columns" % (name, " ".join(families), len(listed), len(counters or [])))

cfg = os.path.join(src, "sim", "configs", "plain_lru.json")
dev = "--device=sim:" + cfg
n = len(run([dev, "--plan=quick", "--benchmark_list_tests=true"]).stdout.decode().split())
# repetitions and aggregates
out = os.path.join(work, "agg.csv")
p = run([dev, "--plan=quick", "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
         "--benchmark_out=" + out, "--benchmark_out_format=csv", "--benchmark_format=csv"])
if p.returncode:
    fail("aggregates-only CSV exited %d: %s" % (p.returncode, p.stderr.decode()[-300:]))
else:
    check_csv(open(out).read(), "aggregates-only CSV file", 4 * n, aggregates_only=True)
    check_csv(p.stdout.decode(), "aggregates-only CSV console", 4 * n, aggregates_only=True)
out = os.path.join(work, "inter", "bench.json")
p = run([dev, "--plan=quick", "--benchmark_repetitions=2", "--benchmark_enable_random_interleaving=true",
         "--benchmark_display_aggregates_only=true", "--benchmark_out=" + out, "--benchmark_out_format=json"])
if p.returncode:
    fail("interleaved repetitions exited %d: %s" % (p.returncode, p.stderr.decode()[-300:]))
else:
    d = json.load(open(out))
    it = [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
    if len(it) != 2 * n or sorted({b.get("repetition_index") for b in it}) != [0, 1]:
        fail("interleaved repetitions: %d iteration entries for %d benchmarks" % (len(it), n))
    q = subprocess.run([infer, out, "-o", os.path.join(work, "inter", "topology.json")], stderr=subprocess.PIPE)
    if q.returncode:
        fail("memhier-infer on repetitions exited %d: %s" % (q.returncode, q.stderr.decode()))
p = run([dev, "--plan=quick", "--benchmark_repetitions=2", "--benchmark_format=console"])
if p.returncode:
    fail("console with repetitions exited %d" % p.returncode)
print("repetitions, aggregates, interleaving: %d benchmarks x 2-3 repetitions" % n)

# never a truncated file
target = os.path.join(work, "keep", "bench.json")
os.makedirs(os.path.dirname(target))
OLD = '{"old": true}\n'


def reset():
    with open(target, "w") as f:
        f.write(OLD)


def intact(what):
    if open(target).read() != OLD:
        fail(what + ": the existing output file was changed")
    left = [f for f in os.listdir(os.path.dirname(target)) if ".incomplete-" in f]
    if left:
        fail(what + ": temporary files left: %s" % left)


reset()
req = os.path.join(work, "slow.json")
with open(req, "w") as f:
    json.dump({"format": "memhier-requests/1", "pchase": [
        {"path": "global_cg", "mode": "count", "bytes": 65536, "stride": 128, "iters": 50000000, "warm": 1} for _ in range(2)]}, f)
p = subprocess.Popen([bench, dev, "--plan=none", "--memhier_extra=" + req, "--benchmark_out=" + target],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work)
t0 = time.time()
while time.time() - t0 < 20 and not any(".incomplete-" in f for f in os.listdir(os.path.dirname(target))):
    time.sleep(0.01)
time.sleep(0.2)
p.send_signal(signal.SIGTERM)
rc = p.wait(timeout=30)
if rc != -signal.SIGTERM:
    fail("SIGTERM during a run: exit %d, expected to end by the signal" % rc)
intact("SIGTERM during a run")
run([dev, "--benchmark_repetitions=-3", "--benchmark_out=" + target])
intact("a refused flag")
run([dev, "--plan=quick", "--benchmark_list_tests=true", "--benchmark_out=" + target])
intact("--benchmark_list_tests")
p = run([dev, "--plan=quick", "--benchmark_filter=^clock", "--benchmark_out=" + target])
if p.returncode or json.load(open(target)).get("context", {}).get("memhier_failed_benchmarks") != "0":
    fail("a finished run did not replace the file with its JSON (and memhier_failed_benchmarks)")
print("truncation: SIGTERM, a refused flag and --benchmark_list_tests left the file as it was")
print("FAIL" if failures else "PASS")
sys.exit(1 if failures else 0)
