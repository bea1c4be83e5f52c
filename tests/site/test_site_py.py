#!/usr/bin/env python3
"""scripts/site.py without a browser (ctest cli_site_py): what the pages print from memhier-compare's
JSON and from topology.json. Verdicts are coloured only where the gate judged, and a verdict
the site does not know (NOT-COMPARABLE, ANALYZER-CHANGED, ...) is never coloured; values carry the
unit of their magnitude; memhier-topology/1 (strings, ways by set) and /2 (numbers, booleans, ways
as a count) read alike; the report splits into sections; a bandwidth plot of many series draws the
best few. usage: test_site_py.py (exit 0 pass, 1 fail)"""
import copy
import importlib.util
import os
import unittest

# loaded by path: "site" is also the name of Python's own module
_spec = importlib.util.spec_from_file_location(
    "memhier_site", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "site.py"))
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)


def compare_json(result, verdicts, ignore_device=False):
    """A memhier-compare/2 document: one figure per verdict, with the gate's result."""
    figs = [{"id": "caches.l%d.size_bytes" % i, "label": "l%d size" % i, "kind": "structure", "base": 1 << 20,
             "new": 1 << 21, "change": 1.0, "verdict": v, "note": ""} for i, v in enumerate(verdicts)]
    return {"format": "memhier-compare/2", "figures": figs, "ignore_device": ignore_device,
            "gate": {"result": result, "worse": [], "structural_changes": []}}


TOPO_V1 = {"schema": "memhier-topology/1",
           "device": {"sm_count": "132", "sm_clock_throttled": "false", "characterize_wall_seconds": "28.6"},
           "inputs": ["/tmp/x/.incomplete-1/bench.json"],
           "caches": {"l1": {"size_bytes": 262144, "hit_latency_cycles": 33.0, "ways": [4] * 512, "sets": 512},
                      "l2": {"size_bytes": 27725312, "hit_latency_cycles": 276.0}},
           "l2_sets": {"ways": 16, "sets": 25600},
           "global_memory": {"dram_latency_cycles": 694.0, "peak_read_bytes_per_second": 3.21e12},
           "l2_bandwidth": {"peak_bytes_per_second": 1.29e13}}


def as_v2(t):
    t = copy.deepcopy(t)
    t["schema"] = "memhier-topology/2"
    t["device"] = {"sm_count": 132, "sm_clock_throttled": False, "characterize_wall_seconds": 28.6}
    t["inputs"] = ["bench.json"]
    t["caches"]["l1"]["ways"] = 4
    return t


class Verdicts(unittest.TestCase):
    def test_judged_pair_colours_known_verdicts_only(self):
        c = S.present_compare(compare_json("pass", ["SAME", "WORSE", "BETTER", "CHANGED", "NOT-COMPARABLE",
                                                    "ANALYZER-CHANGED", "INFO", "SOMETHING-NEW"]))
        self.assertTrue(c["verdicts"])
        self.assertEqual([f["tone"] for f in c["figures"]], ["good", "bad", "better", "bad", "", "", "", ""])
        self.assertEqual(c["gate_tone"], "good")

    def test_side_by_side_colours_nothing(self):
        c = S.present_compare(compare_json("none", ["SAME", "WORSE", "CHANGED"], ignore_device=True))
        self.assertFalse(c["verdicts"])
        self.assertTrue(c["side_by_side"])
        self.assertEqual({f["tone"] for f in c["figures"]}, {""})
        self.assertEqual(c["gate_tone"], "")
        self.assertEqual(c["figures"][0]["change_text"], "×2.00")

    def test_no_verdict_results(self):
        for r in ("refused", "refused_conditions", "no_verdict", "none"):
            c = S.present_compare(compare_json(r, ["SAME"]))
            self.assertFalse(c["verdicts"], r)
            self.assertEqual(c["figures"][0]["tone"], "", r)
        self.assertFalse(S.judged({"error": "memhier-compare did not run"}))

    def test_gate_results_the_site_does_not_know_are_neutral(self):
        c = compare_json("not_comparable", ["NOT-COMPARABLE"])
        self.assertEqual(S.verdict_text(c), "NOT COMPARABLE")
        self.assertIn('class="verdict"', S.gate_html(S.present_compare(c), "x.html"))
        self.assertIn("tone-bad", S.gate_html(compare_json("fail", ["WORSE"]), "x.html"))


