#!/usr/bin/env python3
"""dev/device/sanitize_plan.py, the helper of the device part part_sanitize.sh, without a GPU:
the small plan covers every family of a benchmark list (also families it has never seen) and its
filter selects exactly the chosen benchmarks; compute-sanitizer findings are tied to the family
whose benchmark was running.
usage: sanitize_plan_test.py <source dir> <work dir>"""
import os, re, shutil, subprocess, sys

src, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
helper = os.path.join(src, "dev", "device", "sanitize_plan.py")
names = ["pchase/path:global_ca/mode:count/bytes:%d/stride:32/iterations:1/manual_time" % (4096 * i) for i in range(1, 40)]
names += ["pchase/path:texture/mode:fine/bytes:8192/stride:4/iterations:1/manual_time",
          "gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:4/iterations:3/manual_time",
          "gmem_throughput/kind:copy/width:16/ilp:4/cta_size:256/ctas:4/iterations:3/manual_time",
          "a_family_from_another_branch/x:1/iterations:1/manual_time",
          "cache_sequences/cache:l1/iterations:1/manual_time"]
lst = os.path.join(work, "list.txt")
open(lst, "w").write("\n".join(names) + "\n")
run = lambda *a: subprocess.run(["python3", helper] + list(a), stdout=subprocess.PIPE, check=True).stdout.decode()
rx = run("select", lst, "4").strip()
chosen = [n for n in names if re.search(rx, n)]
fams = run("families", rx, lst).split()
failures = []
if sorted(fams) != sorted({n.split("/")[0] for n in names}):
    failures.append("families %s" % fams)
if not any("path:texture" in n for n in chosen):
    failures.append("the second path of pchase was not chosen")
if len([n for n in chosen if n.startswith("pchase/")]) > 4:
    failures.append("more than 4 pchase benchmarks")
if "bytes:40960/" in rx and "bytes:4096/" not in rx:
    failures.append("bytes:4096 matched by a longer name only")
# a family of at most 4 benchmarks goes by its name: names that depend on the free memory at
# start (latency_spectrum's bytes) still match under a sanitizer
rx_small = run("select", lst, "4", "cache_sequences").strip()
if not re.search(rx_small, "cache_sequences/cache:l2/capacity:99/iterations:1/manual_time"):
    failures.append("a small family is not taken by its name: %s" % rx_small)
# one family's plan (part_racecheck.sh runs one sanitizer process per family): the same choice
rx_g = run("select", lst, "4", "gmem_throughput").strip()
if [n for n in names if re.search(rx_g, n)] != [n for n in chosen if n.startswith("gmem_throughput/")]:
    failures.append("the gmem_throughput plan alone differs: %s" % rx_g)
log = os.path.join(work, "memcheck.log")
open(log, "w").write("""========= COMPUTE-SANITIZER
memhier-bench: running pchase/path:global_ca/mode:count/bytes:4096/stride:32
memhier-bench: running gmem_throughput/kind:read/width:16/ilp:4/cta_size:256/ctas:4
========= Invalid __global__ read of size 4 bytes
=========     at gmem_read+0x70
=========     by thread (0,0,0) in block (0,0,0)
========= Program hit cudaErrorLaunchFailure (error 719) on CUDA API call to cudaDeviceSynchronize.
memhier-bench: running a_family_from_another_branch/x:1
========= Error: Race reported between Write access at x+0x10 and Read access at x+0x20
========= ERROR SUMMARY: 3 errors
""")
out = run("attribute", log)
table = {l.split()[0]: l.split()[1:] for l in out.splitlines() if not l.startswith("summary")}
if table.get("gmem_throughput") != ["1", "1", "0", "1"] or table.get("a_family_from_another_branch") != ["1", "0", "1", "0"] \
        or table.get("pchase") != ["1", "0", "0", "0"] or "summary: ERROR SUMMARY: 3 errors" not in out:
    failures.append("attribution:\n" + out)
print("\n".join("FAIL: " + f for f in failures) or "PASS (%d of %d chosen, families %s)" % (len(chosen), len(names), " ".join(fams)))
sys.exit(1 if failures else 0)
