// Replacement-policy models: the one set of models that the simulator runs (sim/cache.cpp) and the
// analyzer tests hypotheses against (docs/methodology.md, section policy). One object holds the
// replacement state of one cache set. Lines are only ever installed, never invalidated one by one,
// so the empty ways of a set are always a contiguous range (a policy says from which end it fills).
//
// Policies (canonical names; parse_policy also takes the aliases in brackets):
//   lru                 least recently used
//   fifo                first in, first out (hits change nothing)
//   plru   [tree_plru, tree-plru, plrul]   tree-PLRU; empty ways fill lowest first (nanoBench PLRUl)
//   plru_tree           tree-PLRU that fills empty ways where the tree points (nanoBench PLRU)
//   bit_plru [mru]      one MRU bit per way; when all are set, all but the last used are cleared;
//                       the victim is the lowest way whose bit is clear (nanoBench MRU)
//   bit_plru_n [mru_n]  the same, but accesses change no bit while the set is not full (MRU_N)
//   nru                 not-recently-used bits as in Jaleel et al. ISCA'10 (nanoBench NRU)
//   qlru_hXY_mZ_rR_uU[_umo]   quad-age LRU in the parametrisation of Abel & Reineke / nanoBench:
//       ages 0..3 (3 = oldest), every way starts at 3;
//       hXY  hit promotion: h21 3→2 2→1 1→0, h20 3→2 else→0, h11 3→1 2→1 1→0, h10 3→1 else→0, h00 →0
//       mZ   insertion age Z (0..3)
//       rR   victim: r0 lowest empty way, else lowest way of age 3; r1 the same, but way 0 when
//            none is 3; r2 highest empty way, else lowest way of age 3
//       uU   update after each access (or only before a miss's victim choice with _umo):
//            u0 all ages += 3 − max age; u1 the same but the accessed way is left out (both of
//            the max and of the increment); u2 all ages += 1 when no age is 3; u3 the same but the
//            accessed way is left out of the increment. r0/r2 with u2/u3 are not defined (no age
//            3 may exist when a victim is needed), as in nanoBench.
//   slru                segmented LRU (Karedla, Love & Wherry, IEEE Computer 1994) with a protected
//                       segment of floor(W/2) lines: a miss inserts at the most recently used end of
//                       the probationary segment and evicts its least recently used line; a hit on a
//                       probationary line moves it to the protected segment's MRU end (the protected
//                       LRU line, when that makes more than floor(W/2), to the probationary MRU end);
//                       a hit on a protected line makes it the protected MRU; empty ways fill lowest
//                       first. (The half split is the one the H100/H200 L1 traces fit: 1 or 3
//                       protected of 4 ways do not.)
//   slru_p<K>           the same with K protected lines (1 <= K < W); slru_p<floor(W/2)> is slru.
//                       candidate_policies(W, true) lists every K but floor(W/2), so the traces,
//                       not this model, choose the protected size.
//   srrip               = qlru_h00_m2_r0_u0_umo (static RRIP with 2-bit ages, hit promotion to 0)
//   brrip               bimodal RRIP (Jaleel et al. ISCA'10): srrip, but a line is inserted at age 3,
//                       with probability 1/32 at age 2; the draws come from a seeded splitmix64
//                       generator as random's do (RandomParams seed / shared_rng; weights unused)
//   random              victim drawn with per-way weights (default uniform) from a seeded
//                       splitmix64 generator; empty ways fill lowest first
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memhier::policy {

// splitmix64's output for state z (its finalizer after the golden-ratio step): a well-mixed 64-bit
// hash of z, the same on every platform (the simulator's seeded per-line and per-call draws).
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// The top 53 bits of x as a number in [0, 1).
inline double unit_interval(std::uint64_t x) { return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0); }

// splitmix64: small, fast, the same sequence on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 1) { reseed(seed); }
  void reseed(std::uint64_t seed) { state_ = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull; }
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return unit_interval(next()); }

 private:
  std::uint64_t state_ = 0;
};

// Parameters of the random policy (brrip uses seed and shared_rng; the others ignore them).
struct RandomParams {
  std::vector<double> weights;       // per-way weights, at least `ways` of them (empty: uniform)
  std::uint64_t seed = 1;            // the set's own generator (re-seeded by reset)
  SplitMix64* shared_rng = nullptr;  // when set, draws come from this generator instead (one per
                                     // cache level: the simulator's stream); the caller re-seeds it
};

