#include "analysis/cache/sequences/decide.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/cache/sequences/policy.hpp"
#include "analysis/cache/sequences/sets.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

namespace {

std::string hex(std::uint64_t x) {
  std::ostringstream o;
  o << "0x" << std::hex << x;
  return o.str();
}

Evidence evidence_of(const SeqStructure& s) {
  Evidence e;
  e.add(s.benchmark);
  return e;
}

void write_eviction_set(nlohmann::json& c, const SeqStructure& s) {
  nlohmann::json e = {{"benchmark", s.benchmark}, {"target", hex(s.target)}, {"lines", s.eviction_set.size()},
                      {"minimal", s.minimal}, {"lines_in_target_set", s.same_set.size()},
                      {"lines_outside_target_set", s.other_lines}, {"kernel_dimension", s.kernel.rank()},
                      {"contradictions", s.contradictions}};
  c["eviction_set"] = e;
}

// Every footprint of the sweep up to four times the onset: no overflowing set where it has no
// misses, one where at least half its plateau misses.
bool matrix_explains_sweep(const SeqStructure& s, std::uint64_t W, std::uint64_t line, const Capacity& cap) {
  if (s.rows.size() > 40 || cap.sizes.empty()) return false;
  bool tested_miss = false;
  for (std::size_t i = 0; i < cap.sizes.size(); ++i) {
    const std::uint64_t n = cap.sizes[i];
    if (n > 4 * std::max(cap.onset.hi, cap.onset.lo) || n / line > (1u << 21)) break;
    const bool clean = n <= cap.onset.lo, missing = cap.miss[i] >= 0.5 * cap.half.plateau && cap.half.plateau > 0;
    if (!clean && !missing) continue;
    if (predicts_overflow(s, W, line, cap.onset.stride, n) != missing) return false;
    tested_miss = tested_miss || missing;
  }
  return tested_miss;
}

// A footprint of the sweep at or below `bytes` whose every access missed (miss rate >= 0.95): then
// every set held more lines than its ways, whatever the index and the policy, so the capacity is
// below that footprint (on the H100 the texture's matrix of rank 10 said 1024 sets, 512 KiB, where
// its sweep missed on every access from 270 KiB on).
bool full_miss_at_or_below(const Capacity& cap, std::uint64_t bytes) {
  for (std::size_t i = 0; i < cap.sizes.size() && cap.sizes[i] <= bytes; ++i)
    if (cap.miss[i] >= 0.95) return true;
  return false;
}

// The powers of two T whose T x ways x line lies in the capacity's interval or the onset's.
std::vector<std::uint64_t> set_counts(const CacheJob& job, const Capacity& cap, std::uint64_t unit) {
  const auto br = job.cache.value("size_bracket_bytes", nlohmann::json());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = {{cap.onset.lo, std::max(cap.onset.hi, cap.onset.lo)}};
  if (br.is_array()) ranges.push_back({br[0].get<std::uint64_t>(), br[1].get<std::uint64_t>()});
  std::vector<std::uint64_t> out;
  for (std::uint64_t T = 1; T < (1ull << 40); T *= 2)
    for (auto [lo, hi] : ranges)
      if (T * unit >= lo && T * unit <= hi && (out.empty() || out.back() != T)) out.push_back(T);
  return out;
}

// The index when the tests did not span the kernel: a bit-selected index of log2 T bits would leave
// every other bit congruent; more bits known to leave the set: hashed.
nlohmann::json index_without_matrix(const SeqStructure& s, std::uint64_t T) {
  unsigned nb = 0;
  while ((1ull << nb) < T) ++nb;
  if (s.leaving_bits.size() > nb) return "hashed";
  if (s.leaving_bits.size() == nb && nb > 0 && s.leaving_bits.back() - s.leaving_bits.front() + 1 == nb)
    return nlohmann::json::array({s.leaving_bits.front(), s.leaving_bits.back()});
  return nullptr;
}

// A set count that is not a power of two (96 sets: a modulo or table index), decided by the capacity
// alone: the capacity fitted with the policy and ways found (or given by a structure) whose interval
// holds exactly one multiple of ways x line, T = that / (ways x line), and misses begin exactly there
// (the exact onset's bracket holds T x ways x line: every set filled at once, so the sets are alike
// and the one eviction set's ways are every set's; unequal sets of a table fill up at their own sum,
// 4480 bytes for 7 + 7 x 4 ways of 128 B, which the equal-set fit reads as 9 x 4 ways, 4608). 0 when
// the capacity does not decide one, or decides a power of two (the matrix's check applies to those).
std::uint64_t whole_sets_from_capacity(const nlohmann::json& c, const SizeResult& onset, std::uint64_t unit) {
  const auto src = c.value("size_source", nlohmann::json());
  const auto br = c.value("size_bracket_bytes", nlohmann::json());
  if (unit == 0 || !br.is_array() || br.size() != 2 || !(src == "model_fit" || src == "structure")) return 0;
  const std::uint64_t lo = br[0].get<std::uint64_t>(), hi = br[1].get<std::uint64_t>();
  const std::uint64_t first = (lo + unit - 1) / unit, last = hi / unit;
  if (first == 0 || first != last || (first & (first - 1)) == 0) return 0;
  const bool at_onset = onset.state == SizeResult::State::exact && !onset.soft && first * unit >= onset.lo &&
                        first * unit < std::max(onset.hi, onset.lo + 1);
  return at_onset ? first : 0;
}

// Sets that are not a power of two: no GF(2) matrix and no bit range can give them (the index is a
// modulo or a table), so index_bits is "hashed" and the matrix null, each with that reason.
void write_whole_sets(CacheJob& job, const SeqStructure& s, std::uint64_t T, std::uint64_t line, const std::string& how) {
  nlohmann::json& c = job.cache;
  const Evidence ev = evidence_of(s);
  const std::uint64_t W = s.eviction_set.size();
  const std::string why = std::to_string(T) + " sets, not a power of two: capacity " + std::to_string(T * W * line) +
                          " bytes (fitted with the policy and ways found) / (" + std::to_string(W) + " ways x " +
                          std::to_string(line) + "-byte lines)";
  set_value(c, "sets", T, 0.75, ev, "capacity / (ways x line): " + why + "; " + how);
  set_value(c, "ways", std::vector<std::uint64_t>(T, W), 0.8, ev, "the minimal eviction set's size in every set");
  set_value(c, "index_bits", "hashed", 0.7, ev,
            why + ": the index is not plain address bits nor a GF(2) matrix (a modulo or table index); " + how);
  set_null(c, "index_matrix", why + ": no GF(2) matrix maps onto a set count that is not a power of two", ev);
  write_structure_capacity(job, T * W * line, std::to_string(T) + " sets x " + std::to_string(W) + " ways x " +
                                                  std::to_string(line) + "-byte lines (" + why + ")", ev);
}

// sets = capacity / (ways x line), checked against 2^rank(H). True when the sets are decided.
bool write_seq_sets(CacheJob& job, const Capacity& cap, const SeqStructure& s, std::uint64_t line, bool partial) {
  nlohmann::json& c = job.cache;
  const Evidence ev = evidence_of(s);
  const std::uint64_t W = s.eviction_set.size();
  const std::uint64_t Tr = s.rows.size() < 40 ? 1ull << s.rows.size() : 0;
  const auto Ts = set_counts(job, cap, W * line);
  const std::string how = std::to_string(W) + "-line minimal eviction set; index matrix of rank " +
                          std::to_string(s.rows.size()) + " over address bits " + std::to_string(s.line_bit) + "-" +
                          std::to_string(s.top_bit) + " from " + std::to_string(s.kernel.rank()) +
                          " independent congruent differences" +
                          (s.contradictions ? " (" + std::to_string(s.contradictions) + " contradicting tests)" : "");
  set_value(c, "ways_one_set", W, 0.85, ev, "size of the minimal eviction set (the ways of the target's set)");
  // The matrix holds when 2^rank fits the capacity, or when it predicts the capacity sweep itself:
  // no overflowing set where the sweep has no misses, one where it misses (an index that does not
  // spread consecutive lines, e.g. non-adjacent bits, fills part of its sets first: the curve then
  // under-reads the capacity, the matrix does not).
  const bool explains = Tr && s.every_bit_decided() && matrix_explains_sweep(s, W, line, cap) &&
                        !full_miss_at_or_below(cap, Tr * W * line);
  const bool exact = std::find(Ts.begin(), Ts.end(), Tr) != Ts.end() || explains;
  std::vector<std::uint64_t> below;
  for (auto T : Ts)
    if (T < Tr) below.push_back(T);
  if (!exact) {
    if (const std::uint64_t Tw = whole_sets_from_capacity(c, cap.onset, W * line)) {
      write_whole_sets(job, s, Tw, line, how);
      return true;
    }
  }
  if (!exact && !partial) return false;
  if (!exact && below.size() != 1) {
    const std::string why = "no power-of-two set count fits both: 2^rank = " + std::to_string(Tr) + ", capacity / (ways x line) " +
                            (Ts.empty() ? "none" : "candidates " + std::to_string(Ts.size())) + ": " + how;
    for (auto k : {"sets", "ways", "index_bits"}) set_null(c, k, why, ev);
    return false;
  }
  const std::uint64_t T = exact ? Tr : below.front();
  const std::string check = explains && std::find(Ts.begin(), Ts.end(), Tr) == Ts.end()
                                ? "; the matrix predicts which footprints of the capacity sweep miss: the curve "
                                  "under-reads the capacity (consecutive lines do not spread evenly over the sets)"
                                : "";
  if (exact) {
    set_value(c, "index_matrix", matrix_json(s), 0.8, ev,
              "rows of H over byte-address bits (set bit j = parity(address & row j)), reduced row echelon form");
    set_value(c, "index_matrix_bits", nlohmann::json::array({s.line_bit, s.top_bit}), 0.8, ev,
              "the address bits the congruence tests could flip (the line's lowest to the array's highest): H is "
              "decided over these only");
    set_value(c, "index_bits", index_of(s), 0.85, ev, "the index matrix: " + how);
  } else {
    set_null(c, "index_matrix", "the congruence tests span " + std::to_string(s.kernel.rank()) + " of the kernel's " +
                                    std::to_string(s.top_bit - s.line_bit + 1) + " - log2 " + std::to_string(T) +
                                    " dimensions: " + how, ev);
    const nlohmann::json ib = index_without_matrix(s, T);
    if (ib.is_null()) set_null(c, "index_bits", "the congruence tests do not decide the index: " + how, ev);
    else set_value(c, "index_bits", ib, 0.7, ev, std::to_string(s.leaving_bits.size()) + " address bits are known to move a line out of its set, " + std::to_string(T) + " sets");
  }
  set_value(c, "sets", T, exact ? 0.85 : 0.7, ev,
            std::string(exact ? "2^rank of the index matrix = " : "") + "capacity / (ways x line): " + how + check);
  set_value(c, "ways", std::vector<std::uint64_t>(T, W), 0.85, ev, "the minimal eviction set's size in every set");
  write_structure_capacity(job, T * W * line, std::to_string(T) + " sets x " + std::to_string(W) + " ways x " +
                                                  std::to_string(line) + "-byte lines (" + how + ")", ev);
  return true;
}

}  // namespace

