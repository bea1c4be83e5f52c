#!/usr/bin/env python3
"""scripts/characterize.sh under signals (docs/methodology.md, reliability), with a stub
memhier-bench that sleeps where the real one would measure:
  - SIGINT, SIGTERM, SIGHUP during the plan: exit 128 + signal within seconds, the last line says it
    was interrupted, no archive and no temporary directory, the results tree unchanged, the child
    ended;
  - SIGKILL: the child ends too (setpriv's parent-death signal); the next run removes the stale
    temporary directory, but never one of a run still alive, nor one of another host, nor one
    without an owner file younger than 10 minutes.
usage: characterize_signals.py <source dir> <work dir>"""
import hashlib, os, shutil, signal, subprocess, sys, time

src, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
stub_dir = os.path.join(work, "bin")
os.makedirs(stub_dir)
STUB = """#!/usr/bin/env bash
case " $* " in *--benchmark_list_tests*) echo a; echo b; exit 0 ;; esac
[ "${STUB_MODE:-}" = fail ] && { echo "stub: failing on purpose" >&2; exit 1; }
echo $$ > "$STUB_PIDFILE"
exec sleep 60
"""
with open(os.path.join(stub_dir, "memhier-bench"), "w") as f:
    f.write(STUB)
os.chmod(os.path.join(stub_dir, "memhier-bench"), 0o755)
cfg = os.path.join(src, "sim", "configs", "plain_lru.json")
results = os.path.join(work, "results")
os.makedirs(os.path.join(results, "sm_00", "old", "archive"))
with open(os.path.join(results, "sm_00", "old", "archive", "bench.json"), "w") as f:
    f.write("{}\n")
with open(os.path.join(results, "index.json"), "w") as f:
    f.write('{"format": "memhier-archive-index/1", "archives": [], "skipped": []}\n')
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def tree_hash():
    h = hashlib.md5()
    for root, dirs, files in sorted(os.walk(results)):
        dirs.sort()
        for name in sorted(files):
            p = os.path.join(root, name)
            h.update(p.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def incomplete():
    return sorted(d for d in os.listdir(results) if d.startswith(".incomplete-"))


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[-1].split()[0] != "Z"
    except OSError:
        return False


def start(tag, mode=""):
    pidfile = os.path.join(work, tag + ".pid")
    env = dict(os.environ, STUB_PIDFILE=pidfile, STUB_MODE=mode)
    err = open(os.path.join(work, tag + ".err"), "w")
    p = subprocess.Popen([os.path.join(src, "scripts", "characterize.sh"), "--device", "sim:" + cfg,
                          "--plan", "quick", "--build-dir", stub_dir, "--results", results],
                         stdout=subprocess.DEVNULL, stderr=err, env=env)
    return p, pidfile


def wait_for(path, seconds=20):
    t0 = time.time()
    while time.time() - t0 < seconds:
        if os.path.exists(path) and open(path).read().strip():
            return int(open(path).read())
        time.sleep(0.05)
    return None


def last_line(tag):
    lines = [l for l in open(os.path.join(work, tag + ".err")).read().splitlines() if l.strip()]
    return lines[-1] if lines else ""


before = tree_hash()
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    tag = sig.name
    p, pidfile = start(tag)
    child = wait_for(pidfile)
    if child is None:
        fail("%s: the stub never started (%s)" % (tag, last_line(tag)))
        p.kill()
        continue
    t0 = time.time()
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("%s: characterize.sh did not end within 20 s" % tag)
        continue
    took = time.time() - t0
    if rc != 128 + sig.value:
        fail("%s: exit status %d, expected %d" % (tag, rc, 128 + sig.value))
    if "interrupted by " + tag not in last_line(tag):
        fail("%s: the last line is %r" % (tag, last_line(tag)))
    if incomplete():
        fail("%s: temporary directories left: %s" % (tag, incomplete()))
    if tree_hash() != before:
        fail("%s: the results tree changed" % tag)
    time.sleep(0.2)
    if alive(child):
        fail("%s: the child %d still runs" % (tag, child))
        os.kill(child, signal.SIGKILL)
    print("%s: exit %d in %.1f s, last line: %s" % (tag, rc, took, last_line(tag)))

# SIGKILL: no trap runs; the child must still end, and the next run cleans up.
have_setpriv = shutil.which("setpriv") is not None
p, pidfile = start("KILL")
child = wait_for(pidfile)
p.send_signal(signal.SIGKILL)
p.wait()
left = incomplete()
if len(left) != 1:
    fail("SIGKILL: expected one stale temporary directory, found %s" % left)
time.sleep(0.5)
if child and alive(child):
    if have_setpriv:
        fail("SIGKILL: the child %d outlived characterize.sh" % child)
    os.kill(child, signal.SIGKILL)
print("SIGKILL: stale directory %s, child ended: %s" % (left, not (child and alive(child))))

# A run still alive keeps its directory while another run starts and fails.
live, live_pidfile = start("LIVE")
wait_for(live_pidfile)
live_dirs = set(incomplete()) - set(left)
# another host's directory and a fresh one without an owner file are left alone; an old one
# without an owner file is removed
other = os.path.join(results, ".incomplete-otherhost")
os.makedirs(other)
with open(os.path.join(other, ".owner"), "w") as f:
    f.write("1 1 some-other-host\n")
fresh = os.path.join(results, ".incomplete-fresh")
os.makedirs(fresh)
old = os.path.join(results, ".incomplete-old")
os.makedirs(old)
t = time.time() - 3600
os.utime(old, (t, t))
q, _ = start("SECOND", mode="fail")
rc = q.wait(timeout=30)
if rc == 0:
    fail("a failing stub gave exit 0")
now = set(incomplete())
for d in left:
    if d in now:
        fail("the stale directory %s of the killed run was not removed" % d)
for d in live_dirs:
    if d not in now:
        fail("the directory %s of a run still alive was removed" % d)
if ".incomplete-otherhost" not in now:
    fail("another host's directory was removed")
if ".incomplete-fresh" not in now:
    fail("a fresh directory without an owner file was removed")
if ".incomplete-old" in now:
    fail("an hour-old directory without an owner file was kept")
err = open(os.path.join(work, "SECOND.err")).read()
if "removed" not in err:
    fail("the second run did not say what it removed: %r" % err)
live.send_signal(signal.SIGTERM)
live.wait(timeout=20)
for d in (other, fresh):
    shutil.rmtree(d, ignore_errors=True)
if incomplete():
    fail("left at the end: %s" % incomplete())
print("FAIL" if failures else "PASS")
sys.exit(1 if failures else 0)
