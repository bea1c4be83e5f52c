#include "analysis/cache/sequences/sets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace memhier::analysis {

namespace {

const EvictionTest* find_test(const SeqEvidence& ev, std::uint64_t victim, const std::vector<std::uint64_t>& set) {
  for (const auto& t : ev.tests)
    if (t.victim == victim && t.set == set) return &t;
  return nullptr;
}

// Evicting sets with every one-line-smaller subset tested and not evicting; the smallest wins.
// None confirmed: the smallest evicting set (an upper bound).
void minimal_set(const SeqEvidence& ev, SeqStructure& s) {
  const EvictionTest* best = nullptr;
  bool best_min = false;
  for (const auto& t : ev.tests) {
    if (!evicted(t)) continue;
    bool minimal = true;
    for (std::size_t i = 0; i < t.set.size() && minimal; ++i) {
      std::vector<std::uint64_t> sub = t.set;
      sub.erase(sub.begin() + static_cast<std::ptrdiff_t>(i));
      const EvictionTest* u = find_test(ev, t.victim, sub);
      minimal = u && not_evicted(*u);
    }
    if (!best || (minimal && !best_min) || (minimal == best_min && t.set.size() < best->set.size())) {
      best = &t;
      best_min = minimal;
    }
  }
  if (!best) return;
  s.has_set = true;
  s.minimal = best_min;
  s.target = best->victim;
  s.eviction_set = best->set;
}

// The line bit: the given line, else the lowest bit whose flip of the target is known to leave the set.
unsigned line_bit_of(std::uint64_t line_bytes) {
  unsigned b = 0;
  while ((1ull << b) < line_bytes) ++b;
  return b;
}

struct UnionFind {
  std::map<std::uint64_t, std::uint64_t> parent;
  std::uint64_t find(std::uint64_t x) {
    auto it = parent.find(x);
    if (it == parent.end()) return parent[x] = x;
    if (it->second == x) return x;
    return it->second = find(it->second);
  }
  void join(std::uint64_t a, std::uint64_t b) { parent[find(a)] = find(b); }
};

// Claims that two lines share a set: an evicting set of exactly W lines shares the victim's set (W
// lines of it are needed); so do the lines an insertion evicted. A claim is strong when it rests on
// two or more misses (noise that only adds latency makes one miss now and then, never two in the
// same test), weak when on one (an insertion's probe, a single-miss test).
struct Claim {
  std::uint64_t a = 0, b = 0;  // line addresses >> line bit
  bool strong = false;
};

std::vector<Claim> congruence_claims(const SeqEvidence& ev, const SeqStructure& s, unsigned lb) {
  std::vector<Claim> out;
  const std::size_t W = s.eviction_set.size();
  for (const auto& t : ev.tests)
    if (evicted(t) && t.set.size() == W) {
      for (auto x : t.set) out.push_back({x >> lb, t.victim >> lb, t.misses >= 2});
      if (std::getenv("MEMHIER_DEBUG_SETS")) {
        std::fprintf(stderr, "TEST v %llx m %u r %u set", (unsigned long long)t.victim, t.misses, t.rounds);
        for (auto x : t.set) std::fprintf(stderr, " %llx", (unsigned long long)x);
        std::fprintf(stderr, "\n");
      }
    }
  for (const auto& ins : ev.insertions)
    for (auto x : ins.same_set) {
      out.push_back({x >> lb, ins.line >> lb, false});
      if (std::getenv("MEMHIER_DEBUG_SETS"))
        std::fprintf(stderr, "INS x %llx line %llx\n", (unsigned long long)x, (unsigned long long)ins.line);
    }
  return out;
}

// Where spurious misses are possible (noise > 0: an upper bound from the capacity sweep), a weak
// claim counts only when other claims corroborate its direction. Modulo the kernel K the strong claims
// span, the true weak claims fall on the few classes of the true kernel's extra directions, each many
// times (every insertion of the set gives several), while a spurious one (a pool line an outlier
// marked) falls on a class of its own. Greedily, the class most claims share joins K while more claims
// share it than chance makes false claims coincide (C(F, c) / 2^(d (c-1)) < kCoincidenceAlpha with F
// the claims alone in their class and d the dimension the weak claims span beyond K); the claims
// outside K at the end are dropped. Without noise every claim counts. Returns how many were dropped.
constexpr double kCoincidenceAlpha = 0.01;

std::size_t coincidence_threshold(std::size_t singletons, std::size_t dim) {
  const double F = static_cast<double>(std::max<std::size_t>(singletons, 1));
  for (double c = 2; c < 64; ++c) {
    if (c > F) return static_cast<std::size_t>(c);
    const double log_binom = std::lgamma(F + 1) - std::lgamma(c + 1) - std::lgamma(F - c + 1);
    if (log_binom - (c - 1) * static_cast<double>(dim) * std::log(2.0) < std::log(kCoincidenceAlpha))
      return static_cast<std::size_t>(c);
  }
  return 64;
}

std::size_t corroborate(std::vector<Claim>& claims, double noise) {
  if (noise <= 0) return 0;
  gf2::Basis k, all;
  std::vector<std::uint64_t> weak;
  for (const auto& c : claims) {
    all.add(c.a ^ c.b);
    if (c.strong) k.add(c.a ^ c.b);
    else weak.push_back(c.a ^ c.b);
  }
  const std::size_t dim = all.rank() - k.rank();
  for (;;) {
    std::map<std::uint64_t, std::size_t> classes;
    for (auto d : weak)
      if (const std::uint64_t r = k.reduce(d)) ++classes[r];
    if (classes.empty()) break;
    std::size_t singles = 0;
    auto best = classes.begin();
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      singles += it->second == 1 ? 1 : 0;
      if (it->second > best->second) best = it;
    }
    if (best->second < coincidence_threshold(singles, dim)) break;
    k.add(best->first);
  }
  const std::size_t before = claims.size();
  claims.erase(std::remove_if(claims.begin(), claims.end(), [&](const Claim& c) { return !c.strong && !k.contains(c.a ^ c.b); }),
               claims.end());
  if (std::getenv("MEMHIER_DEBUG_SETS"))
    std::fprintf(stderr, "claims %zu weak %zu dim %zu dropped %zu noise %g\n", before, weak.size(), dim, before - claims.size(), noise);
  return before - claims.size();
}

