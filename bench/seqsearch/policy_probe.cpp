#include "bench/seqsearch/policy_probe.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "common/policy.hpp"

namespace memhier::seqsearch {

std::vector<std::uint32_t> predict_misses(const std::string& policy, std::uint32_t ways, const AccessSequence& seq) {
  std::unordered_map<std::uint64_t, std::int64_t> id;
  std::vector<std::int64_t> lines;
  std::vector<std::uint32_t> slots;
  for_each_access(
      seq,
      [&](std::uint64_t offset, std::uint8_t, std::uint32_t slot) {
        lines.push_back(id.emplace(offset, static_cast<std::int64_t>(id.size())).first->second);
        slots.push_back(slot);
      },
      [] {});
  const std::vector<bool> hits = policy::simulate_set(policy, ways, lines);
  std::vector<std::uint32_t> misses(seq.slots, 0);
  for (std::size_t k = 0; k < hits.size(); ++k)
    if (slots[k] != kUntimed && !hits[k]) ++misses[slots[k]];
  return misses;
}

namespace {

struct Design {
  const PolicyLines& l;
  std::uint8_t path;
  std::uint32_t threshold;
  unsigned repeats;
  bool start_empty;
  Lines clear;  // the clearing prefix: W lines of the set not used in bodies
};

AccessSequence experiment(const Design& d, const Lines& body, const std::vector<bool>& timed) {
  return policy_experiment(d.start_empty ? Lines{} : d.clear, d.clear, body, timed, d.repeats, d.path, d.threshold);
}

// Distinct outcome vectors the consistent candidates predict for `seq`.
std::size_t split_of(const std::vector<std::string>& cands, std::uint32_t ways, const AccessSequence& seq) {
  std::set<std::vector<std::uint32_t>> outcomes;
  for (const auto& c : cands) outcomes.insert(predict_misses(c, ways, seq));
  return outcomes.size();
}

void keep_consistent(std::vector<std::string>* cands, std::uint32_t ways, const AccessSequence& seq,
                     const std::vector<std::uint32_t>& measured) {
  std::vector<std::string> keep;
  for (const auto& c : *cands)
    if (predict_misses(c, ways, seq) == measured) keep.push_back(c);
  *cands = std::move(keep);
}

// A random body over `pool` that splits the candidates most (first of the best among `tries`).
Lines best_body(const std::vector<std::string>& cands, const Design& d, const Lines& pool, std::size_t length,
                policy::SplitMix64& rng, unsigned tries) {
  Lines best;
  std::size_t best_split = 0;
  const std::vector<bool> all(length, true);
  for (unsigned t = 0; t < tries; ++t) {
    Lines body;
    for (std::size_t k = 0; k < length; ++k) body.push_back(pool[rng.next() % pool.size()]);
    const std::size_t sp = split_of(cands, static_cast<std::uint32_t>(d.l.set.size()), experiment(d, body, all));
    if (sp > best_split) {
      best_split = sp;
      best = body;
    }
  }
  return best_split > 1 ? best : Lines{};
}

}  // namespace

PolicyProbe probe_policy(Session& s, const PolicyLines& l, unsigned repeats, std::uint64_t seed, bool start_empty) {
  PolicyProbe out;
  const std::uint32_t W = static_cast<std::uint32_t>(l.set.size());
  if (W == 0 || l.fresh.size() < 2) return out;
  Design d{l, s.path_code(), s.threshold(), std::max(1u, repeats), start_empty, {}};
  const std::size_t n_clear = l.fresh.size() >= W + 2 ? W : 0;
  d.clear.assign(l.fresh.end() - static_cast<std::ptrdiff_t>(n_clear), l.fresh.end());
  const Lines fresh(l.fresh.begin(), l.fresh.end() - static_cast<std::ptrdiff_t>(n_clear));
  for (const auto& c : policy::candidate_policies(W))
    if (policy::policy_is_deterministic(c)) out.consistent.push_back(c);
  const Tags base = {{"step", "policy"}, {"ways", std::to_string(W)}, {"lines", "distinct"},
                     {"target", hex(l.target)}, {"repeats", std::to_string(d.repeats)}};
  auto run = [&](const Lines& body, const std::vector<bool>& timed, Tags tags) {
    const AccessSequence seq = experiment(d, body, timed);
    for (const auto& [k, v] : base) tags[k] = v;
    auto rec = s.run(seq, tags);
    if (!rec) return false;
    ++out.experiments;
    keep_consistent(&out.consistent, W, seq, *rec);
    return true;
  };
  // Ages: fill with the set's W lines, insert n fresh lines, probe the W lines.
  for (std::size_t n = 0; n <= std::min<std::size_t>(W + 1, fresh.size()); ++n) {
    Lines body = l.set;
    body.insert(body.end(), fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<bool> timed(body.size(), false);
    body.insert(body.end(), l.set.begin(), l.set.end());
    timed.resize(body.size(), true);
    if (!run(body, timed, {{"kind", "age"}, {"fresh", std::to_string(n)}}) || stopped(s)) return out;
  }
  // Splitting sequences over W + 3 lines.
  Lines pool = l.set;
  pool.push_back(l.target);
  pool.insert(pool.end(), fresh.begin(), fresh.begin() + std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(fresh.size())));
  policy::SplitMix64 rng(seed);
  for (unsigned k = 0; k < 8 && out.consistent.size() > 1 && !stopped(s); ++k) {
    const Lines body = best_body(out.consistent, d, pool, 3 * W, rng, 32);
    if (body.empty()) break;
    if (!run(body, std::vector<bool>(body.size(), true), {{"kind", "split"}})) break;
  }
  return out;
}

}  // namespace memhier::seqsearch
