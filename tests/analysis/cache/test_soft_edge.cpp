// Soft cache edges (docs/methodology.md, inference): synthetic capacity sweeps of a cache whose miss
// rate rises gradually above its size, with real-GPU-like noise (an odd slow access in most runs,
// now and then a burst of a dozen). Two runs of the same cache (other noise, other footprints
// measured) must state size brackets that overlap, so memhier-compare says SAME for structure; a
// cache of another size must compare CHANGED. A noise-free hard edge stays exact.
#include <gtest/gtest.h>

#include <random>

#include "analysis/cache/infer_caches.hpp"
#include "analysis/gate/compare.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

constexpr double kAccesses = 65536;
constexpr std::uint64_t kMiB = 1 << 20;

struct Sweep {
  std::vector<std::uint64_t> sizes;
  std::vector<double> miss, n;
  std::vector<std::vector<double>> vec;
};

// Miss rate of a soft-edged cache of `edge` bytes at footprint f: nothing below, then rising.
double capacity_rate(std::uint64_t f, std::uint64_t edge) {
  if (f <= edge) return 0;
  const double x = static_cast<double>(f - edge) / (8.0 * kMiB);
  return std::min(0.95, 0.002 * x + 0.9 * x * x);
}

// One run: per footprint, Bernoulli(0.6) odd misses, a burst of 12 at `burst_at` (0: none), and
// Binomial capacity misses.
Sweep run(const std::vector<std::uint64_t>& sizes, std::uint64_t edge, unsigned seed, std::uint64_t burst_at) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution odd(0.6);
  Sweep s;
  for (auto f : sizes) {
    std::binomial_distribution<long> cap(static_cast<long>(kAccesses), capacity_rate(f, edge));
    double k = (odd(rng) ? 1 : 0) + static_cast<double>(cap(rng)) + (f == burst_at ? 12 : 0);
    s.sizes.push_back(f);
    s.miss.push_back(k / kAccesses);
    s.n.push_back(kAccesses);
    const double m = k / kAccesses;
    s.vec.push_back({m < 0.5 ? 280.0 : 700.0, 280 + 420 * m});  // latency quantiles: hit and mean
  }
  return s;
}

std::vector<std::uint64_t> grid(std::uint64_t from, std::uint64_t to, std::uint64_t step) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t f = from; f <= to; f += step) v.push_back(f);
  return v;
}

nlohmann::json topology_of(const SizeResult& r) {
  nlohmann::json l2 = {{"present", true}, {"size_bytes", r.lo}, {"size_bracket_bytes", {r.lo, r.hi}}};
  l2["provenance"]["size_bytes"] = {{"confidence", r.soft ? 0.4 : 0.95}};
  return {{"schema", "memhier-topology/1"}, {"caches", {{"l2", l2}}}};
}

