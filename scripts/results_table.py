#!/usr/bin/env python3
"""What memhier found on one GPU, as Markdown: a table per GPU and driver from archives' topology.json.

usage: python3 scripts/results_table.py <archive>...                 print the tables
       python3 scripts/results_table.py --check  DOC [--results DIR]  exit 1 when DOC's tables differ
       python3 scripts/results_table.py --update DOC [--results DIR]  rewrite DOC's tables

Archives of one GPU and driver make one table: per cache or level and quantity the value of the
newest archive, the confidence the analyzer states for it (— where it states none: a measured
figure), and the range over all the archives given (`same` when every run agrees); then every value
that is null in the newest archive, with the reason the analyzer gives (provenance.<key>.reason,
or the `<key>_reason` / `page_note` beside it). Nothing is computed beyond unit conversion.

In DOC, a generated block sits between `<!-- results_table: <sm>/<gpu-slug>/<driver> -->` and
`<!-- end results_table -->`; --check and --update regenerate it from every archive
(<UTC timestamp>/) under DIR/<sm>/<gpu-slug>/<driver>/ (DIR default: results, against the current
directory). Bad input: one line on stderr, exit 2.
"""
import signal
import argparse
import json
import os
import re
import sys

PROG = "results_table.py"
TS = re.compile(r"^\d{8}T\d{6}Z$")
BEGIN = re.compile(r"^<!-- results_table: (\S+) -->$")
END = "<!-- end results_table -->"


class BadInput(Exception):
    pass


def B(n):
    """bytes, exact where a power-of-two unit divides them, else to 3 significant figures."""
    n = float(n)
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= f:
            v = n / f
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.3g %s" % (v, unit) if v < 100 else "%.1f %s" % (v, unit))
    return "%d B" % n


def CY(v):
    return "%.1f cycles" % v if v != int(v) else "%d cycles" % v


def TBS(v):
    return "%.2f TB/s" % (v / 1e12)


def PCT(v):
    return "%.1f %%" % v


def FRAC(v):
    """a fraction (0.966) as a percentage"""
    return "%.1f %%" % (100 * v)


def NUM(v):
    return ("%d" % v) if float(v) == int(v) else ("%.3g" % v)


def SEC(v):
    return "%.1f s" % v


def BPC(v):
    return "%.1f B/clk/SM" % v