struct SeqFindings {
  std::vector<SeqEvidence> traces;
  std::vector<std::string> stopped;  // the searches' own word on why they ended early
  SeqStructure sets;
  SeqPolicy policy;
  std::uint64_t line = 0;
};

namespace {
// The evidence of one cache: taken from what was read for every cache at once (each
// cache's once: a second job of the same cache reads its traces again), or read now (tests).
std::vector<SeqEvidence> sequence_evidence_of(InferContext& ctx, const std::string& name) {
  if (ctx.read_all_sequences && !ctx.sequence_evidence) ctx.sequence_evidence = load_all_sequence_evidence(ctx.data);
  if (ctx.sequence_evidence) {
    auto it = ctx.sequence_evidence->find(name);
    if (it != ctx.sequence_evidence->end()) {
      auto v = std::move(it->second);
      ctx.sequence_evidence->erase(it);
      ctx.sequence_evidence_taken.insert(name);
      return v;
    }
    if (!ctx.sequence_evidence_taken.count(name)) return {};  // none in the data
  }
  return load_sequence_evidence(ctx.data, name);
}
}  // namespace

std::shared_ptr<SeqFindings> analyze_sequences(CacheJob& job) {
  auto f = std::make_shared<SeqFindings>();
  f->traces = sequence_evidence_of(job.ctx, job.cl.name);
  if (f->traces.empty()) return nullptr;
  const nlohmann::json& c = job.cache;
  f->line = has_value(c, "line_bytes") ? c["line_bytes"].get<std::uint64_t>() : 0;
  f->sets = analyze_sets(f->traces, f->line, job.noise_per_access);
  if (f->sets.minimal && f->line) f->policy = analyze_policy(f->sets, job.noise_per_access);
  return f;
}