// Differences known to leave the target's set: a line the eviction set E (W congruent lines) did
// not evict.
std::vector<std::uint64_t> leaving(const SeqEvidence& ev, const SeqStructure& s, unsigned lb) {
  std::vector<std::uint64_t> out;
  for (const auto& t : ev.tests)
    if (not_evicted(t) && t.set == s.eviction_set && (t.victim >> lb) != (s.target >> lb)) {
      out.push_back((t.victim >> lb) ^ (s.target >> lb));
      if (std::getenv("MEMHIER_DEBUG_SETS"))
        std::fprintf(stderr, "LEAVE v %llx t %llx r %u\n", (unsigned long long)t.victim, (unsigned long long)s.target, t.rounds);
    }
  return out;
}

void index_matrix(const SeqEvidence& ev, SeqStructure& s, unsigned lb, double noise) {
  UnionFind uf;
  std::vector<Claim> claims = congruence_claims(ev, s, lb);
  s.uncorroborated = corroborate(claims, noise);
  for (const auto& c : claims) uf.join(c.a, c.b);
  std::map<std::uint64_t, std::vector<std::uint64_t>> classes;
  for (auto& [x, p] : uf.parent) classes[uf.find(x)].push_back(x);
  for (auto& [root, members] : classes)
    for (auto m : members) s.kernel.add(m ^ root);
  const std::uint64_t troot = uf.find(s.target >> lb);
  for (auto m : classes[troot]) s.same_set.push_back(m << lb);
  const auto out = leaving(ev, s, lb);
  s.other_lines = out.size();
  for (auto d : out) {
    s.contradictions += s.kernel.contains(d) ? 1 : 0;
    if (d && !(d & (d - 1))) s.leaving_bits.push_back(static_cast<unsigned>(__builtin_ctzll(d)) + lb);
  }
  std::sort(s.leaving_bits.begin(), s.leaving_bits.end());
  s.leaving_bits.erase(std::unique(s.leaving_bits.begin(), s.leaving_bits.end()), s.leaving_bits.end());
  unsigned top = 0;
  while (top < 63 && (2ull << top) < ev.array_bytes) ++top;  // highest bit inside the array
  s.line_bit = lb;
  s.top_bit = top;
  const std::uint64_t mask = top >= lb ? ((top - lb + 1 >= 64) ? ~0ull : ((1ull << (top - lb + 1)) - 1)) : 0;
  for (auto r : gf2::annihilator(s.kernel, mask)) s.rows.push_back(r << lb);
}

}  // namespace

