// Host memory and peers (analysis/memory/levels.hpp) from built bench entries: whether the L2 keeps
// host lines, which L2 keeps a peer's line, the figures against the links, and the undecidable.
#include <gtest/gtest.h>

#include "analysis/memory/levels.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;
using memhier::test_support::bench_entry;
using json = nlohmann::json;

namespace {

BenchRun run_with(std::vector<BenchEntry> entries) {
  return test_support::bench_run(std::move(entries),
                                 {{"sm_count", "132"}, {"sm_clock_khz", "2000000"}, {"l2_cache_bytes", "52428800"},
                                  {"host_link", "PCIe Gen5 x16"}, {"host_link_bytes_per_second", "63000000000"},
                                  {"peer_devices", "1"}, {"peer_link", "NVLink 4 x18"}, {"peer_link_bytes_per_second", "450000000000"}});
}

BenchEntry host_lat(long long bytes, int warm, double v) {
  return bench_entry("host/op:latency/bytes:" + std::to_string(bytes) + "/warm:" + std::to_string(warm), {{"latency_cycles", v}});
}

BenchEntry peer_lat(const std::string& state, double v) {
  return bench_entry("peer/dst:1/op:latency/bytes:1048576/state:" + state, {{"latency_cycles", v}});
}

std::vector<BenchEntry> host_figures() {
  return {bench_entry("host/op:read/ctas_per_sm:1", {{"bytes_per_second", 30e9}}),
          bench_entry("host/op:read/ctas_per_sm:4", {{"bytes_per_second", 52.92e9}}),
          bench_entry("host/op:write/ctas_per_sm:4", {{"bytes_per_second", 54e9}}),
          bench_entry("host/op:copy/dir:h2d/bytes:1048576", {{"bytes_per_second", 40e9}}),
          bench_entry("host/op:copy/dir:h2d/bytes:67108864", {{"bytes_per_second", 54.18e9}}),
          bench_entry("host/op:copy/dir:bidir/bytes:67108864", {{"bytes_per_second", 100.8e9}}),
          bench_entry("host/op:managed/bytes:268435456",
                      {{"fault_latency_cycles", 40000}, {"bytes_per_second", 12e9}, {"prefetch_bytes_per_second", 45e9}})};
}

}  // namespace

TEST(LevelsHost, WarmEqualToColdIsNotCached) {
  auto es = host_figures();
  for (auto e : {host_lat(262144, 0, 2900), host_lat(262144, 1, 2903), host_lat(67108864, 0, 2910), host_lat(67108864, 1, 2905)})
    es.push_back(e);
  double rel = -1;
  const json s = host_section({run_with(es)}, json::object(), &rel);
  EXPECT_EQ(s["link"], "PCIe Gen5 x16");
  EXPECT_EQ(s["latency_cycles"], 2910);  // cold, largest footprint
  EXPECT_EQ(s["latency_ns"], 1455);
  EXPECT_EQ(s["cached_in_l2"], false);
  EXPECT_NE(s["cached_in_l2_reason"].get<std::string>().find("within the noise"), std::string::npos);
  EXPECT_EQ(s["latency_by_state"]["bytes"], 262144);  // the largest footprint the L2 could hold
  EXPECT_NEAR(rel, 10.0 / 2900, 1e-9);
  EXPECT_EQ(s["read"]["bytes_per_second"], 52.92e9);
  EXPECT_EQ(s["read"]["pct_of_link"], 84);
  EXPECT_EQ(s["read"]["configuration"]["ctas_per_sm"], 4);
  EXPECT_EQ(s["copy"]["h2d"]["bytes"], 67108864);
  EXPECT_EQ(s["copy"]["h2d"]["pct_of_link"], 86);
  EXPECT_EQ(s["copy"]["bidir"]["pct_of_link"], 80);
  EXPECT_FALSE(s["copy"].contains("d2h"));
  EXPECT_EQ(s["managed"]["fault_latency_us"], 20);
}

TEST(LevelsHost, WarmAtTheL2HitIsCached) {
  const std::vector<BenchEntry> es = {host_lat(262144, 0, 1800), host_lat(262144, 1, 226), host_lat(67108864, 0, 1805),
                                      host_lat(67108864, 1, 1803)};
  double rel = -1;
  json topo = {{"caches", {{"l2", {{"hit_latency_cycles", 220}}}}}};
  json s = host_section({run_with(es)}, topo, &rel);
  EXPECT_EQ(s["cached_in_l2"], true);
  EXPECT_EQ(s["latency_by_state"]["warm"], 226);
  // without the L2's own hit latency: still decided, at a lower confidence
  s = host_section({run_with(es)}, json::object(), &rel);
  EXPECT_EQ(s["cached_in_l2"], true);
  EXPECT_EQ(s["provenance"]["cached_in_l2"]["confidence"], 0.6);
  // faster, but nowhere near the L2: not the L2
  topo["caches"]["l2"]["hit_latency_cycles"] = 50;
  s = host_section({run_with({host_lat(262144, 0, 1800), host_lat(262144, 1, 1500)})}, topo, &rel);
  EXPECT_TRUE(s["cached_in_l2"].is_null());
  EXPECT_NE(s["cached_in_l2_reason"].get<std::string>().find("not the L2"), std::string::npos);
}

