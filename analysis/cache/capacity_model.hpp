// The miss-rate curve of a capacity sweep predicted from a cache's structure, and the capacity
// fitted to a measured curve (docs/methodology.md, inference "Capacity"). A cyclic chase over N
// bytes at stride s touches L lines; an index that spreads consecutive lines evenly (bits above the
// line, modulo, a linear XOR hash) gives every one of the T = C / (W b) sets q or q+1 of them; each
// set then sees its lines cyclically: a warm pass, then the timed accesses. A set's miss fraction
// comes from the policy models of common/policy (one model, two users): exact for deterministic
// policies, the mean of seeded runs for random ones.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memhier::analysis {

// How the sweep's chases ran.
struct SweepShape {
  std::uint64_t stride = 32, line = 128, fill = 32;
  double timed_passes = 1;  // timed accesses / chain length (after one untimed warm pass)
};
// One set's replacement.
struct SetModel {
  std::string policy;            // a common/policy name
  std::uint32_t ways = 0;
  std::vector<double> weights;   // random: per-way weights (empty: uniform)
};

class CurveModel {
 public:
  CurveModel(SetModel set, SweepShape shape) : set_(std::move(set)), shape_(shape) {}
  // Predicted fraction of the timed accesses that miss at footprint N for a cache of `capacity`
  // bytes (a multiple of ways x line).
  double miss_rate(std::uint64_t capacity, std::uint64_t footprint);
  const SetModel& set() const { return set_; }

 private:
  double set_miss(std::uint64_t n);  // miss fraction of one set's timed accesses with n lines
  SetModel set_;
  SweepShape shape_;
  std::map<std::uint64_t, double> cache_;
};

struct CapacityFit {
  bool found = false;
  std::uint64_t bytes = 0, lo = 0, hi = 0;  // best capacity and the capacities that fit as well
  SetModel set;                               // the model that fits best
  double rms = 0;                             // its root-mean-square residual over the footprints
  double noise_rms = 0;                       // the residual expected from sampling alone
  std::string note;
};
// Fits the capacity to a measured curve (sizes ascending, miss fractions, accesses): every model
// and every C = T x ways x line with C in [lo, hi]; the best sum of squares wins; the interval holds
// every capacity whose sum of squares is within 1.5 x the best plus the sampling variance.
CapacityFit fit_capacity(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                         const std::vector<double>& n, const SweepShape& shape, const std::vector<SetModel>& models,
                         std::uint64_t lo, std::uint64_t hi);
// A fit is accepted when its residual is within kFitTolerance times the sampling residual plus
// kFitSlack (the random model's own simulation noise).
constexpr double kFitTolerance = 2, kFitSlack = 0.01;

}  // namespace memhier::analysis