SeqStructure analyze_sets(const std::vector<SeqEvidence>& traces, std::uint64_t line_bytes, double noise) {
  SeqStructure best;
  for (const auto& ev : traces) {
    SeqStructure s;
    s.benchmark = ev.benchmark;
    s.evidence = &ev;
    minimal_set(ev, s);
    if (!s.has_set) continue;
    if (s.minimal) index_matrix(ev, s, line_bit_of(line_bytes ? line_bytes : 1), noise);
    // The trace that tells most: a minimal set, then the most address bits decided.
    if (!best.has_set || (s.minimal && !best.minimal) ||
        (s.minimal == best.minimal && s.decided_bits() > best.decided_bits()))
      best = s;
  }
  if (!best.has_set) best.note = "no sequence shows a set of lines that evicts a line";
  return best;
}

bool predicts_overflow(const SeqStructure& s, std::uint64_t ways, std::uint64_t line, std::uint64_t stride,
                       std::uint64_t footprint) {
  std::map<std::uint64_t, std::uint64_t> count;
  std::uint64_t last_line = ~0ull;
  for (std::uint64_t a = 0; a < footprint; a += stride) {
    const std::uint64_t l = a / line;
    if (l == last_line) continue;
    last_line = l;
    std::uint64_t set = 0;
    for (std::size_t j = 0; j < s.rows.size(); ++j) set |= static_cast<std::uint64_t>(gf2::parity(a & s.rows[j])) << j;
    if (++count[set] > ways) return true;
  }
  return false;
}

int SeqStructure::decided_bits() const {
  int n = 0;
  for (unsigned b = line_bit; b <= top_bit && b < 64 && top_bit >= line_bit; ++b)
    n += (kernel.contains(1ull << (b - line_bit)) ||
          std::find(leaving_bits.begin(), leaving_bits.end(), b) != leaving_bits.end()) ? 1 : 0;
  return n;
}

nlohmann::json index_of(const SeqStructure& s) {
  // Rows that each select one bit, the bits consecutive: a bit-selected index.
  std::vector<int> bits;
  for (auto r : s.rows) {
    if (r & (r - 1)) return "hashed";
    bits.push_back(__builtin_ctzll(r));
  }
  if (bits.empty()) return nlohmann::json::array();
  std::sort(bits.begin(), bits.end());
  for (std::size_t i = 1; i < bits.size(); ++i)
    if (bits[i] != bits[i - 1] + 1) return "hashed";
  return nlohmann::json::array({bits.front(), bits.back()});
}

nlohmann::json matrix_json(const SeqStructure& s) {
  nlohmann::json m = nlohmann::json::array();
  for (auto r : s.rows) {
    std::ostringstream o;
    o << "0x" << std::hex << r;
    m.push_back(o.str());
  }
  return m;
}

}  // namespace memhier::analysis
