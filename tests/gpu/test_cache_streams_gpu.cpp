// GPU tests of the random-stream trials (Backend::run_streams, kernels/cache_streams.cuh; ctest
// label gpu; docs/methodology.md, section cache_streams). Each test skips, visibly, without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bench/backends/backend_cuda.hpp"
#include "gpu_backend.hpp"

using namespace memhier;

namespace {

using memhier::gputest::gpu;

std::uint64_t next_first = 0;  // targets are never reused within this process

StreamsRequest request(Path p, StreamVariant v, std::uint32_t k, bool all_sms) {
  StreamsRequest r;
  r.path = p;
  r.variant = v;
  r.k = k;
  r.trials = 4;
  r.targets = all_sms ? 1 : 64;
  r.pool_bytes = 16ull << 20;
  r.warm_lines = 512;
  r.all_sms = all_sms;
  r.carveout = path_uses_carveout(p) ? 0 : -1;
  r.first_target_line = next_first;
  next_first += stream_target_lines_per_slot(r.trials, r.targets) * static_cast<std::uint64_t>(gpu()->stream_slots());
  return r;
}

std::uint32_t median(std::vector<std::uint32_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

struct Split {
  std::uint32_t hit = 0, first = 0, final_ = 0;
  double evicted = 0, trials = 0;
};

Split split(const StreamsResult& o) {
  std::vector<std::uint32_t> hits, firsts, finals;
  for (int s = 0; s < o.sms; ++s) {
    const std::uint32_t* rec = o.records.data() + static_cast<std::size_t>(s) * o.words_per_slot;
    hits.insert(hits.end(), rec, rec + kStreamHitRefs);
    for (std::uint32_t q = kStreamHitRefs; q < o.words_per_slot; q += kStreamFields) {
      firsts.push_back(rec[q + kFirst]);
      finals.push_back(rec[q + kFinal]);
    }
  }
  Split x;
  x.hit = median(hits);
  x.first = median(firsts);
  x.final_ = median(finals);
  const double threshold = 0.5 * (x.hit + x.first);
  for (std::uint32_t f : finals) x.evicted += f >= threshold;
  x.trials = static_cast<double>(finals.size());
  return x;
}

}  // namespace

// Every L1-side path on every SM: the first loads (L2 hits after the global_cg prime) are slower
// than the hit reference; with k = 4 the target is nearly never evicted, with k = 16384 (≫ any L1)
// nearly always; the run used most SMs.
TEST(CacheStreamsGpu, L1SidePathsShortAndLongStreams) {
  REQUIRE_GPU();
  const int sms = gpu()->figures().sm_count;
  for (Path p : {Path::global_ca, Path::ldg, Path::texture}) {
    for (bool dep : {true, false}) {
      StreamsRequest small = request(p, StreamVariant::fresh, 4, true), large = request(p, StreamVariant::fresh, 16384, true);
      small.dep = large.dep = dep;
      const StreamsResult a = gpu()->run_streams(small), b = gpu()->run_streams(large);
      ASSERT_EQ(a.error, "") << path_name(p);
      ASSERT_EQ(b.error, "") << path_name(p);
      EXPECT_GE(a.sms, sms / 2) << path_name(p);
      EXPECT_EQ(a.words_per_slot, stream_record_words(4, 1));
      const Split x = split(a), y = split(b);
      EXPECT_GT(x.first, x.hit + 20) << path_name(p) << ": first loads are L2 hits, the reference L1 hits";
      EXPECT_LT(x.evicted / x.trials, 0.1) << path_name(p) << (dep ? " dep" : " indep");
      EXPECT_GT(y.evicted / y.trials, 0.9) << path_name(p) << (dep ? " dep" : " indep");
    }
  }
}

// Every variant runs on global_ca and records the fields it promises (mid: the mid re-read;
// two_ages: T2's first and final loads); the L2 path on one SM with several targets per trial.
TEST(CacheStreamsGpu, VariantsAndTheL2) {
  REQUIRE_GPU();
  for (int v = 0; v < kStreamVariantCount; ++v) {
    const StreamVariant var = static_cast<StreamVariant>(v);
    const StreamsResult o = gpu()->run_streams(request(Path::global_ca, var, 64, true));
    ASSERT_EQ(o.error, "") << stream_variant_name(var);
    for (std::uint32_t q = kStreamHitRefs; q < o.words_per_slot; q += kStreamFields) {
      EXPECT_GT(o.records[q + kFirst], 0u);
      EXPECT_GT(o.records[q + kFinal], 0u);
      EXPECT_EQ(o.records[q + kMid] > 0, var == StreamVariant::mid) << stream_variant_name(var);
      EXPECT_EQ(o.records[q + kFirst2] > 0, var == StreamVariant::two_ages) << stream_variant_name(var);
    }
  }
  StreamsRequest r = request(Path::global_cg, StreamVariant::fresh, 1024, false);
  r.pool_bytes = 4 * gpu()->figures().l2_bytes / kStreamLineBytes * kStreamLineBytes;
  const StreamsResult o = gpu()->run_streams(r);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.sms, 1);
  const Split x = split(o);
  EXPECT_EQ(x.trials, 4 * 64);
  EXPECT_GT(x.first, x.hit + 50) << "first loads from DRAM, the reference from the L2";
  EXPECT_LT(x.evicted / x.trials, 0.1) << "1024 lines evict nearly nothing from the L2";
}