namespace {

// A second search for a cache whose first one ended early or left address bits undecided: with the
// line as its stride and a pool starting near where misses begin (fewer lines, so a cheaper search).
// Once per cache: not when a search at that stride exists already.
void request_rerun(CacheJob& job, const SeqFindings& f, const Capacity& cap) {
  const SeqStructure& s = f.sets;
  if (f.line == 0 || (s.minimal && s.every_bit_decided() && (!s.evidence || s.evidence->stopped == "no"))) return;
  for (const auto& ev : f.traces)
    if (ev.stride == f.line) return;
  std::uint64_t pool = 1;
  while (pool * 2 <= cap.onset.lo) pool *= 2;
  job.ctx.requests.add(SequenceWish{job.path, job.cl.name, f.line, pool, job.primary, 2.5,
                                    job.cl.name + " eviction sets: a second search at the line"});
}

}  // namespace

std::string sequences_shortfall(const std::shared_ptr<SeqFindings>& f) {
  if (!f || f->sets.minimal) return "";
  std::string why = "the access sequences found no minimal eviction set (" +
                    (f->sets.note.empty() ? std::string("no set of lines shown to evict a line") : f->sets.note);
  for (const auto& ev : f->traces)
    if (!ev.stopped.empty() && ev.stopped != "no") why += "; " + ev.benchmark + ": search stopped: " + ev.stopped;
  return why + ")";
}

