#include "common/policy.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace memhier::policy {
namespace {

bool pow2(std::uint32_t x) { return x && !(x & (x - 1)); }

// Recency by time stamps: LRU stamps on every use, FIFO on insertion only.
class StampPolicy final : public SetPolicy {
 public:
  StampPolicy(std::string name, bool stamp_hits) : SetPolicy(std::move(name)), stamp_hits_(stamp_hits) {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    stamp_.assign(ways, 0);
    clock_ = 0;
  }
  void on_hit(std::uint32_t way) override {
    if (stamp_hits_) stamp_[way] = ++clock_;
  }
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    return static_cast<std::uint32_t>(std::min_element(stamp_.begin(), stamp_.end()) - stamp_.begin());
  }
  void on_fill(std::uint32_t way) override {
    note_fill(way);
    stamp_[way] = ++clock_;
  }

 private:
  bool stamp_hits_;
  std::vector<std::uint64_t> stamp_;
  std::uint64_t clock_ = 0;
};

// Tree-PLRU over a power-of-two number of ways: heap-ordered node bits (node 1 is the root); a
// node's bit says which half holds the next victim (0 left, 1 right); a use points every node on
// its path away from the way used.
class TreePlru final : public SetPolicy {
 public:
  TreePlru(std::string name, bool linear_fill) : SetPolicy(std::move(name)), linear_fill_(linear_fill) {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    bits_ = 0;
  }
  void on_hit(std::uint32_t way) override { point_away(way); }
  std::uint32_t victim() override {
    if (linear_fill_ && !full()) return empty_way();
    std::uint32_t node = 1;
    while (node < ways()) node = 2 * node + static_cast<std::uint32_t>((bits_ >> node) & 1u);
    return node - ways();
  }
  void on_fill(std::uint32_t way) override {
    note_fill(way);
    point_away(way);
  }

 private:
  void point_away(std::uint32_t way) {
    std::uint32_t node = 1, lo = 0, size = ways();
    while (size > 1) {
      size >>= 1;
      if (way >= lo + size) {
        bits_ &= ~(1ull << node);
        lo += size;
        node = 2 * node + 1;
      } else {
        bits_ |= 1ull << node;
        node = 2 * node;
      }
    }
  }
  bool linear_fill_;
  std::uint64_t bits_ = 0;
};

// Bit-PLRU (MRU bits): a use sets the way's bit; when every bit is set, all but that way's are
// cleared; the victim is the lowest way whose bit is clear. `update_while_filling` false: no bit
// changes while the set is not full (nanoBench MRU_N).
class BitPlru final : public SetPolicy {
 public:
  BitPlru(std::string name, bool update_while_filling)
      : SetPolicy(std::move(name)), update_while_filling_(update_while_filling) {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    used_.assign(ways, 0);
  }
  void on_hit(std::uint32_t way) override { use(way, full()); }
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    auto it = std::find(used_.begin(), used_.end(), 0);
    return it == used_.end() ? 0 : static_cast<std::uint32_t>(it - used_.begin());  // one way: always set
  }
  void on_fill(std::uint32_t way) override {
    const bool was_full = full();
    note_fill(way);
    use(way, was_full);
  }

 private:
  void use(std::uint32_t way, bool was_full) {
    if (was_full || update_while_filling_) used_[way] = 1;
    if (std::find(used_.begin(), used_.end(), 0) == used_.end()) {
      std::fill(used_.begin(), used_.end(), 0);
      used_[way] = 1;
    }
  }
  bool update_while_filling_;
  std::vector<std::uint8_t> used_;
};

// NRU (Jaleel et al., ISCA 2010): a bit per way, 1 = not recently used. A hit clears the way's
// bit; a miss first sets every bit when none is set, then replaces the lowest way whose bit is set
// and clears it.
class Nru final : public SetPolicy {
 public:
  Nru() : SetPolicy("nru") {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    nru_.assign(ways, 1);
  }
  void on_hit(std::uint32_t way) override { nru_[way] = 0; }
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    auto it = std::find(nru_.begin(), nru_.end(), 1);
    return it == nru_.end() ? 0 : static_cast<std::uint32_t>(it - nru_.begin());
  }
  void on_fill(std::uint32_t way) override {
    note_fill(way);
    if (std::find(nru_.begin(), nru_.end(), 1) == nru_.end()) std::fill(nru_.begin(), nru_.end(), 1);
    nru_[way] = 0;
  }

 private:
  std::vector<std::uint8_t> nru_;
};

