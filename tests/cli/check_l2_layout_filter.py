#!/usr/bin/env python3
"""dev/device/l2_layout_filter.py on a name list as memhier-bench lists it on a 50 MiB-L2 GPU
(names as bench/families/l2_throughput.cu and l2_distinct.cu build them, with Google Benchmark's
/iterations:3/manual_time suffix that made the first device run's hand-written filter match nothing):
the regex must match every distinct-line and peer layout and the plain tile at their working sets,
and nothing else.

usage: check_l2_layout_filter.py FILTER_SCRIPT WORK_DIR"""
import os
import re
import subprocess
import sys

script, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
l2 = 52428800
suffix = "/iterations:3/manual_time"
tile = lambda b, c, k, i, extra="": "l2_throughput/bytes:%d/cta_size:%d/ctas:%d/ilp:%d%s%s" % (b, c, k, i, extra, suffix)
fr = [1 / 64, 1 / 32, 0.125, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0, 2.0]
names, want = [], set()
for x in fr:
    b = max(1 << 20, int(x * l2) // 65536 * 65536)
    distinct = 0.2 <= x <= 0.5
    for c, k, i in ((512, 4, 4), (512, 2, 8), (1024, 1, 8)):
        names.append(tile(b, c, k, i))
        if distinct:
            want.add(names[-1])
        for extra in ("/overlap:2", "/share:8", "/op:na", "/layout:all"):
            names.append(tile(b, c, k, i, extra))  # shared lines or another path: never chosen
        if distinct:
            names.append(tile(b, c, k, i, "/stagger:1"))
            want.add(names[-1])
    if distinct:
        for c, k, i in ((256, 4, 4), (512, 2, 4)):
            names.append(tile(b, c, k, i, "/layout:oneshot"))
            want.add(names[-1])
        names.append(tile(b, 32, 2, 4, "/layout:bulk/chunk:16384"))
        want.add(names[-1])
        for v in ("", "/variant:l2only", "/variant:rotated"):
            names.append(tile(b // 524288 * 524288, 1024, 2, 2, "/layout:peer" + v))
            want.add(names[-1])
names.append("l2_partitions/readers:1/bytes:13107200/cta_size:256/ctas:4/ilp:4" + suffix)
lst = os.path.join(work, "names.txt")
open(lst, "w").write("\n".join(["memhier-bench: plan full"] + names) + "\n")
r = subprocess.run([sys.executable, script, lst], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit("filter failed: " + r.stderr)
rx = re.compile(r.stdout.strip())
got = {n for n in names if rx.search(n)}
missing, extra = sorted(want - got), sorted(got - want)
print(r.stderr.strip())
if missing or extra:
    print("FAIL: missing %s extra %s" % (missing[:3], extra[:3]))
    sys.exit(1)
print("l2 layout filter: %d names chosen of %d, exactly the layouts" % (len(got), len(names)))
