#!/usr/bin/env python3
"""scripts/results_retention.py on a small synthetic results tree (ctest cli_results_retention_synthetic).

usage: check_retention.py <scripts-dir> <work-dir>

The tree: seven full archives of one GPU and driver (the newest over 2 MB), a quick-plan archive, a
timestamp folder without bench.json, a parts folder with data and logs beside its summary, a parts
folder without README, a stray file and a stray top-level folder; older archives with level
families the five newest lack (peer rows, multicast copies: the newest of each stays; an older peer
archive, one whose peer rows failed, one without a peer device in its context, an oversized and a
quick-plan one with peer rows go) and a simulated device's archive. `check` must report each of
them and nothing it keeps; `apply` must leave a tree `check` passes, without touching a kept
archive, with the parts summarized and the index listing the kept archives only. A newer peer
archive among the five newest then retires the older peer archive.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

scripts, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tool = os.path.join(scripts, "results_retention.py")
index = os.path.join(scripts, "archive_index.py")
GPU, DRV = "nvidia-test-gpu", "999.1"
D = os.path.join("sm_90", GPU, DRV)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def row(name, **kw):
    return dict({"name": name + "/iterations:1/manual_time", "run_type": "iteration"}, **kw)


HOST = [row("host/op:latency/bytes:262144/warm:0"), row("async_copy/op:latency/method:plain/chunk:1024")]
PEER = [row("peer/dst:1/op:latency/bytes:1048576/state:cold"), row("peer/dst:1/op:copy/dir:uni/bytes:67108864")]
PEER_FAILED = [row(r["name"].split("/iterations")[0], error_occurred=True, error_message="peer: no peer") for r in PEER]
MULTICAST = [row("async_copy/op:multicast/source:l2/chunk:4096/cluster:2")]


def archive(root, ts, plan="full", extra_bytes=0, topology=True, rows=HOST, peers="", sm="sm_90", gpu=GPU,
            backend="cuda"):
    a = os.path.join(root, sm, gpu, DRV, ts)
    ctx = {"memhier_version": "0.1.0", "memhier_plan": plan, "gpu_slug": gpu, "sm_tag": sm,
           "driver_version": DRV, "gpu_name": "Test GPU", "device_backend": backend, "peer_devices": peers}
    write(os.path.join(a, "bench.json"), json.dumps({"context": ctx, "benchmarks": rows}))
    if topology:
        write(os.path.join(a, "topology.json"), "{}\n")
    write(os.path.join(a, "report.md"), "# report\n")
    if extra_bytes:
        write(os.path.join(a, "traces.pack.gz"), b"\0" * extra_bytes)
    return a


def run(*args, cwd):
    r = subprocess.run([sys.executable, tool] + list(args), cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def digest(d):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(d)):
        for n in sorted(filenames):
            p = os.path.join(dirpath, n)
            h.update(p.encode())
            h.update(open(p, "rb").read())
    return h.hexdigest()


shutil.rmtree(work, ignore_errors=True)
root = os.path.join(work, "res")
os.makedirs(root)
write(os.path.join(root, "README.md"), "rule\n")
write(os.path.join(root, "sim", "2026-01-01", "README.md"), "speed\n")
write(os.path.join(root, "sim", "2026-01-01", "sim_speed.json"), "{}\n")
full = ["20260101T0%d0000Z" % i for i in range(1, 7)]          # six small full archives, 01:00 .. 06:00
for ts in full:
    archive(root, ts)
big = "20260101T070000Z"                                        # the newest: over 2 MB
archive(root, big, extra_bytes=2100000)
quick = "20260101T055000Z"
archive(root, quick, plan="quick")
incomplete = "20260101T055500Z"
archive(root, incomplete, topology=False)
nobench = "20260101T053000Z"                                    # a report without bench.json
write(os.path.join(root, D, nobench, "report.md"), "# report\n")
# Older than the five newest (which hold host and async_copy rows, no peer or multicast rows): per level family
# the newest complete full archive within the limit that holds it stays; an archive holds peer when a
# peer row ran and its context names peer devices.
peer_kept = "20260101T003000Z"                                  # peer rows and a peer device: kept
archive(root, peer_kept, rows=HOST + PEER, peers="1")
peer_old = "20260101T001000Z"                                   # peer rows, older than peer_kept: goes
archive(root, peer_old, rows=PEER, peers="1")
peer_failed = "20260101T004000Z"                                # its peer rows failed: holds no peer
archive(root, peer_failed, rows=HOST + PEER_FAILED, peers="1")
peer_nodev = "20260101T004500Z"                                 # peer rows, no peer device in the context
archive(root, peer_nodev, rows=PEER)
peer_big = "20260101T005000Z"                                   # peer rows, over 2 MB: no archive to keep
archive(root, peer_big, rows=PEER, peers="1", extra_bytes=2100000)
peer_quick = "20260101T005200Z"                                 # peer rows of the quick plan
archive(root, peer_quick, plan="quick", rows=PEER, peers="1")
mc_kept = "20260101T002000Z"                                    # multicast copies: kept for them
archive(root, mc_kept, rows=MULTICAST)
host_old = "20260101T000500Z"                                   # rows of families the five newest hold
archive(root, host_old, rows=HOST)
# a simulated device's archive under results/: never kept, whatever it holds
sim_rel = os.path.join("sm_70", "sim-plain_lru", DRV, "20260101T040000Z")
archive(root, "20260101T040000Z", sm="sm_70", gpu="sim-plain_lru", backend="sim:plain_lru", rows=HOST + PEER, peers="1")
parts = os.path.join(root, D, "parts-20260101T005500Z")         # the call of the 01:00 archive
write(os.path.join(parts, "README.md"), "# call\n\nThe archive 20260101T010000Z beside this folder.\n")
write(os.path.join(parts, "gate", "summary.txt"), "table\n")
write(os.path.join(parts, "gate", "plot.svg"), "<svg/>\n")
write(os.path.join(parts, "gate", "bench.json.gz"), b"\x1f\x8b")
write(os.path.join(parts, "gate", "run1.log"), "log\n")
bare = os.path.join(root, D, "parts-20260101T030000Z")
write(os.path.join(bare, "mshr", "summary.txt"), "table\n")
write(os.path.join(root, D, "notes.txt"), "stray\n")
write(os.path.join(root, "scratch", "x.txt"), "stray\n")
subprocess.run([sys.executable, index, root], check=True, capture_output=True)

kept = full[-5:] + [peer_kept, mc_kept]    # 02:00 .. 06:00: the five newest that may stay; peer, multicast
gone = [full[0], big, quick, incomplete, nobench, peer_old, peer_failed, peer_nodev, peer_big, peer_quick, host_old]
before = {ts: digest(os.path.join(root, D, ts)) for ts in kept}

# check: every violation, nothing kept reported; paths relative to the current directory
rc, out, err = run("check", "res", cwd=work)
print(out, end="")
if rc != 1:
    fail("check exit %d, expected 1 (%s)" % (rc, err.strip()))
lines = out.splitlines()


def reported(rel, *words):
    hit = [l for l in lines if l.startswith(os.path.join("res", rel) + ":")]
    if not hit:
        fail("%s not reported" % rel)
    for w in words:
        if not any(w in l for l in hit):
            fail("%s reported without %r: %s" % (rel, w, hit))


reported(os.path.join(D, big), "over the 2000000-byte archive limit")
reported(os.path.join(D, full[0]), "older than the 5 newest")
reported(os.path.join(D, quick), "'quick'")
reported(os.path.join(D, incomplete), "topology.json")
reported(os.path.join(D, nobench), "no bench.json")
reported(os.path.join(D, peer_old), "older than the 5 newest", "a newer archive holds its peer rows")
for ts in (peer_failed, peer_nodev, host_old):
    reported(os.path.join(D, ts), "older than the 5 newest")
    if any("holds its" in l for l in lines if l.startswith(os.path.join("res", D, ts))):
        fail("%s is said to hold a level family: %s" % (ts, lines))
reported(os.path.join(D, peer_big), "over the 2000000-byte archive limit")
reported(os.path.join(D, peer_quick), "'quick'")
reported(sim_rel, "simulated device", "sim:plain_lru")
reported(os.path.join(D, "parts-20260101T005500Z", "gate", "bench.json.gz"), "not a summary")
reported(os.path.join(D, "parts-20260101T005500Z", "gate", "run1.log"), "not a summary")
reported(os.path.join(D, "parts-20260101T030000Z"), "no README.md")
reported(os.path.join(D, "notes.txt"), "neither an archive")
reported("scratch", "not part of the layout")
for ts in kept:
    if any(l.startswith(os.path.join("res", D, ts)) for l in lines):
        fail("a kept archive was reported: " + ts)
for ok in ("summary.txt", "plot.svg", "README.md", os.path.join("res", "sim") + "/"):
    if any(ok in l.split(":")[0] for l in lines):
        fail("a summary file was reported: " + ok)

# a summary over 256 KiB and a stale index are reported too
write(os.path.join(parts, "gate", "huge.txt"), "x" * 300000)
rc, out, _ = run("check", "res", cwd=work)
if rc != 1 or "over 256.0 KiB" not in out:
    fail("an oversized summary was not reported:\n" + out)
os.remove(os.path.join(parts, "gate", "huge.txt"))
write(os.path.join(root, "index.json"), "{}\n")
rc, out, _ = run("check", "res", cwd=work)
if "index.json: out of date" not in out:
    fail("a stale index.json was not reported")

# apply: summaries written, the rest removed, the index rewritten, then check passes
rc, out, err = run("apply", "res", cwd=work)
print(out, end="")
if rc != 0:
    fail("apply exit %d:\n%s%s" % (rc, out, err))
for ts in gone:
    if os.path.exists(os.path.join(root, D, ts)):
        fail("apply left " + ts)
for ts in kept:
    if digest(os.path.join(root, D, ts)) != before[ts]:
        fail("apply changed the kept archive " + ts)
for p in ("notes.txt", "parts-20260101T005500Z/gate/bench.json.gz", "parts-20260101T005500Z/gate/run1.log"):
    if os.path.exists(os.path.join(root, D, p)):
        fail("apply left " + p)
if os.path.exists(os.path.join(root, "scratch")):
    fail("apply left scratch/")
for p in ("parts-20260101T005500Z/gate/summary.txt", "parts-20260101T005500Z/gate/plot.svg",
          "parts-20260101T030000Z/mshr/summary.txt", "parts-20260101T030000Z/README.md"):
    if not os.path.exists(os.path.join(root, D, p)):
        fail("apply removed or did not write " + p)
readme = open(os.path.join(parts, "README.md")).read()
for w in ("## Retention", "`gate/bench.json.gz`", "`gate/run1.log`", "`%s`" % full[0]):
    if w not in readme:
        fail("the parts README does not name %s:\n%s" % (w, readme))
if os.path.exists(os.path.join(root, "sm_70")):
    fail("apply left the simulated device's archive (or its emptied folders)")
idx = json.load(open(os.path.join(root, "index.json")))
listed = sorted(os.path.basename(a["path"]) for a in idx["archives"])
if listed != sorted(kept):
    fail("index.json lists %s, expected %s" % (listed, sorted(kept)))
rc, out, _ = run("check", "res", cwd=work)
if rc != 0:
    fail("check after apply: exit %d\n%s" % (rc, out))
for ts, label in ((peer_kept, "peer"), (mc_kept, "multicast")):
    if not any(l.startswith(os.path.join("res", D, ts) + ":") and "for its %s rows" % label in l for l in out.splitlines()):
        fail("check does not say why %s stays (%s rows):\n%s" % (ts, label, out))

# once one of the five newest holds peer rows, the older peer archive goes (multicast's stays)
archive(root, "20260101T080000Z", rows=HOST + PEER, peers="1")
subprocess.run([sys.executable, index, root], check=True, capture_output=True)
rc, out, _ = run("check", "res", cwd=work)
if rc != 1 or not any(l.startswith(os.path.join("res", D, peer_kept) + ":") and "older than the 5 newest" in l
                      for l in out.splitlines()):
    fail("a peer archive older than the five newest stayed beside a newer one with peer rows:\n" + out)
if any(l.startswith(os.path.join("res", D, mc_kept) + ":") and "older" in l for l in out.splitlines()):
    fail("the multicast archive was dropped:\n" + out)
shutil.rmtree(os.path.join(root, D, "20260101T080000Z"))
subprocess.run([sys.executable, index, root], check=True, capture_output=True)
rc, out, _ = run("apply", "res", cwd=work)
if rc != 0 or open(os.path.join(parts, "README.md")).read() != readme:
    fail("a second apply changed something")

# bad input: one line on stderr, exit 2
for args in (["check", "no-such-dir"], ["frob"], ["check", "res", "--keep", "0"]):
    rc, out, err = run(*args, cwd=work)
    if rc != 2 or len(err.strip().splitlines()) != 1:
        fail("%s: exit %d, stderr %r (expected 2 and one line)" % (args, rc, err))
rc, out, _ = run("--help", cwd=work)
if rc != 0 or "usage:" not in out:
    fail("--help")
print("PASS")
