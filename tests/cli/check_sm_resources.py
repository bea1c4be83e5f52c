#!/usr/bin/env python3
"""Checks memhier-infer's topology and report on the synthetic archive of gen_sm_resources.py, and
the device summary (dev/device/mshr_summary.py) on it: every value the generator built in.

usage: check_sm_resources.py ARCHIVE_DIR SUMMARY_SCRIPT"""
import json, os, subprocess, sys

from check_util import finish, want

d, summary = sys.argv[1], sys.argv[2]
t = json.load(open(os.path.join(d, "topology.json")))

o = t["outstanding_requests"]
want(o["design"] == "mshr", "design %r" % o["design"])
want(abs(o["entries_per_sm"] - 256) <= 13, "entries %r" % o["entries_per_sm"])
want(o["merge_capacity"] == 8, "merge capacity %r" % o["merge_capacity"])
want(o["warp_load_limit"] == 64 and not o["warp_load_limit_reached"], "warp load limit")
c = t["caches"]
want(c["l1"]["shared_with"] == ["readonly", "texture"], "l1 shared_with %r" % c["l1"]["shared_with"])
want(c["texture"]["shared_with"] == ["l1", "readonly"], "texture shared_with %r" % c["texture"]["shared_with"])
want(c["constant_l1"]["shared_with"] == [], "constant_l1 shared_with %r" % c["constant_l1"]["shared_with"])
want(c["constant_l15"]["shared_with"] == [], "constant_l15 shared_with %r" % c["constant_l15"]["shared_with"])
want(c["l1"]["slices_per_sm"] == 1 and c["constant_l1"]["slices_per_sm"] == 4, "slices per SM")
want(c["l1_tlb"]["shared_with"] is None and c["l1_tlb"]["provenance"]["shared_with"]["reason"], "TLB shared_with null with a reason")
m = t["l2_partitions"]["map"]
want(m["partitions"] == 2 and [len(g) for g in m["sms_per_partition"]] == [4, 4], "partitions %r" % m.get("sms_per_partition"))
want(m["interleave_bytes"] == 512 and m["linear_in_offset_bits"], "interleave %r" % m["interleave_bytes"])
want(abs(m["near_latency_cycles"] - 281) < 5 and abs(m["far_latency_cycles"] - 452) < 5, "near/far latency")
want(t["l2_partitions"]["replication_limit_bytes"] == 20 << 20, "replication limit")
one = t["l2_bandwidth"]["one_reader_per_line"]
want(one["peak_bytes_per_second"] == 7.8e12 and "layout:oneshot" in one["benchmark"], "one reader per line %r" % one)
want("layout:peer" in t["l2_bandwidth"]["shared_lines"]["benchmark"], "peer pattern filed as shared lines")
rep = open(os.path.join(d, "report.md")).read()
for h in ("## Outstanding memory requests", "## Cache sharing and slices per SM", "## L2 partitions", "Slices per SM"):
    want(h in rep, "report lacks %r" % h)
out = subprocess.run([sys.executable, summary, os.path.join(d, "topology.json"), os.path.join(d, "bench.json"),
                      os.path.join(d, "peer.txt")], capture_output=True, text=True).stdout
want("design=mshr" in out, "summary: design")
want("VERDICT distinct-line 7.800 vs peer plateau 8.350 TB/s: NOT MET" in out, "summary: verdict line\n" + out)
want("VERDICT memhier's layout:peer 8.400 vs the peer 8.350 TB/s (+0.6 %): reproduces it" in out, "summary: peer reproduced")
want("VERDICT the peer's pattern without concurrent readers of a line: 7.600 TB/s (-9.5 % against layout:peer)" in out,
     "summary: rotated peer")
finish("sm resources")