// Segmented LRU (Karedla et al., 1994; see policy.hpp): recency stamps per way and a protected
// flag; at most floor(W/2) ways are protected (so a full set always has a probationary way: the
// victim is its least recently used one).
class Slru final : public SetPolicy {
 public:
  // protect: the protected segment's lines (0: floor(W/2), the plain "slru").
  Slru(std::string name, std::uint32_t protect) : SetPolicy(std::move(name)), protect_(protect) {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    limit_ = protect_ ? protect_ : ways / 2;
    stamp_.assign(ways, 0);
    prot_.assign(ways, 0);
    clock_ = 0;
  }
  void on_hit(std::uint32_t way) override {
    stamp_[way] = ++clock_;
    if (prot_[way]) return;
    prot_[way] = 1;
    if (static_cast<std::uint32_t>(std::count(prot_.begin(), prot_.end(), 1)) <= limit_) return;
    const std::uint32_t lru = oldest(1);  // demoted to the probationary MRU end
    prot_[lru] = 0;
    stamp_[lru] = ++clock_;
  }
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    return oldest(0);
  }
  void on_fill(std::uint32_t way) override {
    note_fill(way);
    prot_[way] = 0;
    stamp_[way] = ++clock_;
  }
  bool repeat_hit_is_noop() const override { return false; }  // a second access promotes a new line

 private:
  // The least recently used way of the segment (protected or not).
  std::uint32_t oldest(std::uint8_t prot) const {
    std::uint32_t best = 0;
    bool any = false;
    for (std::uint32_t w = 0; w < stamp_.size(); ++w)
      if (prot_[w] == prot && (!any || stamp_[w] < stamp_[best])) best = w, any = true;
    return best;
  }
  std::vector<std::uint64_t> stamp_;
  std::vector<std::uint8_t> prot_;
  std::uint64_t clock_ = 0;
  std::uint32_t protect_ = 0, limit_ = 0;
};

// slru_p<K>: K protected lines (K >= 1); false where `s` is no such name.
bool parse_slru(const std::string& s, std::uint32_t* k) {
  if (s.rfind("slru_p", 0) != 0 || s.size() == 6 || s.size() > 9) return false;
  const std::string d = s.substr(6);
  if (d.find_first_not_of("0123456789") != std::string::npos || d[0] == '0') return false;
  *k = static_cast<std::uint32_t>(std::stoul(d));
  return true;
}

// QLRU parameters (see policy.hpp).
struct QlruParams {
  std::uint8_t hit[4];  // new age after a hit, by old age
  std::uint8_t insert_age;
  int victim_rule;  // 0, 1, 2
  int update_rule;  // 0..3
  bool update_on_miss_only;
  bool bimodal = false;  // BRRIP: insert at age 2 with probability 1/32 instead of insert_age (3)
};

