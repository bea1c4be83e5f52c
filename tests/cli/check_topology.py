#!/usr/bin/env python3
"""Checks a topology.json (memhier-infer) against the truth of the simulated device it measured.

usage: check_topology.py <sim config.json> <topology.json> [--sigma K]

The truth is read from the sim config itself (docs/formats.md, section sim-config): for every load
path the analyzer reads (global_ca -> l1, texture -> texture, ldg -> readonly, constant ->
constant_l1 and constant_l15, global_cg -> l2) the path's own cache level, and tlbs[0], tlbs[1] ->
l1_tlb, l2_tlb. A path whose first level is the L2 has no cache of its own: the topology must say
so (present: false). Checked exactly: size, line, sector, sets, ways per set (as a multiset: the
order of the sets is not observable), index bits ([lo, hi], [] fully associative, "hashed"),
replacement, hit latency (within 1 cycle of the mean where a hit_latency_map makes it depend on the
address; TLBs: entries, page, reach of one entry, miss penalty; on a device with latency_noise the
penalty within twice its stated 95 % interval). Per-way replacement probabilities of
a weighted random policy: within K (default 4) binomial standard errors of the replacements the
analyzer saw (`replacements_observed`).

Documented ambiguities (docs/methodology.md, section inference) that are accepted when the analyzer
reports them, never silently:
  - lru and fifo are both "lru_or_fifo" (a cyclic P-chase cannot tell them apart);
  - a config whose l2_evsets model differs from its L2 level (unlike_hopper): l2 values the two give
    differently null with a reason that says they disagree (issue 30 item 3, one L2 story);
  - a TLB's index function over several sets: index_bits null with a reason (set membership is
    not observable from miss counts);
  - a TLB whose entries cover virtual regions (entry_scope "virtual") wider than the page: the
    page null with a reason and page_bytes_at_most at least the page;
  - a TLB whose whole reach lies beyond the largest footprint measured: present, entries, reach
    and penalty null with a reason;
  - a random policy whose stage 2 did not show every member of the overflowed sets: sets, ways
    and index_bits null with a reason and `ambiguity` ["non_lru_stage2"];
  - the cache's `alternatives` list: structures (line, sector, sets, ways, index bits) that give
    identical misses in every experiment run; the truth may match the main values or one of them.
Exit 0 when everything matches, 1 with one line per mismatch otherwise, 2 on bad input.
"""
import json
import math
import sys

PATH_CACHES = [("global_ca", ["l1"]), ("texture", ["texture"]), ("ldg", ["readonly"]),
               ("constant", ["constant_l1", "constant_l15"]), ("global_cg", ["l2"])]
STRUCT_KEYS = ["line_bytes", "sector_bytes", "sets", "ways", "index_bits"]
# What the access sequences can name: common/policy.hpp candidate_policies(W, true), every QLRU
# variant (qlru_*), the named policies, random and brrip.
CANDIDATES = {"lru", "fifo", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "slru", "srrip", "random",
              "brrip"}


def short(v):
    """A value for a message: long lists as value x count runs."""
    if isinstance(v, list) and len(v) > 8:
        runs = []
        for x in v:
            if runs and runs[-1][0] == x:
                runs[-1][1] += 1
            else:
                runs.append([x, 1])
        return "[" + ", ".join(f"{x}" if n == 1 else f"{x} x{n}" for x, n in runs) + "]"
    return json.dumps(v)


def log2(x):
    n = 0
    while (1 << n) < x:
        n += 1
    return n


def truth_rows(lv, index, sets, line):
    """The index as GF(2) rows over byte-address bits (set bit j = parity(addr & row j)), or None."""
    fn = index.get("function", "modulo")
    if fn == "modulo" and sets & (sets - 1) == 0:
        lo = index.get("shift", log2(line))
        return [1 << b for b in range(lo, lo + log2(sets))]
    if fn == "bits":
        return [1 << b for b in index["bits"]]
    if fn == "xor":
        w = index["groups"][0]["width"]
        return [sum(1 << (g["lo"] + k) for g in index["groups"] if k < g["width"]) for k in range(w)]
    if fn == "gf2":
        return [int(r, 0) if isinstance(r, str) else int(r) for r in index["rows"]]
    return None


