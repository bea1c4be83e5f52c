// The simulated whole L2 of the l2_evsets family (sim/l2_evsets.hpp).
#include "sim/l2_evsets.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/policy.hpp"

namespace memhier::sim {
namespace {

using json = nlohmann::json;

constexpr std::uint64_t kMaxLines = std::uint64_t{1} << 22;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("l2_evsets: " + what); }

std::uint64_t mix(std::uint64_t z) { return policy::splitmix64_mix(z); }

std::uint64_t get_uint(const json& j, const char* k, std::uint64_t dflt, std::uint64_t lo, std::uint64_t hi) {
  if (!j.contains(k)) return dflt;
  if (!j[k].is_number_integer() || (!j[k].is_number_unsigned() && j[k].get<std::int64_t>() < 0)) fail(std::string("'") + k + "' must be a non-negative integer");
  const std::uint64_t v = j[k].get<std::uint64_t>();
  if (v < lo || v > hi)
    fail(std::string("'") + k + "' must be in " + std::to_string(lo) + " ... " + std::to_string(hi) + " (not " +
         std::to_string(v) + ")");
  return v;
}

}  // namespace

L2EvsetsModel parse_l2_evsets_model(const json& j) {
  if (!j.is_object()) fail("must be an object");
  static const char* known[] = {"ways", "sets", "line_bytes", "index", "policy", "seed", "readout_works",
                                "pinned_fraction", "hit_cycles", "miss_cycles"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) fail("unknown key '" + it.key() + "'");
  }
  if (!j.contains("ways")) fail("missing 'ways'");
  if (!j.contains("sets")) fail("missing 'sets'");
  L2EvsetsModel m;
  m.present = true;
  m.ways = static_cast<std::uint32_t>(get_uint(j, "ways", 16, 1, 64));
  m.sets = get_uint(j, "sets", 1, 1, std::uint64_t{1} << 32);
  if (m.sets * m.ways > kMaxLines)  // the pool, up to 8 x the L2, is held position by position
    fail("'sets' x 'ways' must be at most " + std::to_string(kMaxLines) + " lines (a 512 MiB L2)");
  m.line_bytes = get_uint(j, "line_bytes", 128, 0, UINT64_MAX);
  if (m.line_bytes != 128) fail("'line_bytes' must be 128 (the family's line)");
  m.seed = get_uint(j, "seed", 1, 0, UINT64_MAX);
  if (j.contains("index")) {
    if (!j["index"].is_string()) fail("'index' must be \"modulo\" or \"hash\"");
    m.index = j["index"].get<std::string>();
    if (m.index != "modulo" && m.index != "hash") fail("'index' must be \"modulo\" or \"hash\" (not \"" + m.index + "\")");
  }
  if (j.contains("policy")) {
    if (!j["policy"].is_string()) fail("'policy' must be a replacement policy's name");
    const std::string name = j["policy"].get<std::string>();
    m.policy = policy::canonical_policy_name(name);
    if (m.policy.empty()) fail("unknown replacement policy '" + name + "'");
  }
  if (j.contains("readout_works")) {
    if (!j["readout_works"].is_boolean()) fail("'readout_works' must be true or false");
    m.readout_works = j["readout_works"].get<bool>();
  }
  if (j.contains("pinned_fraction")) {
    if (!j["pinned_fraction"].is_number()) fail("'pinned_fraction' must be a number in [0, 1]");
    m.pinned_fraction = j["pinned_fraction"].get<double>();
    if (!(m.pinned_fraction >= 0 && m.pinned_fraction <= 1)) fail("'pinned_fraction' must be in [0, 1]");
  }
  m.hit_cycles = static_cast<std::uint32_t>(get_uint(j, "hit_cycles", m.hit_cycles, 1, 1000000));
  m.miss_cycles = static_cast<std::uint32_t>(get_uint(j, "miss_cycles", m.miss_cycles, 1, 1000000));
  if (m.miss_cycles <= m.hit_cycles) fail("'miss_cycles' must exceed 'hit_cycles'");
  std::string problem = policy::policy_ways_problem(m.policy, m.ways);
  if (!problem.empty()) fail(problem);
  if (m.pinned_fraction > 0) {  // a pinned set is simulated with ways - 1 ways
    if (m.ways < 2) fail("a 'pinned_fraction' above 0 needs at least 2 ways");
    problem = policy::policy_ways_problem(m.policy, m.ways - 1);
    if (!problem.empty()) fail("pinned sets offer ways - 1 ways: " + problem);
  }
  return m;
}

std::uint64_t evset_set_of(const L2EvsetsModel& m, std::uint64_t line) {
  if (m.index == "hash") return mix(line ^ mix(m.seed)) % m.sets;
  return line % m.sets;
}