class Qlru final : public SetPolicy {
 public:
  Qlru(std::string name, QlruParams p, const RandomParams& r = {})
      : SetPolicy(std::move(name), p.victim_rule == 2), p_(p), rnd_(r), own_(r.seed) {}
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    age_.assign(ways, 3);
    own_.reseed(rnd_.seed);
  }
  void on_hit(std::uint32_t way) override {
    age_[way] = p_.hit[age_[way]];
    if (!p_.update_on_miss_only) update(age_, way);
  }
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    const std::vector<std::uint8_t>* a = &age_;
    if (p_.update_on_miss_only) {  // the ages the miss's update will leave (scratch_ avoids an allocation)
      scratch_ = age_;
      update(scratch_, kNoWay);
      a = &scratch_;
    }
    auto it = std::find(a->begin(), a->end(), 3);
    // r0/r2 always find an age of 3 (the update rules they combine with guarantee one)
    return it == a->end() ? 0 : static_cast<std::uint32_t>(it - a->begin());
  }
  void on_fill(std::uint32_t way) override {
    note_fill(way);
    if (p_.update_on_miss_only) update(age_, kNoWay);
    age_[way] = p_.insert_age;
    if (p_.bimodal && (rnd_.shared_rng ? *rnd_.shared_rng : own_).uniform() < 1.0 / 32) age_[way] = 2;
    if (!p_.update_on_miss_only) update(age_, way);
  }
  bool repeat_hit_is_noop() const override { return false; }
  bool deterministic() const override { return !p_.bimodal; }

 private:
  static constexpr std::uint32_t kNoWay = 0xFFFFFFFFu;
  // u0/u1: age so that the oldest (of all, or of all but `way`) is 3; u2/u3: age by one when no
  // way (of all, or of all but `way`) is 3. kNoWay: no way is left out.
  void update(std::vector<std::uint8_t>& a, std::uint32_t way) const {
    const bool skip = p_.update_rule == 1 || p_.update_rule == 3;
    std::uint8_t mx = 0;
    bool any = false;
    for (std::uint32_t w = 0; w < a.size(); ++w)
      if (!(skip && w == way)) {
        mx = std::max(mx, a[w]);
        any = true;
      }
    if (!any) return;
    std::uint8_t add = 0;
    if (p_.update_rule <= 1) add = static_cast<std::uint8_t>(3 - mx);
    else if (std::find(a.begin(), a.end(), 3) == a.end()) add = 1;  // u2/u3 look at every way
    if (!add) return;
    for (std::uint32_t w = 0; w < a.size(); ++w)
      if (!(skip && w == way)) a[w] = static_cast<std::uint8_t>(a[w] + add);
  }
  QlruParams p_;
  RandomParams rnd_;
  SplitMix64 own_;
  std::vector<std::uint8_t> age_, scratch_;
};

class RandomPolicy final : public SetPolicy {
 public:
  RandomPolicy(const RandomParams& r, std::uint32_t ways) : SetPolicy("random"), rnd_(r), own_(r.seed) {
    if (!r.weights.empty() && r.weights.size() < ways)
      throw std::invalid_argument("random replacement has " + std::to_string(r.weights.size()) +
                                  " weights for " + std::to_string(ways) + " ways");
  }
  void reset(std::uint32_t ways) override {
    reset_fill(ways);
    cum_.resize(ways);
    double acc = 0;
    for (std::uint32_t w = 0; w < ways; ++w) cum_[w] = acc += rnd_.weights.empty() ? 1.0 : rnd_.weights[w];
    own_.reseed(rnd_.seed);
  }
  void on_hit(std::uint32_t) override {}
  std::uint32_t victim() override {
    if (!full()) return empty_way();
    SplitMix64& g = rnd_.shared_rng ? *rnd_.shared_rng : own_;
    const double u = g.uniform() * cum_.back();
    for (std::uint32_t w = 0; w < cum_.size(); ++w)
      if (u < cum_[w]) return w;
    return static_cast<std::uint32_t>(cum_.size() - 1);
  }
  void on_fill(std::uint32_t way) override { note_fill(way); }
  bool deterministic() const override { return false; }