class Units(unittest.TestCase):
    def test_rates_by_magnitude(self):
        self.assertEqual(S.value_text("host_memory.copy.h2d.bytes_per_second", "bandwidth", 5.51e10), "55.1 GB/s")
        self.assertEqual(S.value_text("global_memory.peak_read_bytes_per_second", "bandwidth", 3.352e12), "3.35 TB/s")
        self.assertEqual(S.fmt_rate(2.5e8), "250 MB/s")
        self.assertEqual(S.fmt_rate(None), "—")

    def test_sizes_by_magnitude(self):
        self.assertEqual(S.value_text("caches.l2.size_bytes", "structure", 27725312), "26.4 MiB")
        self.assertEqual(S.value_text("caches.l1.size_bytes", "structure", 262144), "256 KiB")
        self.assertEqual(S.value_text("address_translation.l2_tlb.reach_bytes", "structure", 68216160256), "63.5 GiB")
        self.assertEqual(S.value_text("caches.l1.line_bytes", "structure", 128), "128 B")

    def test_other_values(self):
        self.assertEqual(S.value_text("caches.l1.hit_latency_cycles", "latency", 33.25), "33.2 cyc")
        self.assertEqual(S.value_text("caches.l1.ways", "structure", [4] * 512), "4")
        self.assertEqual(S.value_text("caches.l1.ways", "structure", [4, 8]), "4–8 (by set)")
        self.assertEqual(S.value_text("caches.l1.replacement", "structure", "slru"), "slru")
        self.assertEqual(S.value_text("l2_sets.sets", "structure", 25600), "25600")
        self.assertEqual(S.value_text("x.flag", "structure", False), "no")
        self.assertEqual(S.value_text("x", "structure", None), "—")

    def test_changes(self):
        f = {"kind": "latency", "base": 33.0, "new": 43.0, "change": 0.303}
        self.assertEqual(S.change_text(f, False), "+10.0 cyc")
        self.assertEqual(S.change_text(dict(f, kind="bandwidth"), False), "+30.3 %")
        self.assertEqual(S.change_text({"kind": "bandwidth", "base": 3.04e12, "new": 3.0399e12, "change": -3e-5}, False), "0.0 %")
        self.assertEqual(S.change_text({"kind": "structure", "base": "lru", "new": "slru"}, False), "differs")
        self.assertEqual(S.change_text({"kind": "structure", "base": "lru", "new": "lru"}, True), "=")


class TopologyShapes(unittest.TestCase):
    def test_numbers_and_numeric_strings(self):
        self.assertEqual(S.num("132"), 132)
        self.assertEqual(S.num(132), 132)
        self.assertEqual(S.num("28.6"), 28.6)
        self.assertEqual(S.num(28.6), 28.6)
        self.assertIsNone(S.num(True))
        self.assertIsNone(S.num("fast"))
        self.assertIs(S.flag("false"), False)
        self.assertIs(S.flag(False), False)
        self.assertIs(S.flag("TRUE"), True)
        self.assertIsNone(S.flag("0"))

    def test_ways_as_count_or_list(self):
        self.assertEqual(S.fmt_ways(4), "4")
        self.assertEqual(S.fmt_ways("4"), "4")
        self.assertEqual(S.fmt_ways([4] * 512), "4")
        self.assertEqual(S.fmt_ways([4, 4, 8]), "4–8 (by set)")
        self.assertEqual(S.fmt_ways(None), "—")

    def test_v1_and_v2_read_alike(self):
        v1, v2 = TOPO_V1, as_v2(TOPO_V1)
        self.assertEqual(S.headline(v1), S.headline(v2))
        self.assertEqual(S.geometry(v1), S.geometry(v2))
        self.assertEqual(S.wall_text(v1), S.wall_text(v2))
        g = dict(S.geometry(v2))
        self.assertEqual(g["L1 geometry"], "4 ways × 512 sets")
        self.assertEqual(g["L2 geometry"], "16 ways × 25 600 sets")

        self.assertEqual(g["SMs"], "132")
        self.assertEqual(g["clock throttled"], "no")
        self.assertEqual(S.wall_text(v2), "28.6 s")
        self.assertEqual(dict(S.headline(v2))["DRAM read"], "3.21 TB/s")

    def test_v2_unequal_sets_read_from_ways_per_set(self):
        v1 = copy.deepcopy(TOPO_V1)
        v1["caches"]["l1"]["ways"] = [4, 4, 8]
        v1["caches"]["l1"]["sets"] = 3
        v2 = as_v2(v1)
        v2["caches"]["l1"]["ways"], v2["caches"]["l1"]["ways_per_set"] = None, [4, 4, 8]
        self.assertEqual(S.geometry(v1), S.geometry(v2))
        self.assertEqual(dict(S.geometry(v2))["L1 geometry"], "4–8 (by set) ways × 3 sets")


class Pages(unittest.TestCase):
    def test_report_sections(self):
        intro, secs = S.report_sections("# Title\n\nIntro `x`.\n\n## Summary\n\n| a |\n|---|\n| 1 |\n\n## Caches\n\n"
                                        "### l1\n\n```\n## not a heading\n```\n")
        self.assertNotIn("Title", intro)
        self.assertIn("Intro", intro)
        self.assertEqual([t for t, _ in secs], ["Summary", "Caches"])
        self.assertIn("## not a heading", secs[1][1])

    def test_markup_escaped_once(self):
        html = S.markdown("a <b> & `<code>` [l](https://x.org/?a=1&b=2)")
        self.assertIn("a &lt;b&gt; &amp; <code>&lt;code&gt;</code>", html)
        self.assertNotIn("&amp;lt;", html)
        self.assertIn('href="https://x.org/?a=1&amp;b=2"', html)

    def test_best_series_of_a_crowded_plot(self):
        series = [{"label": "s%d" % i, "x": [1, 2], "y": [i, i % 7]} for i in range(20)]
        p = S.spec("p", "bandwidth", "t", "x", "y", series, best=True)
        self.assertEqual(p["shown"], list(range(20 - S.BEST_SHOWN, 20)))
        self.assertIsNone(S.spec("q", "bandwidth", "t", "x", "y", series[:S.MAX_SHOWN], best=True)["shown"])

    def test_natural_order(self):
        labels = ["stride 16 MiB", "stride 2 MiB", "stride 128 KiB", "stride 1 GiB"]
        self.assertEqual(sorted(labels, key=S.natural), ["stride 1 GiB", "stride 2 MiB", "stride 16 MiB", "stride 128 KiB"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
