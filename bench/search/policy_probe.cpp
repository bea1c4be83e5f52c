#include "bench/search/policy_probe.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "common/policy.hpp"
#include "common/sequence_policy.hpp"

namespace memhier::seqsearch {

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

Tags base_tags(const Design& d) {
  return {{"step", "policy"}, {"ways", std::to_string(d.l.set.size())}, {"lines", "distinct"},
          {"target", hex(d.l.target)}};
}

// One age experiment: repetitions that fill the set, insert `inserted`, and probe one filled line.
bool run_ages(Session& s, const Design& d, const Lines& inserted, PolicyProbe& out, std::size_t n) {
  const std::uint32_t W = static_cast<std::uint32_t>(d.l.set.size());
  const std::size_t runs_per_repeat = d.clear.size() + W + inserted.size() + 2;
  const std::size_t reps = std::clamp<std::size_t>(s.max_runs() / runs_per_repeat, 1, std::min<std::size_t>(W, 16));
  std::vector<std::vector<BodyAccess>> bodies(reps);
  for (std::size_t r = 0; r < reps; ++r) {
    for (std::uint64_t x : d.l.set) bodies[r].push_back({x, kUntimed});
    for (std::uint64_t x : inserted) bodies[r].push_back({x, kUntimed});
    bodies[r].push_back({d.l.set[r % W], static_cast<std::uint32_t>(r % W)});
  }
  const AccessSequence seq =
      policy_rounds(d.start_empty ? Lines{} : d.clear, d.clear, bodies, W, d.path, d.threshold);
  Tags tags = base_tags(d);
  tags["kind"] = "age";
  tags["fresh"] = std::to_string(n);
  tags["repeats"] = std::to_string(reps);
  auto rec = s.run(seq, tags);
  if (!rec) return false;
  ++out.experiments;
  keep_consistent(&out.consistent, W, seq, *rec);
  return !stopped(s);
}

// Numbers of fresh lines the age experiments insert: 0 … W + 1 for up to 16 ways, else 0-3,
// every eighth of W, and W - 1 … W + 1.
std::vector<std::size_t> age_points(std::size_t W) {
  std::vector<std::size_t> n;
  for (std::size_t k = 0; k <= W + 1; ++k)
    if (W <= 16 || k <= 3 || k + 1 >= W || k % std::max<std::size_t>(1, W / 8) == 0) n.push_back(k);
  return n;
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
  Tags base = base_tags(d);
  base["repeats"] = std::to_string(d.repeats);
  auto run = [&](const Lines& body, const std::vector<bool>& timed, Tags tags) {  // same body each repetition
    const AccessSequence seq = experiment(d, body, timed);
    for (const auto& [k, v] : base) tags[k] = v;
    auto rec = s.run(seq, tags);
    if (!rec) return false;
    ++out.experiments;
    keep_consistent(&out.consistent, W, seq, *rec);
    return true;
  };
  // Ages (nanoBench): fill with the set's W lines, insert n fresh lines, probe one of the W lines
  // (line r in repetition r, at most 16 of them; slot = the line).
  for (std::size_t n : age_points(W)) {
    if (n > fresh.size()) break;
    const Lines inserted(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(n));
    if (!run_ages(s, d, inserted, out, n)) return out;
  }
  // Splitting sequences (up to 64 ways: beyond, the candidates' simulation costs too much).
  if (W > 64) return out;
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