TEST(LevelsHost, NoWarmStateIsUndecided) {
  double rel = 0;
  const json s = host_section({run_with({host_lat(262144, 0, 1800)})}, json::object(), &rel);
  EXPECT_TRUE(s["cached_in_l2"].is_null());
  EXPECT_EQ(s["cached_in_l2_reason"], "no footprint measured both cold and warm");
  EXPECT_EQ(rel, -1);
  EXPECT_TRUE(s["read"]["bytes_per_second"].is_null());
  EXPECT_TRUE(host_section({run_with({})}, json::object(), &rel).is_null());
}

TEST(LevelsPeers, WhichL2KeepsThePeersLine) {
  auto cached = [](double cold, double warm, double owner) {
    std::vector<BenchEntry> es = {peer_lat("cold", cold), peer_lat("warm", warm)};
    if (owner > 0) es.push_back(peer_lat("owner", owner));
    return peers_section({run_with(es)}, json::object(), -1)[0];
  };
  EXPECT_EQ(cached(2000, 1300, 1300.4)["cached_in"], "owner_l2");
  EXPECT_EQ(cached(2600, 224, 2600.2)["cached_in"], "reader_l2");
  EXPECT_EQ(cached(2000, 2000.5, 2000.3)["cached_in"], "none");
  const json undecided = cached(2000, 1300, 0);  // owner state not measured
  EXPECT_TRUE(undecided["cached_in"].is_null());
  EXPECT_NE(undecided["cached_in_reason"].get<std::string>().find("owner state"), std::string::npos);
  EXPECT_TRUE(cached(2000, 2000, 1500)["cached_in"].is_null());  // owner faster, warm not: no one cache
  EXPECT_TRUE(cached(2000, 2100, 2000)["cached_in"].is_null());  // warm slower
}

TEST(LevelsPeers, NoiseFromRepetitionsAndTheHost) {
  // warm 30 cycles below cold: within a host-derived noise of 2 % (40 cycles), beyond it without
  std::vector<BenchEntry> es = {peer_lat("cold", 2000), peer_lat("warm", 1970), peer_lat("owner", 2000.5)};
  EXPECT_EQ(peers_section({run_with(es)}, json::object(), 0.02)[0]["cached_in"], "none");
  EXPECT_EQ(peers_section({run_with(es)}, json::object(), -1)[0]["cached_in"], "reader_l2");
  es.push_back(peer_lat("warm", 2010));  // a repetition: the warm state's spread is 40 cycles
  es.push_back(peer_lat("warm", 1990));
  EXPECT_EQ(peers_section({run_with(es)}, json::object(), -1)[0]["cached_in"], "none");
}

TEST(LevelsPeers, FiguresAgainstTheLink) {
  std::vector<BenchEntry> es = {peer_lat("cold", 2000), bench_entry("peer/dst:1/op:read/ctas_per_sm:4", {{"bytes_per_second", 387e9}}),
                                bench_entry("peer/dst:1/op:copy/dir:uni/bytes:67108864", {{"bytes_per_second", 396e9}}),
                                bench_entry("peer/dst:1/op:copy/dir:bidir/bytes:67108864", {{"bytes_per_second", 774e9}}),
                                bench_entry("peer/dst:3/op:latency/bytes:1048576/state:cold", {{"latency_cycles", 2600}})};
  const json p = peers_section({run_with(es)}, json::object(), -1);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0]["device"], 1);
  EXPECT_EQ(p[0]["link"], "NVLink 4 x18");
  EXPECT_EQ(p[0]["latency_cycles"], 2000);
  EXPECT_EQ(p[0]["latency_ns"], 1000);
  EXPECT_EQ(p[0]["read"]["pct_of_link"], 86);
  EXPECT_EQ(p[0]["copy"]["uni"]["pct_of_link"], 88);
  EXPECT_EQ(p[0]["copy"]["bidir"]["pct_of_link"], 86);
  EXPECT_TRUE(p[0]["cached_in"].is_null());
  EXPECT_EQ(p[1]["device"], 3);
  EXPECT_TRUE(p[1]["write"]["bytes_per_second"].is_null());
}