CompareInput input(const nlohmann::json& topo) {
  CompareInput in;
  in.label = "synthetic";
  in.bench.context = {{"device_backend", "cuda"}, {"gpu_name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}};
  in.topology = topo;
  return in;
}

SizeResult size_of(const Sweep& s, std::uint64_t stride) { return find_size(s.sizes, s.miss, s.vec, s.n, stride); }

}  // namespace

TEST(SoftEdge, TwoRunsOfOneCacheCompareSame) {
  const std::uint64_t edge = 21 * kMiB + 300 * 1024;
  // Run A: a coarse sweep with one footprint just above the edge (a few capacity misses, fewer than
  // the burst at 19 MiB) and a burst below: the edge is soft there.
  auto a_sizes = grid(1 * kMiB, 20 * kMiB, kMiB);
  a_sizes.push_back(edge + 64 * 1024);
  for (auto f : grid(24 * kMiB, 40 * kMiB, 2 * kMiB)) a_sizes.push_back(f);
  std::sort(a_sizes.begin(), a_sizes.end());
  const SizeResult a = size_of(run(a_sizes, edge, 1, 19 * kMiB), 128);
  // Run B: another noise, footprints every 128 KiB around the edge (its refinement).
  auto b_sizes = grid(1 * kMiB, 20 * kMiB, kMiB);
  for (auto f : grid(20 * kMiB, 23 * kMiB, 128 * 1024)) b_sizes.push_back(f + 64);
  for (auto f : grid(24 * kMiB, 40 * kMiB, 2 * kMiB)) b_sizes.push_back(f);
  std::sort(b_sizes.begin(), b_sizes.end());
  const SizeResult b = size_of(run(b_sizes, edge, 2, 0), 128);

  for (const SizeResult* r : {&a, &b}) {
    ASSERT_TRUE(r->state == SizeResult::State::exact || r->state == SizeResult::State::bracket);
    EXPECT_LE(r->lo, edge + 64 * 1024);  // the bracket holds the edge (misses become countable
    EXPECT_GT(r->hi, edge);              // within 64 KiB above it)
    // the odd access per run (0.6), measured; run A's burst of 12 below the bracket is noise too
    // and counts in its mean (about 0.6 + 12 / 20), but no capacity miss does
    EXPECT_GT(r->noise_per_run, 0.3);
    EXPECT_LT(r->noise_per_run, 0.9 + (r == &a ? 12.0 / 20 : 0.0));
  }
  EXPECT_TRUE(a.soft);  // the few misses at edge + 64 KiB are within the burst: not distinguishable
  EXPECT_EQ(a.hi, 24 * kMiB);
  EXPECT_FALSE(b.soft);
  EXPECT_LE(b.hi - b.lo, 128u * 1024);  // as tight as run B's footprints allow

  CompareResult r = compare_runs(input(topology_of(a)), input(topology_of(b)), CompareOptions{});
  EXPECT_EQ(r.structure(), "SAME");
  EXPECT_EQ(r.count(Verdict::changed), 0);

  // Another cache: 1.5 times the size. Its bracket lies elsewhere: CHANGED.
  const SizeResult c = size_of(run(grid(1 * kMiB, 48 * kMiB, 256 * 1024), edge * 3 / 2, 3, 0), 128);
  ASSERT_TRUE(c.state == SizeResult::State::exact || c.state == SizeResult::State::bracket);
  EXPECT_LE(c.lo, edge * 3 / 2);
  EXPECT_GT(c.hi, edge * 3 / 2);
  CompareResult d = compare_runs(input(topology_of(b)), input(topology_of(c)), CompareOptions{});
  EXPECT_EQ(d.structure(), "CHANGED");
}

TEST(SoftEdge, AbsoluteCountsOfLongRunsAreNotMisses) {
  // Runs of 40x the accesses at the noise rate collect tens of misses: the rate, not the count, says
  // there are no capacity misses.
  const std::uint64_t edge = 16 * kMiB;
  auto sizes = grid(1 * kMiB, 32 * kMiB, kMiB);
  Sweep s = run(sizes, edge, 4, 0);
  for (std::size_t i = 0; i < s.sizes.size(); ++i)
    if (s.sizes[i] > 8 * kMiB && s.sizes[i] < edge) {
      s.n[i] = 40 * kAccesses;
      s.miss[i] = 20.0 / s.n[i];  // 20 misses: 0.5 per 65536 accesses
    }
  const SizeResult r = size_of(s, 128);
  EXPECT_EQ(r.lo, edge);
  EXPECT_EQ(r.hi, edge + kMiB);
}

TEST(SoftEdge, NoiseFreeHardEdgeStaysExact) {
  // The simulated device: no noise; one miss one line above C is evidence.
  std::vector<std::uint64_t> sizes = grid(1024, 16384, 1024);
  sizes.push_back(16416);
  sizes.push_back(16448);
  std::vector<double> miss, n;
  std::vector<std::vector<double>> vec;
  for (auto f : sizes) {
    const double acc = static_cast<double>(f / 32), k = f > 16384 ? 1 : 0;
    miss.push_back(k / acc);
    n.push_back(acc);
    vec.push_back({10.0, 10 + 60 * k / acc});
  }
  const SizeResult r = find_size(sizes, miss, vec, n, 32);
  EXPECT_EQ(r.state, SizeResult::State::exact);
  EXPECT_EQ(r.lo, 16384u);
  EXPECT_EQ(r.hi, 16416u);
  EXPECT_EQ(r.noise_per_run, 0);
}

TEST(SoftEdge, PoissonTail) {
  EXPECT_NEAR(poisson_lower_tail(0, 1), std::exp(-1.0), 1e-12);
  EXPECT_NEAR(poisson_lower_tail(2, 3), std::exp(-3.0) * 8.5, 1e-12);
  EXPECT_DOUBLE_EQ(poisson_lower_tail(-1, 3), 0.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(0, 3), 1.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(1, 0), 0.0);
  EXPECT_NEAR(poisson_upper_tail(1, 1), 1 - std::exp(-1.0), 1e-12);
  EXPECT_NEAR(poisson_upper_tail(7, 1), 8.324e-5, 1e-7);
  EXPECT_NEAR(poisson_upper_tail(3, 5), 0.875348, 1e-6);
  EXPECT_LT(poisson_upper_tail(256, 1), 1e-100);
}