def rref(rows):
    """Reduced row echelon form over GF(2) (a canonical basis of the rows' span)."""
    basis = []
    for r in rows:
        for b in basis:
            if r & (1 << (b.bit_length() - 1)):
                r ^= b
        if r:
            basis = [b ^ r if b & (1 << (r.bit_length() - 1)) else b for b in basis] + [r]
            basis.sort(reverse=True)
    return sorted(basis, reverse=True)


def ways_by_set(c):
    """A cache's ways as a list by set: memhier-topology/2 states a count (`ways`, repeated `sets`
    times) or, where the sets differ, `ways_per_set`; /1 the list itself."""
    w = c.get("ways")
    if isinstance(w, int) and not isinstance(w, bool) and isinstance(c.get("sets"), int):
        return [w] * c["sets"]
    if w is None and isinstance(c.get("ways_per_set"), list):
        return c["ways_per_set"]
    return w


def level_truth(lv):
    """Expected topology values of a cache level of the config."""
    line = lv["line_bytes"]
    sector = lv.get("sector_bytes", line)
    ways = lv["ways"]
    if isinstance(ways, list):
        sets = len(ways)
    else:
        sets = lv.get("sets") or lv["size_bytes"] // (ways * line)
        ways = [ways] * sets
    size = sum(ways) * line
    ix = lv.get("index", {"function": "modulo"})
    fn = ix.get("function", "modulo")
    pow2 = sets & (sets - 1) == 0
    if sets == 1:
        index = []
    elif fn == "modulo" and pow2:
        lo = ix.get("shift", log2(line))
        index = [lo, lo + log2(sets) - 1]
    elif fn == "bits" and ix["bits"] == list(range(ix["bits"][0], ix["bits"][0] + len(ix["bits"]))):
        index = [ix["bits"][0], ix["bits"][-1]]
    elif fn == "bits":
        index = ix["bits"]
    else:
        index = "hashed"
    rep = lv.get("replacement", "lru")
    policy, weights = (rep, None) if isinstance(rep, str) else (rep["policy"], rep.get("weights"))
    if policy == "random" and weights:
        w = weights[: max(ways)]
        probs = sorted((x / sum(w) for x in w), reverse=True)
        uniform = max(w) == min(w)
    else:
        probs, uniform = None, True
    t = {"size_bytes": size, "line_bytes": line, "sector_bytes": sector, "sets": sets,
         "ways": sorted(ways), "index_bits": index, "policy": policy, "probs": probs, "uniform": uniform,
         "rows": truth_rows(lv, ix, sets, line)}
    if "hit_latency_cycles" in lv:
        t["hit_latency_cycles"] = lv["hit_latency_cycles"]
        m = lv.get("hit_latency_map")
        if m:  # by address: the mean over addresses whose row parities are uniform, within 1 cycle
            t["hit_latency_cycles"] = lv["hit_latency_cycles"] + sum(m["add_cycles"]) / len(m["add_cycles"])
            t["hit_latency_tol"] = 1.0
    if "miss_penalty_cycles" in lv:
        t["miss_penalty_cycles"] = lv["miss_penalty_cycles"]
    return t