bool evset_set_pinned(const L2EvsetsModel& m, std::uint64_t set) {
  if (m.pinned_fraction <= 0) return false;
  const double u = policy::unit_interval(mix(mix(m.seed ^ 0x5EEDF1ull) ^ set));
  return u < m.pinned_fraction;
}

std::uint32_t evset_ways_offered(const L2EvsetsModel& m, std::uint64_t set) {
  return evset_set_pinned(m, set) ? m.ways - 1 : m.ways;
}

namespace {

// One set as the family's kernels find it: full of older (junk) lines installed in order, one way
// fewer where a line is pinned.
class SetSim {
 public:
  // empty: the set starts with no line (the policy sequences' reset), else full of junk lines.
  SetSim(const L2EvsetsModel& m, std::uint64_t set, std::uint64_t draw_seed, bool empty = false)
      : tag_(evset_ways_offered(m, set), INT64_MIN) {
    policy::RandomParams rnd;
    rnd.seed = draw_seed;
    p_ = policy::make_policy(m.policy, static_cast<std::uint32_t>(tag_.size()), rnd);
    if (!empty)
      for (std::size_t k = 0; k < tag_.size(); ++k) access(-1 - static_cast<std::int64_t>(k));
  }
  // Reads or writes `line`; true on a hit.
  bool access(std::int64_t line) {
    auto it = std::find(tag_.begin(), tag_.end(), line);
    if (it != tag_.end()) {
      p_->on_hit(static_cast<std::uint32_t>(it - tag_.begin()));
      return true;
    }
    const std::uint32_t w = p_->victim();
    tag_[w] = line;
    p_->on_fill(w);
    return false;
  }
  bool resident(std::int64_t line) const { return std::find(tag_.begin(), tag_.end(), line) != tag_.end(); }

 private:
  std::vector<std::int64_t> tag_;  // line ids; junk -1 ... -ways, the family's lines >= 0
  std::unique_ptr<policy::SetPolicy> p_;
};

std::uint64_t draw_seed(const L2EvsetsModel& m, std::uint64_t test_no, std::uint64_t set) {
  return mix(mix(mix(m.seed) ^ test_no) ^ set);
}

// The sets a read touches, each set up on its first access (junk-full, or empty for the policy
// sequences), its draws from (seed, draw_no, set).
class TouchedSets {
 public:
  TouchedSets(const L2EvsetsModel& m, std::uint64_t draw_no, bool empty) : m_(m), draw_no_(draw_no), empty_(empty) {}
  // Reads `line`; true on a hit.
  bool access(std::uint64_t line) {
    const std::uint64_t set = evset_set_of(m_, line);
    auto it = sets_.find(set);
    if (it == sets_.end()) it = sets_.emplace(set, SetSim(m_, set, draw_seed(m_, draw_no_, set), empty_)).first;
    return it->second.access(static_cast<std::int64_t>(line));
  }

 private:
  const L2EvsetsModel& m_;
  std::uint64_t draw_no_;
  bool empty_;
  std::map<std::uint64_t, SetSim> sets_;
};

}  // namespace

bool evset_test(const L2EvsetsModel& m, std::uint64_t target_line, const std::vector<std::uint64_t>& congruent_in_order,
                int passes, std::uint64_t test_no) {
  const std::uint64_t set = evset_set_of(m, target_line);
  SetSim s(m, set, draw_seed(m, test_no, set));
  const auto target = static_cast<std::int64_t>(target_line);
  s.access(target);
  for (int pass = 0; pass < passes; ++pass)
    for (std::uint64_t line : congruent_in_order) s.access(static_cast<std::int64_t>(line));
  return !s.resident(target);
}

std::vector<std::uint32_t> evset_cycle(const L2EvsetsModel& m, const std::vector<std::uint64_t>& thrash,
                                       const std::vector<std::uint64_t>& lines, int rounds, std::uint64_t test_no) {
  TouchedSets sets(m, test_no, false);
  for (int r = 0; r < 3; ++r)
    for (std::uint64_t line : thrash) sets.access(line);
  std::vector<std::uint32_t> cycles(lines.size(), 0);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const bool hit = sets.access(lines[i]);
      if (r + 1 == rounds) cycles[i] = hit ? m.hit_cycles : m.miss_cycles;
    }
  return cycles;
}

std::vector<std::vector<std::uint32_t>> evset_sequences(const L2EvsetsModel& m,
                                                        const std::vector<std::vector<std::uint64_t>>& seqs,
                                                        std::uint64_t test_no) {
  std::vector<std::vector<std::uint32_t>> out;
  for (std::size_t q = 0; q < seqs.size(); ++q) {
    TouchedSets sets(m, mix(test_no) ^ q, true);
    out.emplace_back();
    for (std::uint64_t line : seqs[q]) out.back().push_back(sets.access(line) ? m.hit_cycles : m.miss_cycles);
  }
  return out;
}

}  // namespace memhier::sim