// The replacement state of one set.
class SetPolicy {
 public:
  virtual ~SetPolicy() = default;
  // Empties the set (`ways` ways) and restores the initial state.
  virtual void reset(std::uint32_t ways) = 0;
  // The access to the line in `way` hit.
  virtual void on_hit(std::uint32_t way) = 0;
  // The way a miss fills: an empty way while there is one (lowest first unless the policy says
  // otherwise), else the policy's choice. Only the random policy changes state here (a draw).
  virtual std::uint32_t victim() = 0;
  // A line was installed in `way` (the way victim() returned).
  virtual void on_fill(std::uint32_t way) = 0;
  // True when a hit to the way used last changes nothing (lets the simulator skip the update).
  virtual bool repeat_hit_is_noop() const { return true; }
  virtual bool deterministic() const { return true; }
  const std::string& name() const { return name_; }
  std::uint32_t ways() const { return ways_; }
  std::uint32_t filled() const { return filled_; }

 protected:
  explicit SetPolicy(std::string name, bool fill_from_top = false)
      : name_(std::move(name)), fill_from_top_(fill_from_top) {}
  // Bookkeeping of empty ways, shared by every policy.
  void reset_fill(std::uint32_t ways) {
    ways_ = ways;
    filled_ = 0;
  }
  bool full() const { return filled_ >= ways_; }
  std::uint32_t empty_way() const { return fill_from_top_ ? ways_ - 1 - filled_ : filled_; }
  void note_fill(std::uint32_t way) {
    if (!full() && way == empty_way()) ++filled_;
  }

 private:
  std::string name_;
  bool fill_from_top_;
  std::uint32_t ways_ = 0, filled_ = 0;
};

// The policy called `name` (canonical or alias, case-insensitive) for sets of `ways` ways, reset.
// Throws std::invalid_argument naming the problem: unknown name, or ways it cannot serve
// (tree-PLRU: power of two ≤ 64; random: fewer weights than ways).
std::unique_ptr<SetPolicy> make_policy(const std::string& name, std::uint32_t ways, const RandomParams& rnd = {});

// The canonical name of `name`, or "" when it names no policy.
std::string canonical_policy_name(const std::string& name);
// "" when `name` can serve sets of `ways` ways, else the reason.
std::string policy_ways_problem(const std::string& name, std::uint32_t ways);
bool policy_is_deterministic(const std::string& name);

// Candidate policies for a set of `ways` ways (those that can serve it), deterministic first (lru,
// fifo, plru, plru_tree, bit_plru, bit_plru_n, nru, slru, then QLRU), then "random" and "brrip".
// `all_qlru`: every defined deterministic QLRU variant (320 names) instead of the five that nanoBench
// found in Intel CPUs (qlru_h11_m1_r0_u0, qlru_h21_m2_r0_u0_umo, qlru_h11_m1_r1_u2,
// qlru_h00_m1_r2_u1, qlru_h00_m1_r0_u1) and srrip.
std::vector<std::string> candidate_policies(std::uint32_t ways, bool all_qlru = false);
// Every candidate for `ways` ways in the order the replacement decisions take them: the named
// policies first (so a class of identical outcomes is named by them), then every other QLRU variant
// and SLRU size, then the randomized ones (candidate_policies(ways) and (ways, true), no repeats).
std::vector<std::string> candidates_in_decision_order(std::uint32_t ways);

// Hit (true) or miss of each access when the lines `lines` (ids; equal ids are the same line) are
// accessed in order in one set of `ways` ways that starts empty. Deterministic policies only
// (random: throws std::invalid_argument; use hit_probability).
std::vector<bool> simulate_set(const std::string& policy, std::uint32_t ways, const std::vector<std::int64_t>& lines);

// Per access, the fraction of `runs` runs that hit (run r uses seed `seed + r`). Any policy.
std::vector<double> hit_probability(const std::string& policy, std::uint32_t ways,
                                    const std::vector<std::int64_t>& lines, unsigned runs, std::uint64_t seed = 1,
                                    const std::vector<double>& weights = {});

}  // namespace memhier::policy
