#!/usr/bin/env python3
"""Checks memhier-infer on golden/infer/h100_mshr (the H100's first part_mshr.sh run, 1024 threads at
most, no DRAM series, no primer pass) against what those traces show (docs/methodology.md, section
requests_sharing_partitions, "Observed on the H100"):
- outstanding requests: no series saturates (latency ramps from the first warp); the slopes follow
  about one cycle per distinct 128-byte line (a per-line model fits within 15 %, sectors and warp
  instructions alone do not): design mshr on the ramp basis, merge capacity >= 32, entries null;
- the partition map: 132 SMs in two groups of 66, every line's home an XOR of offset bits 12, 13,
  16, 17 and 19 in both pages (4 KiB interleave), cold near ~573 / far ~757 cycles, after the write
  every line near (~282), the pressure evicted both partitions' copies, no far-hit latency (no pass
  of that run kept a far line alone);
- sharing: that run's fill walk had been removed by ptxas (every re-read cold, controls did not
  evict), so no sharing verdict may come out of it.

usage: check_h100_mshr.py topology.json"""
import json
import sys

from check_util import finish, want

t = json.load(open(sys.argv[1]))

o = t["outstanding_requests"]
want(o["design"] == "mshr" and o.get("design_basis") == "ramp", "design %r basis %r" % (o["design"], o.get("design_basis")))
want(o.get("request_unit") == "line", "request unit %r" % o.get("request_unit"))
models = {m["unit"]: m for m in o["ramp"]["models"]}
want(0.8 <= models["line"]["per_unit_cycles"] <= 1.3, "cycles per line %r" % models["line"]["per_unit_cycles"])
want(models["line"]["rms_relative"] <= 0.15, "line model rms %r" % models["line"]["rms_relative"])
want(models["instruction"]["rms_relative"] >= 2 * models["line"]["rms_relative"], "instruction model not better")
want(models["sector"]["rms_relative"] >= 2 * models["line"]["rms_relative"], "sector model not better")
sat = [s["benchmark"] for s in o["series"] if s["saturation_threads"] is not None]
want(not sat, "no series saturates (got %r)" % sat[:5])
want(o["merge_capacity"] == 32 and o["merge_capacity_is_lower_bound"], "merge capacity %r" % o["merge_capacity"])
want(o["entries_per_sm"] is None, "entries %r" % o["entries_per_sm"])
why = o["provenance"]["max_outstanding_requests_per_sm"]["reason"] if o["max_outstanding_requests_per_sm"] is None else ""
want(o["max_outstanding_requests_per_sm"] is None and "DRAM" in why, "max outstanding null for want of a DRAM series: %r" % why)

m = t["l2_partitions"]["map"]
want(m["partitions"] == 2 and sorted(len(g) for g in m["sms_per_partition"]) == [66, 66],
     "partitions %r" % [len(g) for g in m.get("sms_per_partition", [])])
want(m["sms_unassigned"] == [], "unassigned %r" % m.get("sms_unassigned"))
want(m["linear_in_offset_bits"] and m["page_offset_masks"] == [0xB3000, 0xB3000], "masks %r" % m.get("page_offset_masks"))
want(m["interleave_bytes"] == 4096, "interleave %r" % m.get("interleave_bytes"))
want(555 <= m["cold_near_latency_cycles"] <= 600 and 735 <= m["cold_far_latency_cycles"] <= 780,
     "cold near/far %r/%r" % (m["cold_near_latency_cycles"], m["cold_far_latency_cycles"]))
want(265 <= m["near_latency_cycles"] <= 300, "near %r" % m["near_latency_cycles"])
want(m["far_latency_cycles"] is None and m["after_pressure"] == "evicted", "far %r after pressure %r" % (m["far_latency_cycles"], m["after_pressure"]))

c = t["caches"]
for n in ("l1", "texture", "readonly", "constant_l1"):
    want(c[n]["shared_with"] is None, "%s shared_with %r from a cold re-read" % (n, c[n]["shared_with"]))

finish("h100 mshr")