def TXT(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        if v and all(x == v[0] for x in v) and not isinstance(v[0], str):
            return NUM(v[0]) if len(v) == 1 else "%s (each of %d)" % (NUM(v[0]), len(v))
        return ", ".join(str(x) for x in v) if v else "none"
    return str(v)


CACHES = (("l1", "L1 (`ld.global.ca`)"), ("texture", "texture"), ("readonly", "read-only (`ld.global.nc`)"),
          ("constant_l1", "constant L1"), ("constant_l15", "constant L1.5"), ("l2", "L2 as one SM sees it (`ld.global.cg`)"))
CACHE_ROWS = (("size_bytes", "capacity", B), ("size_bytes_lower_bound", "capacity at least", B),
              ("half_point_bytes", "50 % point of the miss rate", B), ("onset_size_bytes", "misses begin", B),
              ("line_bytes", "line", B), ("sector_bytes", "sector (fill unit)", B), ("sets", "sets", NUM),
              ("ways_one_set", "ways (a minimal eviction set)", NUM), ("index_bits", "index", TXT),
              ("replacement", "replacement", TXT), ("hit_latency_cycles", "hit latency", CY),
              ("miss_penalty_cycles", "miss penalty", CY), ("slices_per_sm", "slices per SM", NUM),
              ("shared_with", "one array with", TXT))
TLBS = (("l1_tlb", "L1 TLB"), ("l2_tlb", "L2 TLB"), ("l3_tlb", "L3 TLB"))
TLB_ROWS = (("entries", "entries", NUM), ("reach_per_entry_bytes", "reach of one entry", B),
            ("size_bytes", "total reach", B), ("sets", "sets", NUM), ("ways", "ways", TXT),
            ("replacement", "replacement", TXT), ("miss_penalty_cycles", "miss penalty", CY),
            ("miss_penalty_lower_bound_cycles", "miss penalty at least", CY))
# (section label, path of the section, rows (key, quantity, format)); a key may be a dotted path
OTHER = (
    ("DRAM", "global_memory", (("dram_latency_cycles", "latency", CY), ("peak_read_bytes_per_second", "read", TBS),
                               ("peak_write_bytes_per_second", "write", TBS), ("peak_copy_bytes_per_second", "copy (read + write)", TBS),
                               ("theoretical_bytes_per_second", "theoretical peak", TBS))),
    ("L1 bandwidth", "l1_bandwidth", (("peak_bytes_per_second", "read, all SMs", TBS),
                                      ("peak_bytes_per_clock_per_sm", "per SM", BPC), ("pct_of_peak", "of the theoretical peak", PCT))),
    ("L2 bandwidth", "l2_bandwidth", (("peak_bytes_per_second", "read, peak of the curve", TBS),
                                      ("one_reader_per_line.peak_bytes_per_second", "read, one reader per line", TBS),
                                      ("shared_lines.peak_bytes_per_second", "read, lines shared by several SMs", TBS),
                                      ("pct_of_peak", "of a theoretical peak", PCT))),
    ("shared memory", "shared_memory", (("latency_cycles", "latency", CY), ("banks", "banks", NUM),
                                        ("bank_width_bytes", "bank width", B), ("peak_bytes_per_clock_per_sm", "bandwidth per SM", BPC),
                                        ("throughput.pct_of_peak", "of the theoretical peak", PCT))),
    ("L2 partitions", "l2_partitions", (("map.partitions", "partitions", NUM), ("map.near_latency_cycles", "near hit", CY),
                                        ("map.far_latency_cycles", "far hit", CY), ("map.cold_near_latency_cycles", "cold near", CY),
                                        ("map.cold_far_latency_cycles", "cold far", CY), ("map.interleave_bytes", "interleave", B),
                                        ("replication_limit_bytes", "replication limit", B))),
    ("L2 slices", "l2_slices", (("slices_per_partition", "slices per partition", NUM), ("slices", "slices", NUM),
                                ("slices_from", "slices decided by", TXT), ("hash.xor_of_offset_bits", "slice is an XOR of offset bits", TXT),
                                ("hit_latency_cycles.median", "L2 hit from an SM, median", CY))),
    ("L2 sets (eviction sets)", "l2_sets", (("ways", "ways", NUM), ("ways_from", "ways decided by", TXT), ("sets", "sets", NUM),
                                            ("sets_per_slice", "sets per slice", NUM),
                                            ("index_within_slice", "index within a slice", TXT), ("replacement", "replacement", TXT),
                                            ("targets_minimal", "targets with a verified minimal set", NUM),
                                            ("minimal_set_sizes", "verified minimal set sizes", TXT))),
    ("outstanding requests", "outstanding_requests", (("design", "design (MSHR / PRT)", TXT), ("entries_per_sm", "entries per SM", NUM),
                                                      ("merge_capacity", "merge capacity", NUM),
                                                      ("max_outstanding_requests_per_sm", "outstanding per SM", NUM),
                                                      ("warp_load_limit", "independent loads per warp", NUM))),
    ("L2 persisting", "l2_persisting", (("max_bytes", "set-aside at most (persistingL2CacheMaxSize)", B),
                                        ("grant_step_bytes", "set-aside granted in steps of", B),
                                        ("largest_kept_bytes", "largest kept against a streaming co-runner", B),
                                        ("kept_of_max", "kept of the maximum (whole set-aside, window of its size)", FRAC),
                                        ("control_kept_bytes", "kept without a set-aside (control)", B),
                                        ("minimum_set_aside_bytes", "kept at request 0 under a window (minimum set-aside)", B))),
    ("address translation", "address_translation", (("page_bytes", "page", B), ("page_bytes_at_most", "page at most", B),
                                                    ("resolution_cycles", "smallest step resolved", CY))),
    ("timing", "measurement", (("clock_overhead_pair_cycles", "clock read pair", CY),
                               ("clock_overhead_fine_cycles", "fine-sample overhead", CY))),
    ("distributed shared memory", "distributed_shared_memory", (
        ("local_latency_cycles", "own shared memory through the cluster window", CY),
        ("latency_cycles", "another CTA's (remote), median", CY), ("rank_effect.decided", "depends on rank", TXT),
        ("cluster_effect.decided", "depends on cluster size", TXT),
        ("bandwidth.read.local_bytes_per_clock_per_sm", "read, own", BPC),
        ("bandwidth.read.remote_bytes_per_clock_per_sm", "read, remote", BPC),
        ("bandwidth.write.remote_bytes_per_clock_per_sm", "write, remote", BPC))),
    ("async copies into shared memory", "async_copies", (
        ("methods.plain.l2_bytes_per_second", "plain loads from the L2", TBS),
        ("methods.cp_async.l2_bytes_per_second", "cp.async from the L2", TBS),
        ("methods.bulk.l2_bytes_per_second", "bulk copy from the L2", TBS),
        ("methods.tensor.l2_bytes_per_second", "tensor (TMA) copy from the L2", TBS),
        ("methods.bulk.dram_pct_of_peak", "bulk copy from DRAM, of the peak", PCT),
        ("methods.bulk.latency_cycles.1024", "bulk copy of 1 KiB, latency", CY),
        ("methods.cp_async.latency_cycles.1024", "cp.async of 1 KiB, latency", CY),
        ("multicast.2.bytes_per_second", "multicast to a cluster of 2, landed", TBS))),
    ("host memory", "host_memory", (("link", "link", TXT), ("latency_cycles", "latency (cold)", CY),
                                    ("cached_in_l2", "lines kept in the L2", TXT),
                                    ("read.pct_of_link", "SM reads, of the link", PCT),
                                    ("copy.h2d.pct_of_link", "copy host to device, of the link", PCT),
                                    ("copy.d2h.pct_of_link", "copy device to host, of the link", PCT),
                                    ("managed.fault_latency_cycles", "managed memory, first touch", CY))),
    ("peer GPU (the first)", "peers.0", (("link", "link", TXT), ("latency_cycles", "latency (cold)", CY),
                                         ("latency_by_state.owner", "latency, line in the peer's L2", CY),
                                         ("cached_in", "line kept in", TXT),
                                         ("read.pct_of_link", "SM reads, of the link", PCT),
                                         ("copy.uni.pct_of_link", "copy, of the link", PCT),
                                         ("copy.bidir.pct_of_link", "copy both ways, of twice the link", PCT))),
    ("characterization", "device", (("characterize_wall_seconds", "wall time of the run", SEC),)),
)
BRACKETS = {"size_bytes": "size_bracket_bytes", "onset_size_bytes": "onset_size_bracket_bytes",
            "half_point_bytes": "half_point_bracket_bytes"}


def get(obj, dotted):
    """(value, the dict holding it, its last key)."""
    parts = dotted.split(".")
    for p in parts[:-1]:
        obj = obj.get(p) if isinstance(obj, dict) else None
    if not isinstance(obj, dict):
        return None, None, parts[-1]
    return obj.get(parts[-1]), obj, parts[-1]


def confidence(holder, key, section):
    for h in (holder, section):
        prov = (h or {}).get("provenance") or {}
        if isinstance(prov.get(key), dict) and "confidence" in prov[key]:
            return prov[key]["confidence"]
    return None


def reason(holder, key, section, topo, section_key):
    for h in (holder, section):
        prov = (h or {}).get("provenance") or {}
        if isinstance(prov.get(key), dict) and prov[key].get("reason"):
            return prov[key]["reason"]
    for h in (holder, section):
        if isinstance(h, dict):
            for k in (key + "_reason", key.replace("_bytes", "") + "_note"):
                if isinstance(h.get(k), str):
                    return h[k]
    if section is None and isinstance(topo.get(section_key + "_reason"), str):
        return topo[section_key + "_reason"]
    return "the analyzer gives no reason"


def bracketed(fmt, br):
    def f(v, _fmt=fmt, _br=br):
        return "%s [%s, %s]" % (_fmt(v), _fmt(_br[0]), _fmt(_br[1]))
    f.plain = fmt
    return f


def rows_of(topo):
    """[(group, quantity, value or None, fmt, confidence, reason)] in table order."""
    out = []
    caches = topo.get("caches") or {}
    for name, label in CACHES + TLBS:
        c = caches.get(name)
        if not isinstance(c, dict):
            continue
        for key, what, fmt in (CACHE_ROWS if name in dict(CACHES) else TLB_ROWS):
            if key not in c:
                continue
            v = c[key]
            if key == "ways":  # a count (memhier-topology/2), ways_per_set where the sets differ; /1: a list by set
                if v is None and isinstance(c.get("ways_per_set"), list):
                    v = c["ways_per_set"]
                if isinstance(v, list) and v and all(x == v[0] for x in v):
                    v = v[0]
                if isinstance(v, list) and not v:
                    v = None
            if key.endswith("lower_bound_cycles") or key == "size_bytes_lower_bound":
                if v is None:
                    continue  # a bound beside a value: only where it stands in for one
            br = c.get(BRACKETS.get(key, ""))
            shown_fmt = fmt
            if v is not None and isinstance(br, list) and len(br) == 2 and None not in br and fmt(br[0]) != fmt(br[1]):
                shown_fmt = bracketed(fmt, br)
            out.append((label, what, v, shown_fmt, confidence(c, key, None), None if v is not None else reason(c, key, None, topo, name)))
    for label, path, rows in OTHER:
        section = topo.get(path)
        if path == "peers.0":  # the list of peers: its first
            section = (topo.get("peers") or [None])[0]
            if section is None:
                continue
        for key, what, fmt in rows:
            v, holder, last = get(section, key) if isinstance(section, dict) else (None, None, key)
            if holder is None and not isinstance(section, dict) and path not in topo:
                continue
            if isinstance(holder, dict) and last not in holder:
                continue  # not written (e.g. a partition map without partitions): the null beside it says why
            if fmt is SEC and v is not None:
                try:
                    v = float(v)
                except ValueError:
                    v = None
            if v is not None and key == "max_outstanding_requests_per_sm" and section.get("max_outstanding_is_lower_bound"):
                what = what + " (lower bound)"
            out.append((label, what, v, fmt, confidence(holder, last, section),
                        None if v is not None else reason(holder, last, section if isinstance(section, dict) else None, topo, path)))
    return out


def across(values, fmt):
    vals = [v for v in values if v is not None]
    nulls = len(values) - len(vals)
    if not vals:
        return "null in all %d" % len(values)
    texts = [fmt(v) for v in vals]
    if all(t == texts[0] for t in texts):
        s = "same" if not nulls else texts[0]
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        s = "%s – %s" % (fmt(min(vals)), fmt(max(vals)))
    else:
        counts = {}
        for t in texts:
            counts[t] = counts.get(t, 0) + 1
        s = "; ".join("%s (%d)" % (t, n) for t, n in sorted(counts.items(), key=lambda x: -x[1]))
    return s + ("; null in %d" % nulls if nulls else "")


def load(archive):
    p = os.path.join(archive, "topology.json")
    try:
        with open(p) as f:
            t = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput("%s: %s" % (p, e.strerror if isinstance(e, OSError) else "not JSON"))
    if not isinstance(t, dict) or t.get("schema") not in ("memhier-topology/1", "memhier-topology/2"):
        raise BadInput("%s: not a memhier-topology/1 or /2 file" % p)
    return t


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def table(archives):
    """The Markdown block for the archives of one GPU and driver (newest = greatest name)."""
    archives = sorted(archives, key=lambda a: os.path.basename(os.path.normpath(a)))
    topos = [load(a) for a in archives]
    dev = topos[-1].get("device") or {}
    keys = {(dev.get("gpu_name"), dev.get("driver_version"))}
    for t in topos:
        d = t.get("device") or {}
        keys.add((d.get("gpu_name"), d.get("driver_version")))
    if len(keys) != 1:
        raise BadInput("the archives are of more than one GPU or driver: %s" % sorted(map(str, keys)))
    names = [os.path.basename(os.path.normpath(a)) for a in archives]
    newest = names[-1]
    rows = [rows_of(t) for t in topos]
    n = len(archives)
    def dv(k, f):
        try:
            return f(float(dev[k]))
        except (KeyError, TypeError, ValueError):
            return "?"
    lines = ["%s, driver %s: %s SMs at %s MHz, %s of L2, %s of memory (the CUDA device properties)." %
             (dev.get("gpu_name", "?"), dev.get("driver_version", "?"), dv("sm_count", NUM),
              dv("sm_clock_khz", lambda v: NUM(v / 1000)), dv("l2_cache_bytes", B), dv("global_mem_bytes", B)), "",
             "Value and confidence from the newest archive, `%s`; the last column spans all %d kept archive%s (%s): "
             "`same` where every run gave the same value. Sizes in brackets: the analyzer's interval." %
             (newest, n, "" if n == 1 else "s", ", ".join("`%s`" % x for x in names)), "",
             "| level | quantity | value | confidence | %d run%s |" % (n, "" if n == 1 else "s"), "|---|---|---|---|---|"]
    index = [{(g, q): (v, f) for g, q, v, f, _, _ in r} for r in rows]
    nulls = []
    last_group = None
    for g, q, v, fmt, conf, why in rows[-1]:
        vals = [ix.get((g, q), (None, fmt))[0] for ix in index]
        plain = getattr(fmt, "plain", fmt)
        shown = fmt(v) if v is not None else "null"
        conf_s = "—" if conf is None else ("%.2g" % conf)
        lines.append("| %s | %s | %s | %s | %s |" % (cell(g) if g != last_group else "", cell(q), cell(shown), conf_s,
                                                     cell(across(vals, plain))))
        last_group = g
        if v is None:
            nulls.append((g, q, why))
    # A section the newest archive lacks (the peer GPUs of a two-GPU run the retention rule keeps
    # beside the five newest): its rows from the newest archive that has it, named in the label.
    have = {(g, q) for g, q, _, _, _, _ in rows[-1]}
    shown_groups = {g for g, _ in have}
    for k in range(n - 2, -1, -1):
        extra = [r for r in rows[k] if r[0] not in shown_groups and (r[0], r[1]) not in have and r[2] is not None]
        groups = []
        for r in extra:
            if r[0] not in groups:
                groups.append(r[0])
        for grp in groups:
            shown_groups.add(grp)
            first = True
            for g, q, v, fmt, conf, why in rows[k]:
                if g != grp:
                    continue
                vals = [ix.get((g, q), (None, fmt))[0] for ix in index]
                conf_s = "—" if conf is None else ("%.2g" % conf)
                label = "%s, from `%s`" % (g, names[k]) if first else ""
                lines.append("| %s | %s | %s | %s | %s |" % (cell(label), cell(q), cell(fmt(v) if v is not None else "null"),
                                                             conf_s, cell(across(vals, getattr(fmt, "plain", fmt)))))
                first = False
    if nulls:
        lines += ["", "Null in `%s`, with the analyzer's reason:" % newest, ""]
        grouped = []
        for g, q, why in nulls:
            if grouped and grouped[-1][0] == g and grouped[-1][2] == why:
                grouped[-1][1].append(q)
            else:
                grouped.append([g, [q], why])
        for g, qs, why in grouped:
            lines.append("- **%s**, %s: %s" % (g, ", ".join(qs), why.strip()))
    return "\n".join(lines) + "\n"


def archives_under(results, rel):
    d = os.path.join(results, rel)
    if not os.path.isdir(d):
        raise BadInput("%s: not a directory (named by a results_table marker)" % d)
    found = [os.path.join(d, n) for n in sorted(os.listdir(d)) if TS.match(n) and os.path.isdir(os.path.join(d, n))]
    if not found:
        raise BadInput("%s: no archive" % d)
    return found


def regenerate(doc_text, results):
    out, i, lines = [], 0, doc_text.split("\n")
    blocks = 0
    while i < len(lines):
        m = BEGIN.match(lines[i].strip())
        out.append(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and lines[j].strip() != END:
            if BEGIN.match(lines[j].strip()):
                j = len(lines)  # a second begin before this block's end
                break
            j += 1
        if j == len(lines):
            raise BadInput("a results_table block for %s has no end marker" % m.group(1))
        out.extend(table(archives_under(results, m.group(1))).rstrip("\n").split("\n"))
        out.append(lines[j])
        i = j + 1
        blocks += 1
    if not blocks:
        raise BadInput("no results_table block (<!-- results_table: <sm>/<gpu-slug>/<driver> -->)")
    return "\n".join(out)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print("%s: %s (see --help)" % (PROG, message), file=sys.stderr)
        sys.exit(2)


def main():
    doc = __doc__.split("\n\n")
    ap = Parser(prog=PROG, description=doc[0].strip() + "\n\n" + "\n\n".join(doc[2:]).strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archives", nargs="*", help="archive directories of one GPU and driver")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", metavar="DOC", help="exit 1 when DOC's generated blocks differ from the archives")
    g.add_argument("--update", metavar="DOC", help="rewrite DOC's generated blocks")
    ap.add_argument("--results", default="results", help="the results directory for --check/--update (default: results)")
    args = ap.parse_args()
    try:
        if args.check or args.update:
            if args.archives:
                raise BadInput("archives and --check/--update exclude each other")
            path = args.check or args.update
            try:
                with open(path) as f:
                    text = f.read()
            except OSError as e:
                raise BadInput("%s: %s" % (path, e.strerror))
            new = regenerate(text, args.results)
            if args.update:
                if new != text:
                    with open(path, "w") as f:
                        f.write(new)
                print("%s: %s" % (path, "updated" if new != text else "unchanged"))
                return 0
            if new != text:
                import difflib
                diff = list(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                 path, "regenerated from " + args.results, n=1))
                sys.stdout.writelines(diff[:60])
                if len(diff) > 60:
                    print("... (%d more diff lines)" % (len(diff) - 60))
                print("%s: %s disagrees with the archives (python3 scripts/results_table.py --update %s)" %
                      (PROG, path, path))
                return 1
            print("%s: %s agrees with the archives" % (PROG, path))
            return 0
        if not args.archives:
            raise BadInput("no archive given")
        for a in args.archives:
            if not os.path.isdir(a):
                raise BadInput("%s: not a directory" % a)
        sys.stdout.write(table(args.archives))
        return 0
    except BadInput as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    # a reader that stops early (`| head`) ends the output quietly, as other Unix tools do
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