 private:
  RandomParams rnd_;
  SplitMix64 own_;
  std::vector<double> cum_;
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Parses "qlru_hXY_mZ_rR_uU[_umo]"; false when `s` is not a defined variant.
bool parse_qlru(const std::string& s, QlruParams* p) {
  static const struct {
    const char* code;
    std::uint8_t map[4];
  } kHits[] = {{"h21", {0, 0, 1, 2}}, {"h20", {0, 0, 0, 2}}, {"h11", {0, 0, 1, 1}},
               {"h10", {0, 0, 0, 1}}, {"h00", {0, 0, 0, 0}}};
  if (s.size() < 17 || s.compare(0, 5, "qlru_") != 0) return false;
  const std::string h = s.substr(5, 3);
  bool found = false;
  for (const auto& k : kHits)
    if (h == k.code) {
      std::copy(k.map, k.map + 4, p->hit);
      found = true;
    }
  if (!found || s[8] != '_' || s[9] != 'm' || s[10] < '0' || s[10] > '3' || s[11] != '_' || s[12] != 'r' ||
      s[13] < '0' || s[13] > '2' || s[14] != '_' || s[15] != 'u' || s[16] < '0' || s[16] > '3')
    return false;
  p->insert_age = static_cast<std::uint8_t>(s[10] - '0');
  p->victim_rule = s[13] - '0';
  p->update_rule = s[16] - '0';
  const std::string rest = s.substr(17);
  if (rest != "" && rest != "_umo") return false;
  p->update_on_miss_only = rest == "_umo";
  return !(p->victim_rule != 1 && p->update_rule >= 2);
}

const char* const kAliases[][2] = {
    {"tree_plru", "plru"}, {"tree-plru", "plru"}, {"plrul", "plru"}, {"mru", "bit_plru"},
    {"mru_n", "bit_plru_n"}, {"bit-plru", "bit_plru"}, {"srrip", "srrip"}};

}  // namespace

std::string canonical_policy_name(const std::string& name) {
  const std::string s = lower(name);
  for (const char* n : {"lru", "fifo", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "slru", "random", "srrip", "brrip"})
    if (s == n) return s;
  for (const auto& a : kAliases)
    if (s == a[0]) return a[1];
  std::uint32_t k = 0;
  if (parse_slru(s, &k)) return s;
  QlruParams p;
  return parse_qlru(s, &p) ? s : "";
}

std::string policy_ways_problem(const std::string& name, std::uint32_t ways) {
  const std::string c = canonical_policy_name(name);
  if (c.empty()) return "unknown replacement policy '" + name + "'";
  if (ways == 0) return "a set needs at least one way";
  if ((c == "plru" || c == "plru_tree") && (!pow2(ways) || ways > 64))
    return "tree-PLRU needs a power-of-two number of ways, at most 64 (not " + std::to_string(ways) + ")";
  std::uint32_t k = 0;
  if (parse_slru(c, &k) && k >= ways)
    return c + " protects " + std::to_string(k) + " lines: it needs more ways than that (not " + std::to_string(ways) + ")";
  return "";
}

bool policy_is_deterministic(const std::string& name) {
  const std::string c = canonical_policy_name(name);
  return c != "random" && c != "brrip";
}

std::unique_ptr<SetPolicy> make_policy(const std::string& name, std::uint32_t ways, const RandomParams& rnd) {
  const std::string problem = policy_ways_problem(name, ways);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const std::string c = canonical_policy_name(name);
  std::unique_ptr<SetPolicy> p;
  QlruParams q;
  if (c == "lru") p = std::make_unique<StampPolicy>(c, true);
  else if (c == "fifo") p = std::make_unique<StampPolicy>(c, false);
  else if (c == "plru") p = std::make_unique<TreePlru>(c, true);
  else if (c == "plru_tree") p = std::make_unique<TreePlru>(c, false);
  else if (c == "bit_plru") p = std::make_unique<BitPlru>(c, true);
  else if (c == "bit_plru_n") p = std::make_unique<BitPlru>(c, false);
  else if (c == "nru") p = std::make_unique<Nru>();
  else if (c == "slru") p = std::make_unique<Slru>(c, 0);
  else if (std::uint32_t k = 0; parse_slru(c, &k)) p = std::make_unique<Slru>(c, k);
  else if (c == "random") p = std::make_unique<RandomPolicy>(rnd, ways);
  else if (c == "srrip") {
    parse_qlru("qlru_h00_m2_r0_u0_umo", &q);
    p = std::make_unique<Qlru>(c, q);
  } else if (c == "brrip") {
    parse_qlru("qlru_h00_m3_r0_u0_umo", &q);
    q.bimodal = true;
    p = std::make_unique<Qlru>(c, q, rnd);
  } else {
    parse_qlru(c, &q);
    p = std::make_unique<Qlru>(c, q);
  }
  p->reset(ways);
  return p;
}