bool infer_from_sequences(CacheJob& job, const Capacity& cap, const std::shared_ptr<SeqFindings>& f, SeqUse use) {
  if (!f) return false;
  if (use != SeqUse::replacement) request_rerun(job, *f, cap);
  nlohmann::json& c = job.cache;
  const SeqStructure& s = f->sets;
  const std::uint64_t line = f->line;
  if (!s.has_set) {
    c["eviction_set"] = {{"note", s.note}};
    return false;
  }
  write_eviction_set(c, s);
  if (!s.minimal || line == 0) return false;
  const SeqPolicy& p = f->policy;
  write_seq_replacement(job, s, p);
  if (p.candidates > 0) {
    std::vector<std::string> all;
    for (const auto& k : p.classes) all.insert(all.end(), k.begin(), k.end());
    for (const auto& n : p.consistent)
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
    job.seq_consistent = all;
  }
  if (use == SeqUse::replacement) return false;
  // The capacity with the ways and policy found (a fit of the whole miss-rate curve), then the sets.
  std::vector<SetModel> models;
  for (const auto& n : p.consistent) models.push_back({n, static_cast<std::uint32_t>(s.eviction_set.size()), {}});
  if (!models.empty()) fit_capacity_to_policy(job, cap, models);
  return write_seq_sets(job, cap, s, line, use == SeqUse::partial);
}

}  // namespace memhier::analysis
