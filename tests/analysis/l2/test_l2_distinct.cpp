// The L2 bandwidth with one reader per line against shared lines: layouts that state their readers
// (oneshot, the gpu-benches pattern) are filed by that count, and the one-reader peak is named apart.
#include <gtest/gtest.h>

#include "analysis/memory/throughput.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

TEST(L2OneReaderPerLine, PeerPatternIsSharedOneshotIsDistinct) {
  BenchRun r;
  r.path = "synthetic.json";
  r.context = {{"memhier_version", "test"}, {"sm_count", "132"}, {"l2_cache_bytes", "52428800"}};
  const std::string b = "l2_throughput/bytes:15728640";
  r.entries = {test_support::bench_entry(b + "/cta_size:512/ctas:4/ilp:4", {{"bytes_per_second", 7.6e12}}, 3),  // tile: 1 reader
               test_support::bench_entry(b + "/cta_size:256/ctas:4/ilp:4/layout:oneshot", {{"bytes_per_second", 7.9e12}, {"readers_per_line", 1}}, 3),
               test_support::bench_entry(b + "/cta_size:1024/ctas:2/ilp:2/layout:peer", {{"bytes_per_second", 8.4e12}, {"readers_per_line", 8.8}}, 3),
               test_support::bench_entry("l2_throughput/bytes:1048576/cta_size:512/ctas:4/ilp:4", {{"bytes_per_second", 12.5e12}}, 3)};
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& l2 = t["l2_bandwidth"];
  ASSERT_TRUE(l2["one_reader_per_line"].is_object());
  EXPECT_DOUBLE_EQ(l2["one_reader_per_line"]["peak_bytes_per_second"].get<double>(), 7.9e12);
  EXPECT_NE(l2["one_reader_per_line"]["benchmark"].get<std::string>().find("oneshot"), std::string::npos);
  EXPECT_NE(l2["shared_lines"]["benchmark"].get<std::string>().find("peer"), std::string::npos);
  // the 1 MiB point has 16 readers per line by the tile arithmetic: it stays out of the one-reader peak
  EXPECT_GT(l2["peak_bytes_per_second"].get<double>(), l2["one_reader_per_line"]["peak_bytes_per_second"].get<double>());
}

// The peer's pattern with its readers of a chunk started rows apart (variant:rotated) reads no line
// from two blocks at once: one reader per line, so it competes for the one-reader peak (on the H100
// it beat every other distinct-line layout), while the plain and l2only variants stay shared.
TEST(L2OneReaderPerLine, RotatedPeerPatternIsDistinct) {
  BenchRun r;
  r.path = "synthetic.json";
  r.context = {{"memhier_version", "test"}, {"sm_count", "132"}, {"l2_cache_bytes", "52428800"}};
  const std::string b = "l2_throughput/bytes:10485760";
  r.entries = {test_support::bench_entry(b + "/cta_size:256/ctas:4/ilp:4/layout:oneshot", {{"bytes_per_second", 7.9e12}, {"readers_per_line", 1}}, 3),
               test_support::bench_entry(b + "/cta_size:1024/ctas:2/ilp:2/layout:peer", {{"bytes_per_second", 8.3e12}, {"readers_per_line", 13.2}}, 3),
               test_support::bench_entry(b + "/cta_size:1024/ctas:2/ilp:2/layout:peer/variant:l2only", {{"bytes_per_second", 8.9e12}, {"readers_per_line", 13.2}}, 3),
               test_support::bench_entry(b + "/cta_size:1024/ctas:2/ilp:2/layout:peer/variant:rotated", {{"bytes_per_second", 8.75e12}, {"readers_per_line", 1}}, 3)};
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& l2 = t["l2_bandwidth"];
  ASSERT_TRUE(l2["one_reader_per_line"].is_object());
  EXPECT_DOUBLE_EQ(l2["one_reader_per_line"]["peak_bytes_per_second"].get<double>(), 8.75e12);
  EXPECT_NE(l2["one_reader_per_line"]["benchmark"].get<std::string>().find("variant:rotated"), std::string::npos);
  EXPECT_NE(l2["shared_lines"]["benchmark"].get<std::string>().find("variant:l2only"), std::string::npos);
}
