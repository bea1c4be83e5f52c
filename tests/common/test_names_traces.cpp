#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "common/bench_name.hpp"
#include "common/levels.hpp"
#include "common/trace.hpp"

using namespace memhier;

TEST(BenchName, RoundTrip) {
  BenchName n("pchase");
  n.add("path", "global_ca").add("mode", "fine").add("bytes", 65536).add("stride", 32);
  EXPECT_EQ(n.str(), "pchase/path:global_ca/mode:fine/bytes:65536/stride:32");
  auto p = BenchName::parse(n.str());
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, n);
  EXPECT_EQ(p->get_int("bytes"), 65536);
  EXPECT_EQ(p->get_or("path", ""), "global_ca");
  EXPECT_FALSE(p->get_int("path"));
}

TEST(BenchName, DropsRunnerSuffixes) {
  auto p = BenchName::parse("tlb/bytes:1024/stride:64/iterations:1/manual_time_median");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->family(), "tlb");
  EXPECT_EQ(p->params().size(), 2u);
  auto q = BenchName::parse("pchase/path:ldg/stride:32/repeats:3/manual_time");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->str(), "pchase/path:ldg/stride:32");
  EXPECT_FALSE(BenchName::parse(""));
}

TEST(BenchName, SanitizedFileNames) {
  EXPECT_EQ(sanitize_for_file("pchase/path:ldg/bytes:4"), "pchase__path-ldg__bytes-4");
}

TEST(Trace, FineRoundTripAndTruncation) {
  Trace t;
  t.benchmark = "pchase/path:ldg";
  t.clock_overhead_cycles = 12;
  t.meta["array_bytes"] = "4096";
  t.index = {0, 8, 16};
  t.latency = {30, 31, 400};
  std::string path = ::testing::TempDir() + "/t.trace";
  write_trace(path, t);
  Trace r = read_trace(path);
  EXPECT_EQ(r.benchmark, t.benchmark);
  EXPECT_EQ(r.index, t.index);
  EXPECT_EQ(r.latency, t.latency);
  EXPECT_EQ(r.meta["array_bytes"], "4096");
  // drop the last two lines: a truncated trace is an error that names the file
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  all.resize(all.rfind("31"));
  std::ofstream(path) << all;
  try {
    read_trace(path);
    FAIL() << "truncated trace accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "{\"not\": \"a trace\"}\n";
  EXPECT_THROW(read_trace(path), std::runtime_error);
}

TEST(Trace, HistogramRoundTrip) {
  Trace t;
  t.kind = Trace::Kind::histogram;
  t.hist.bin_width = 4;
  t.hist.counts = {0, 5, 0, 0, 7};
  std::string path = ::testing::TempDir() + "/h.trace";
  write_trace(path, t);
  Trace r = read_trace(path);
  EXPECT_EQ(r.kind, Trace::Kind::histogram);
  EXPECT_EQ(r.hist.counts, t.hist.counts);
  EXPECT_EQ(r.hist.total(), 12u);
}

TEST(HitMissSplit, SeparatesTwoLevelsAndKeepsOneLevelWhole) {
  std::vector<std::uint32_t> lat;
  for (int i = 0; i < 900; ++i) lat.push_back(33 + i % 2);
  for (int i = 0; i < 100; ++i) lat.push_back(260 + i % 7);
  auto s = split_hit_miss(histogram_of(lat));
  EXPECT_TRUE(s.separated);
  EXPECT_EQ(s.misses, 100u);
  EXPECT_NEAR(s.hit_mean, 34, 1.0);
  EXPECT_NEAR(s.miss_mean, 263.5, 1.5);
  std::vector<std::uint32_t> one(1000, 40);
  for (int i = 0; i < 1000; i += 3) one[i] = 41;
  auto u = split_hit_miss(histogram_of(one));
  EXPECT_FALSE(u.separated);
  EXPECT_EQ(u.misses, 0u);
}

TEST(HitMissSplit, OneClassIsHitsOrMissesByTheBaseline) {
  std::vector<std::uint32_t> slow(500, 300);
  for (int i = 0; i < 500; i += 2) slow[i] = 310;
  auto s = split_hit_miss(histogram_of(slow, 4), 37.0);
  EXPECT_FALSE(s.separated);
  EXPECT_EQ(s.misses, 500u);
  EXPECT_EQ(s.hits, 0u);
  // two adjacent bins of one level are not two levels
  std::vector<std::uint32_t> fast(500, 36);
  for (int i = 0; i < 500; i += 2) fast[i] = 40;
  auto f = split_hit_miss(histogram_of(fast, 4), 37.0);
  EXPECT_EQ(f.misses, 0u);
  EXPECT_EQ(f.hits, 500u);
}

TEST(HitMissSplit, WithABaselineL2HitsAndDramAreBothMisses) {
  // L1 hits, L2 hits and DRAM accesses in one distribution: misses of the first level are the
  // L2 and DRAM accesses together, whatever their proportions
  for (int l2 : {10, 300, 600}) {
    std::vector<std::uint32_t> lat;
    for (int i = 0; i < 400; ++i) lat.push_back(34 + i % 3);
    for (int i = 0; i < l2; ++i) lat.push_back(281 + i % 9);
    for (int i = 0; i < 200; ++i) lat.push_back(690 + i % 20);
    auto s = split_hit_miss(histogram_of(lat, 4), 34.0);
    EXPECT_EQ(s.hits, 400u);
    EXPECT_EQ(s.misses, static_cast<std::uint64_t>(l2 + 200));
    EXPECT_NEAR(s.hit_mean, 35, 2.5);
  }
}