class Checker:
    def __init__(self, sigma):
        self.sigma = sigma
        self.failures = []
        self.checked = 0

    def fail(self, where, what):
        self.failures.append(f"{where}: {what}")

    def eq(self, where, key, want, got):
        self.checked += 1
        if got != want:
            self.fail(f"{where}.{key}", f"expected {short(want)}, got {short(got)}")

    def structure(self, where, c, truth):
        """line, sector, sets, ways, index bits: the main values or one of the reported alternatives."""
        cands = [c] + [dict(c, **a) for a in c.get("alternatives") or []]

        def norm(cand, k):
            v = ways_by_set(cand) if k == "ways" else cand.get(k)
            return sorted(v) if k == "ways" and isinstance(v, list) else v

        if self.non_lru_stage2(c, truth):
            # documented ambiguity: a non-LRU policy's stage 2 does not show every member of a set,
            # and the index is no GF(2) matrix the eviction sets could give (a table onto unequal sets)
            self.checked += 1
            self.eq(where, "line_bytes", truth["line_bytes"], c.get("line_bytes"))
            self.eq(where, "sector_bytes", truth["sector_bytes"], c.get("sector_bytes"))
            return
        if c.get("index_matrix") is not None:
            self.matrix(where, c, truth)
            if isinstance(truth["index_bits"], list) and len(truth["index_bits"]) > 2 and c.get("index_bits") == "hashed":
                truth = dict(truth, index_bits="hashed")  # non-contiguous bits: the matrix says which
        for cand in cands:
            if all(norm(cand, k) == truth[k] for k in STRUCT_KEYS):
                self.checked += len(STRUCT_KEYS)
                return
        for k in STRUCT_KEYS:
            self.eq(where, k, truth[k], norm(c, k))
        if len(cands) > 1:
            self.fail(where, f"no reported alternative matches either ({len(cands) - 1} listed)")

    @staticmethod
    def non_lru_stage2(c, truth):
        return "non_lru_stage2" in (c.get("ambiguity") or []) and truth["policy"] not in ("lru", "fifo") and \
            all(c.get(k) is None and c.get("provenance", {}).get(k, {}).get("reason") for k in ("sets", "ways", "index_bits"))

    def matrix(self, where, c, truth):
        """index_matrix: the same row space as the truth's over the bits the tests could flip."""
        self.checked += 1
        lo, hi = c.get("index_matrix_bits") or [0, 63]
        mask = ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
        got = rref([int(r, 16) & mask for r in c["index_matrix"]])
        if truth["rows"] is None:
            self.fail(f"{where}.index_matrix", "reported, but the truth's index is not linear (a table)")
            return
        want = rref([r & mask for r in truth["rows"]])
        if got != want:
            self.fail(f"{where}.index_matrix", f"row space differs over bits {lo}-{hi}: expected "
                      f"{[hex(r) for r in want]}, got {[hex(r) for r in got]}")

    def replacement(self, where, c, truth):
        got = c.get("replacement")
        pol = truth["policy"]
        self.checked += 1
        names = got if isinstance(got, list) else [got]
        if pol not in ("random",) and pol in names:
            return  # the access sequences named it (alone, or with policies no sequence told apart)
        # or named its class of identical outcomes by another member (replacement_consistent)
        members = (c.get("replacement_consistent") or {}).get("class_members") or []
        if pol != "random" and any(m and m[0] in names and pol in m for m in members):
            return
        if pol in ("lru", "fifo"):
            if got != "lru_or_fifo":
                self.fail(f"{where}.replacement", f"expected lru_or_fifo ({pol}), got {json.dumps(got)}")
            return
        if pol == "random" and truth["uniform"]:
            # or with brrip, when no sequence run told the two randomized policies apart
            if got != "random" and not (isinstance(got, list) and "random" in got and set(got) <= {"random", "brrip"}):
                self.fail(f"{where}.replacement", f"expected random, got {json.dumps(got)}")
            return
        if pol == "random":
            if got != "non-lru":
                self.fail(f"{where}.replacement", f"expected non-lru (weighted random), got {json.dumps(got)}")
                return
            probs = c.get("replacement_probabilities") or []
            n = c.get("replacements_observed") or 0
            if len(probs) != len(truth["probs"]) or n <= 0:
                self.fail(f"{where}.replacement_probabilities",
                          f"expected {len(truth['probs'])} ways, got {json.dumps(probs)} from {n} replacements")
                return
            for i, (p, q) in enumerate(zip(truth["probs"], probs)):
                tol = self.sigma * math.sqrt(p * (1 - p) / n) + 0.0015  # + rounding to 3 decimals
                self.checked += 1
                if abs(p - q) > tol:
                    self.fail(f"{where}.replacement_probabilities[{i}]",
                              f"expected {p:.3f} +- {tol:.3f} ({self.sigma} sigma of {n:.0f}), got {q}")
            return
        if got == "none of the known policies" and pol not in CANDIDATES and not pol.startswith("qlru_"):
            return  # documented: a policy outside the analyzer's candidate list
        self.fail(f"{where}.replacement", f"expected {pol}, got {json.dumps(got)}")

    def beyond_limit(self, name, c, truth, limit):
        """Documented: a cache larger than the path's chase limit (the 64 KiB constant bank) is stated as
        a lower bound with the reason; nothing else about it is measurable."""
        self.checked += 1
        lb = c.get("size_bytes_lower_bound")
        if c.get("size_bytes") is not None or lb is None or lb > truth["size_bytes"] or lb < limit:
            self.fail(name, f"a cache of {truth['size_bytes']} bytes beyond the chase limit {limit}: expected "
                            f"size null with lower bound {limit}, got {c.get('size_bytes')} / {lb}")

    def cache(self, name, c, truth):
        if c.get("present") is False:
            self.fail(name, "reported absent: " + str(c.get("provenance", {}).get("present", {}).get("reason")))
            return
        if self.non_lru_stage2(c, truth) and truth["rows"] is None:
            # the capacity beyond where misses begin is not decided in that class: the onset is
            # (a table index fills every set before one overflows)
            self.eq(name, "onset_size_bytes", truth["size_bytes"], c.get("onset_size_bytes"))
        else:
            self.eq(name, "size_bytes", truth["size_bytes"], c.get("size_bytes"))
        self.structure(name, c, truth)
        self.replacement(name, c, truth)
        if "hit_latency_tol" in truth and isinstance(c.get("hit_latency_cycles"), (int, float)):
            self.checked += 1
            if abs(c["hit_latency_cycles"] - truth["hit_latency_cycles"]) > truth["hit_latency_tol"]:
                self.fail(f"{name}.hit_latency_cycles", f"expected {truth['hit_latency_cycles']:.1f} +- "
                          f"{truth['hit_latency_tol']}, got {c['hit_latency_cycles']}")
        else:
            self.eq(name, "hit_latency_cycles", truth["hit_latency_cycles"], c.get("hit_latency_cycles"))

    def accept_l2_disagreement(self, c, level, evsets):
        """A config whose l2_evsets model is another cache than its L2 level (unlike_hopper): the
        analyzer names the disagreement of the two experiments (null, reason "... disagree"); only
        the quantities the two models really give differently are accepted so."""
        if not evsets:
            return
        pol = level.get("replacement")
        pol = pol.get("policy") if isinstance(pol, dict) else pol
        differ = {"line_bytes": evsets.get("line_bytes") != level.get("line_bytes"),
                  "ways": evsets.get("ways") != level.get("ways"),
                  "sets": evsets.get("sets") != level.get("sets"),
                  "replacement": evsets.get("policy") != pol}
        keep = []
        for f in self.failures:
            key = f.split(":")[0].split(".", 1)[-1] if f.startswith("l2.") else None
            why = (c.get("provenance", {}).get(key or "", {}) or {}).get("reason") or ""
            if key in differ and differ[key] and c.get(key) is None and "disagree" in why:
                print(f"check_topology: accepted: l2.{key} null: the l2_evsets model and the L2 level differ ({why[:120]})")
                continue
            keep.append(f)
        self.failures = keep

    def absent(self, name, c, why):
        self.checked += 1
        if c.get("present") is not False:
            self.fail(name, f"expected no such cache ({why}), got present={json.dumps(c.get('present'))}"
                            f" size_bytes={json.dumps(c.get('size_bytes'))}")

    def null_with_reason(self, name, c, keys, why):
        for k in keys:
            self.checked += 1
            reason = c.get("provenance", {}).get(k, {}).get("reason")
            if c.get(k) is not None or not reason:
                self.fail(f"{name}.{k}", f"expected null with a reason ({why}), got {json.dumps(c.get(k))}")

    def tlb_beyond(self, name, c, reach, measured):
        """Documented: a level whose whole reach lies beyond every footprint measured (the H100's
        next level behind its 16-entry L1 TLB) cannot show: present and its values null with the
        reason (no further level within the measured reach)."""
        self.null_with_reason(name, c, ["present", "entries", "reach_per_entry_bytes", "miss_penalty_cycles"],
                              f"reach {reach} beyond the largest footprint {measured}")

    def tlb(self, name, c, truth, noise_sd=0):
        page, entry = truth["page_bytes"], truth["line_bytes"]  # an entry may cover several pages
        entries = sum(truth["ways"])
        if truth.get("entry_virtual") and entry > page:
            # documented: entries of aligned virtual regions keep their reach across VMM chunks and
            # holes, so no run shows the page; null with the reason and a bound that holds
            self.null_with_reason(name, c, ["page_bytes"], "entries of virtual regions")
            self.checked += 1
            bound = c.get("page_bytes_at_most")
            if not isinstance(bound, int) or bound < page:
                self.fail(f"{name}.page_bytes_at_most", f"expected a bound of at least {page}, got {json.dumps(bound)}")
        else:
            self.eq(name, "page_bytes", page, c.get("page_bytes"))
        self.eq(name, "reach_per_entry_bytes", entry, c.get("reach_per_entry_bytes"))
        self.eq(name, "entries", entries, c.get("entries"))
        self.eq(name, "size_bytes", entries * entry, c.get("size_bytes"))
        self.eq(name, "sets", truth["sets"], c.get("sets"))
        ways = ways_by_set(c)
        self.eq(name, "ways", truth["ways"], sorted(ways) if isinstance(ways, list) else ways)
        self.replacement(name, c, truth)
        want, got_p = truth["miss_penalty_cycles"], c.get("miss_penalty_cycles")
        if noise_sd > 0 and isinstance(got_p, (int, float)):  # noisy device: within the stated interval
            self.checked += 1
            tol = max(2 * (c.get("miss_penalty_ci95_cycles") or 0), 0.2)
            if abs(got_p - want) > tol:
                self.fail(f"{name}.miss_penalty_cycles", f"expected {want} +- {tol:.2f}, got {got_p}")
        else:
            self.eq(name, "miss_penalty_cycles", want, got_p)
        got = c.get("index_bits")
        if truth["sets"] > 1 and got is None:
            self.checked += 1
            if not c.get("provenance", {}).get("index_bits", {}).get("reason"):
                self.fail(f"{name}.index_bits", "null without a reason")
        else:
            self.eq(name, "index_bits", truth["index_bits"], got)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    sigma = 4.0
    for a in argv[1:]:
        if a.startswith("--sigma="):
            sigma = float(a.split("=", 1)[1])
    if len(args) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    try:
        cfg = json.load(open(args[0]))
        topo = json.load(open(args[1]))
    except (OSError, ValueError) as e:
        print(f"check_topology: {e}", file=sys.stderr)
        return 2
    levels = {lv["name"]: lv for lv in cfg.get("levels", [])}
    paths = cfg.get("paths", {})
    caches = topo.get("caches", {})
    l2_first = paths.get("global_cg", {}).get("levels", [None])[0]
    ck = Checker(sigma)
    for path, names in PATH_CACHES:
        if path not in paths:
            continue
        own = [ln for ln in paths[path]["levels"] if ln != l2_first or path == "global_cg"]
        for i, name in enumerate(names):
            c = caches.get(name, {})
            limit = cfg.get("device", {}).get("const_bytes", 65536) if path == "constant" else None
            if i < len(own) and not levels[own[i]].get("kind") == "scratchpad":
                truth = level_truth(levels[own[i]])
                if limit and truth["size_bytes"] > limit:
                    ck.beyond_limit(name, c, truth, limit)
                else:
                    ck.cache(name, c, truth)
                    if name == "l2":
                        ck.accept_l2_disagreement(c, levels[own[i]], cfg.get("l2_evsets"))
            else:
                ck.absent(name, c, f"path {path} goes through {paths[path]['levels']}")
    if paths.get("global_cg", {}).get("translated"):
        for name, lv in zip(["l1_tlb", "l2_tlb"], cfg.get("tlbs", [])):
            t = dict(lv)
            t["line_bytes"] = lv.get("entry_bytes", lv["page_bytes"])
            if "sets" not in t and not isinstance(lv["ways"], list):
                t["sets"] = lv["entries"] // lv["ways"]
            truth = level_truth(t)
            truth["page_bytes"] = lv["page_bytes"]
            truth["entry_virtual"] = lv.get("entry_scope") == "virtual"
            measured = topo.get("address_translation", {}).get("coverage", {}).get("malloc", {}).get("max_bytes", 0)
            if truth["size_bytes"] > measured > 0:
                ck.tlb_beyond(name, caches.get(name, {}), truth["size_bytes"], measured)
                continue
            ck.tlb(name, caches.get(name, {}), truth, cfg.get("latency_noise", {}).get("sd_cycles", 0))
    for f in ck.failures:
        print("MISMATCH " + f)
    print(f"check_topology: {cfg.get('name')}: {ck.checked} values checked, {len(ck.failures)} mismatches")
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