std::vector<std::string> candidate_policies(std::uint32_t ways, bool all_qlru) {
  std::vector<std::string> names = {"lru", "fifo", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "slru"};
  if (all_qlru) {
    // segmented LRU with every other size of the protected segment (slru protects floor(W/2))
    for (std::uint32_t k = 1; k < ways; ++k)
      if (k != ways / 2) names.push_back("slru_p" + std::to_string(k));
    for (const char* h : {"h21", "h20", "h11", "h10", "h00"})
      for (int m = 0; m <= 3; ++m)
        for (int r = 0; r <= 2; ++r)
          for (int u = 0; u <= 3; ++u)
            for (const char* umo : {"", "_umo"}) {
              if (r != 1 && u >= 2) continue;
              names.push_back(std::string("qlru_") + h + "_m" + std::to_string(m) + "_r" + std::to_string(r) +
                              "_u" + std::to_string(u) + umo);
            }
  } else {
    for (const char* n : {"qlru_h11_m1_r0_u0", "qlru_h21_m2_r0_u0_umo", "qlru_h11_m1_r1_u2", "qlru_h00_m1_r2_u1",
                          "qlru_h00_m1_r0_u1", "srrip"})
      names.push_back(n);
  }
  names.push_back("random");
  names.push_back("brrip");
  std::vector<std::string> out;
  for (auto& n : names)
    if (policy_ways_problem(n, ways).empty()) out.push_back(n);
  return out;
}

std::vector<std::string> candidates_in_decision_order(std::uint32_t ways) {
  std::vector<std::string> out, stochastic;
  std::set<std::string> seen;
  for (bool all : {false, true})
    for (const auto& n : candidate_policies(ways, all)) {
      if (!seen.insert(n).second) continue;
      (policy_is_deterministic(n) ? out : stochastic).push_back(n);
    }
  out.insert(out.end(), stochastic.begin(), stochastic.end());
  return out;
}

namespace {
// One run of `lines` through a set driven by `p` (reset first).
std::vector<bool> run_set(SetPolicy& p, std::uint32_t ways, const std::vector<std::int64_t>& lines) {
  std::vector<std::int64_t> tag(ways);
  std::vector<std::uint8_t> valid(ways, 0);
  std::vector<bool> hits;
  hits.reserve(lines.size());
  p.reset(ways);
  for (std::int64_t line : lines) {
    std::uint32_t w = 0;
    while (w < ways && !(valid[w] && tag[w] == line)) ++w;
    if (w < ways) {
      p.on_hit(w);
      hits.push_back(true);
      continue;
    }
    w = p.victim();
    tag[w] = line;
    valid[w] = 1;
    p.on_fill(w);
    hits.push_back(false);
  }
  return hits;
}
}  // namespace

std::vector<bool> simulate_set(const std::string& policy, std::uint32_t ways, const std::vector<std::int64_t>& lines) {
  if (!policy_is_deterministic(policy))
    throw std::invalid_argument("simulate_set: '" + policy + "' is randomized; use hit_probability");
  auto p = make_policy(policy, ways);
  return run_set(*p, ways, lines);
}

std::vector<double> hit_probability(const std::string& policy, std::uint32_t ways,
                                    const std::vector<std::int64_t>& lines, unsigned runs, std::uint64_t seed,
                                    const std::vector<double>& weights) {
  std::vector<double> prob(lines.size(), 0.0);
  if (runs == 0) return prob;
  for (unsigned r = 0; r < runs; ++r) {
    RandomParams rnd;
    rnd.weights = weights;
    rnd.seed = seed + r;
    auto p = make_policy(policy, ways, rnd);
    const auto hits = run_set(*p, ways, lines);
    for (std::size_t k = 0; k < hits.size(); ++k) prob[k] += hits[k] ? 1.0 : 0.0;
  }
  for (auto& x : prob) x /= runs;
  return prob;
}

}  // namespace memhier::policy
