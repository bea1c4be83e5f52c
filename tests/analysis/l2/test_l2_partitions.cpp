// The L2 partition map on synthetic per-SM latencies with a known home function, the two-class
// split, the single-SM replication limit and the bandwidth by readers per line.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/l2/l2_partitions.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

constexpr std::uint64_t kPage = 2ull << 20;

double jitter(std::uint64_t i) {
  i = (i ^ (i >> 31)) * 0x9E3779B97F4A7C15ull;
  return static_cast<double>((i >> 40) % 21) - 10;  // +-10 cycles
}

// Offsets as the family lays them out: per page 0, 2^7..2^20, then pseudo-random lines.
std::vector<std::uint64_t> offsets() {
  std::vector<std::uint64_t> out;
  for (int p = 0; p < 2; ++p) {
    out.push_back(p * kPage);
    for (int k = 7; k <= 20; ++k) out.push_back(p * kPage + (1ull << k));
    for (int i = 0; i < 49; ++i) out.push_back(p * kPage + ((i * 2654435761ull) % (kPage / 128)) * 128);
  }
  return out;
}

// Home of a line: parity of (offset & mask) XOR the page's own bit (the physical page number).
int home_of(std::uint64_t off, std::uint64_t mask) {
  return (__builtin_parityll((off % kPage) & mask) ^ static_cast<int>((off / kPage) & 1));
}

// 8 SMs, 0-3 in partition 0 and 4-7 in 1; per pass the latencies of near and far lines.
MapData synthetic(std::uint64_t mask, bool random_home) {
  MapData d;
  d.offsets = offsets();
  d.page_bytes = kPage;
  std::uint64_t seed = 1;
  for (unsigned s = 0; s < 8; ++s) {
    d.sm_ids.push_back(2 * s);
    std::vector<std::vector<double>> passes(3, std::vector<double>(d.offsets.size()));
    for (std::size_t i = 0; i < d.offsets.size(); ++i) {
      const int home = random_home ? static_cast<int>((i * 7919) % 3 == 0) : home_of(d.offsets[i], mask);
      const bool far = home != (s < 4 ? 0 : 1);
      passes[0][i] = (far ? 830 : 660) + jitter(seed++);  // cold: DRAM through the far / near partition
      passes[1][i] = (far ? 450 : 280) + jitter(seed++);  // after the write: far / near L2 hit
      passes[2][i] = (far ? 455 : 700) + jitter(seed++);  // after the pressure: far hit / DRAM
    }
    d.lat.push_back(passes);
  }
  return d;
}

}  // namespace

// A splitter on two classes (one value in `period` slow, a +400 tail on one in `tail_every`) finds
// them at their medians; on one class it does not split.
void expect_splits(TwoClass (*split)(std::vector<double>), int n, double fast, double slow, int period, double spread,
                   int tail_every) {
  std::vector<double> bi, uni;
  std::uint64_t seed = 1;
  for (int i = 0; i < n; ++i) {
    bi.push_back((i % period ? fast : slow) + spread * jitter(seed++) + (tail_every && i % tail_every == 0 ? 400 : 0));
    uni.push_back(fast + spread * jitter(seed++));
  }
  const TwoClass b = split(bi);
  EXPECT_TRUE(b.split);
  EXPECT_NEAR(b.fast, fast, 12);
  EXPECT_NEAR(b.slow, slow, 12);
  EXPECT_FALSE(split(uni).split);
}

TEST(SplitTwo, BimodalSplitsUnimodalDoesNot) { expect_splits(split_two, 64, 280, 450, 2, 1, 0); }

// The pooled split: many values, DRAM tails that leave no gap between the classes.
TEST(SplitPooled, SplitsTwoClassesWithTailsNotOneClass) { expect_splits(split_pooled, 2000, 573, 757, 3, 2, 40); }

TEST(PartitionMap, RecoversGroupsHomesLatenciesAndTheOffsetMask) {
  const std::uint64_t mask = (1u << 8) | (1u << 12) | (1u << 17);
  const MapData d = synthetic(mask, false);
  const PartitionMap m = infer_partition_map(d);
  ASSERT_TRUE(m.ok) << m.reason;
  for (int s = 0; s < 8; ++s) EXPECT_EQ(m.sm_partition[s] == m.sm_partition[0], s < 4) << "SM slot " << s;
  const int flip = m.sm_partition[0];  // group labels are arbitrary: group of SM slot 0 is partition 0
  for (std::size_t i = 0; i < d.offsets.size(); ++i) EXPECT_EQ(m.line_home[i] ^ flip, home_of(d.offsets[i], mask));
  EXPECT_NEAR(m.near_cycles, 280, 10);
  EXPECT_NEAR(m.far_cycles, 450, 10);
  EXPECT_NEAR(m.cold_near_cycles, 660, 10);
  EXPECT_NEAR(m.cold_far_cycles, 830, 10);
  ASSERT_EQ(m.page_mask.size(), 2u);
  EXPECT_EQ(m.page_mask[0], static_cast<std::int64_t>(mask));
  EXPECT_EQ(m.page_mask[1], static_cast<std::int64_t>(mask));
  EXPECT_TRUE(m.linear);
  for (const auto& p : m.pass_used) EXPECT_EQ(p, "after_write");
}

TEST(PartitionMap, UsesThePressurePassWhenTheWriteLeftANearCopy) {
  MapData d = synthetic(1u << 9, false);
  for (auto& sm : d.lat)
    for (auto& x : sm[1]) x = 280 + jitter(static_cast<std::uint64_t>(x));  // after the write: all near
  const PartitionMap m = infer_partition_map(d);
  ASSERT_TRUE(m.ok);
  for (const auto& p : m.pass_used) EXPECT_EQ(p, "after_pressure");
  EXPECT_NEAR(m.far_cycles, 455, 10);
  EXPECT_EQ(m.page_mask[0], 1 << 9);
}

TEST(PartitionMap, AHomeThatIsNoXorOfOffsetBitsIsSaid) {
  const PartitionMap m = infer_partition_map(synthetic(0, true));
  ASSERT_TRUE(m.ok);
  EXPECT_FALSE(m.linear);
}

TEST(PartitionMap, NoSplitNoMap) {
  MapData d = synthetic(1u << 9, false);
  for (auto& sm : d.lat)
    for (auto& pass : sm)
      for (auto& x : pass) x = 300;
  const PartitionMap m = infer_partition_map(d);
  EXPECT_FALSE(m.ok);
  EXPECT_FALSE(m.reason.empty());
}

// As the H100 showed it: after the write every line is near (B does not split), the pressure
// evicted both partitions' copies (D is a second cold pass), cold latencies have one-sided DRAM tails
// (a few near lines read slower than the far class), and the primer pass E splits only the SMs of
// the other partition (far hits at 455).
MapData h100_like(std::uint64_t mask) {
  MapData d;
  d.offsets = offsets();
  d.page_bytes = kPage;
  std::uint64_t seed = 3;
  auto tail = [&](double x) {  // one access in 25 waits for a busy DRAM bank
    return (seed++ % 25 == 0) ? x + 250 + 8 * jitter(seed) : x;
  };
  for (unsigned s = 0; s < 16; ++s) {
    d.sm_ids.push_back(s);
    std::vector<std::vector<double>> passes(4, std::vector<double>(d.offsets.size()));
    const int part = (s / 2) % 2;  // SMs 0,1 / 4,5 / ... in partition 0: interleaved like GPC pairs
    for (std::size_t i = 0; i < d.offsets.size(); ++i) {
      const bool far = home_of(d.offsets[i], mask) != part;
      passes[0][i] = tail((far ? 757 : 573) + jitter(seed++));  // cold
      passes[1][i] = 282 + jitter(seed++);                     // after the write: all near
      passes[2][i] = tail((far ? 757 : 573) + jitter(seed++));  // after the pressure: cold again
      // after the primer (SM 0, partition 0): SMs of partition 1 find lines homed in 0 far
      passes[3][i] = (part == 1 && far ? 455 : 282) + jitter(seed++);
    }
    d.lat.push_back(passes);
  }
  return d;
}

TEST(PartitionMap, TheH100CaseColdPassesVoteAndThePrimerGivesTheFarHits) {
  const std::uint64_t mask = (1u << 12) | (1u << 13) | (1u << 16) | (1u << 17) | (1u << 19);
  const MapData d = h100_like(mask);
  const PartitionMap m = infer_partition_map(d);
  ASSERT_TRUE(m.ok) << m.reason;
  EXPECT_EQ(m.pressure_outcome, "evicted");
  for (std::size_t s = 0; s < d.sm_ids.size(); ++s) {
    EXPECT_EQ(m.pass_used[s], "cold");
    EXPECT_EQ(m.sm_partition[s] == m.sm_partition[0], (s / 2) % 2 == 0) << "SM slot " << s;
  }
  const int flip = m.sm_partition[0];
  for (std::size_t i = 0; i < d.offsets.size(); ++i) EXPECT_EQ(m.line_home[i] ^ flip, home_of(d.offsets[i], mask)) << i;
  EXPECT_NEAR(m.near_cycles, 282, 10);
  EXPECT_NEAR(m.far_cycles, 455, 10);
  EXPECT_EQ(m.far_from, "after_primer");
  EXPECT_EQ(m.primer_split_sms, 8);  // the partition opposite the primer
  EXPECT_NEAR(m.cold_near_cycles, 573, 12);
  EXPECT_NEAR(m.cold_far_cycles, 757, 12);
  EXPECT_TRUE(m.linear);
  EXPECT_EQ(m.page_mask[0], static_cast<std::int64_t>(mask));
}

// As the H100 showed it inside a characterization (archives 20261127T195532Z ... 195730Z): the
// same map, but each cold access spread by ~53 cycles (robust deviation of a class; 588 / 776
// cycles), so the 188-cycle step is 3.5 deviations, not the 4 a pooled split needs: no pass splits on
// its own. `cold_classes` false: the cold and pressure passes carry no home at all (every line
// 665 cycles), only the primer pass does.
double spread53(std::uint64_t& seed) {  // about normal: a sum of four uniform [-0.5, 0.5) x 92 (sigma 53)
  double x = 0;
  for (int k = 0; k < 4; ++k) {
    std::uint64_t z = (seed++ + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer: independent draws
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    x += static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0 - 0.5;
  }
  return 92 * x;
}

MapData h100_characterize_like(std::uint64_t mask, bool cold_classes) {
  MapData d = h100_like(mask);
  std::uint64_t seed = 11;
  for (unsigned s = 0; s < d.lat.size(); ++s) {
    const int part = (s / 2) % 2;
    for (std::size_t i = 0; i < d.offsets.size(); ++i) {
      const bool far = home_of(d.offsets[i], mask) != part;
      for (int p : {kMapPassCold, kMapPassPressure}) {
        const double tail = (seed % 100 < 4) ? 250 : 0;  // one access in 25 waits for a busy DRAM bank
        d.lat[s][p][i] = (cold_classes ? (far ? 776 : 588) : 665) + spread53(seed) + tail;
      }
    }
  }
  return d;
}

TEST(PartitionMap, TheCharacterizationCaseThePrimerClassesConfirmedByTheColdPass) {
  const std::uint64_t mask = (1u << 12) | (1u << 13) | (1u << 16) | (1u << 17) | (1u << 19);
  const MapData d = h100_characterize_like(mask, true);
  std::vector<double> cold;
  for (const auto& sm : d.lat) cold.insert(cold.end(), sm[kMapPassCold].begin(), sm[kMapPassCold].end());
  ASSERT_FALSE(split_pooled(cold).split);  // the case: the cold pass alone does not split
  const PartitionMap m = infer_partition_map(d);
  ASSERT_TRUE(m.ok) << m.reason;
  const int flip = m.sm_partition[0];  // SM 0 is the primer: partition 0 of home_of
  for (std::size_t s = 0; s < d.sm_ids.size(); ++s) {
    const bool primer_side = (s / 2) % 2 == 0;
    EXPECT_EQ(m.sm_partition[s] == flip, primer_side) << "SM slot " << s;
    EXPECT_EQ(m.pass_used[s], primer_side ? "cold" : "after_primer") << "SM slot " << s;
    EXPECT_GE(m.sm_agreement[s], 0.75) << "SM slot " << s;
  }
  for (std::size_t i = 0; i < d.offsets.size(); ++i) EXPECT_EQ(m.line_home[i] ^ flip, home_of(d.offsets[i], mask)) << i;
  EXPECT_EQ(m.pressure_outcome, "evicted");  // D shows A's shift: a second cold pass
  EXPECT_NEAR(m.near_cycles, 282, 10);
  EXPECT_NEAR(m.far_cycles, 455, 10);
  EXPECT_NEAR(m.cold_near_cycles, 588, 20);
  EXPECT_NEAR(m.cold_far_cycles, 776, 20);
  EXPECT_EQ(m.page_mask[0], static_cast<std::int64_t>(mask));
}

// The primer pass alone is no map: when the cold pass does not show its classes (no home step in
// A and D), the map stays undecided and says why, never a confident guess from one pass.
TEST(PartitionMap, ThePrimerClassesWithoutTheColdPassGiveNoMap) {
  const MapData d = h100_characterize_like((1u << 12) | (1u << 13) | (1u << 16), false);
  const PartitionMap m = infer_partition_map(d);
  std::vector<double> cold;
  for (const auto& sm : d.lat) cold.insert(cold.end(), sm[kMapPassCold].begin(), sm[kMapPassCold].end());
  ASSERT_FALSE(split_pooled(cold).split);
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.reason.find("the cold pass does not confirm"), std::string::npos) << m.reason;
}

// An SM whose cold pass contradicts the side its primer pass gives (its near lines slow) stays
// unassigned; the others are mapped.
TEST(PartitionMap, AnSmWhoseColdPassContradictsItsPrimerSideIsUnassigned) {
  const std::uint64_t mask = (1u << 12) | (1u << 13) | (1u << 16) | (1u << 17) | (1u << 19);
  MapData d = h100_characterize_like(mask, true);
  for (std::size_t i = 0; i < d.offsets.size(); ++i) {  // slot 2 (opposite side): cold classes swapped
    const bool far = home_of(d.offsets[i], mask) != 1;
    d.lat[2][kMapPassCold][i] = far ? 588 : 776;
  }
  const PartitionMap m = infer_partition_map(d);
  ASSERT_TRUE(m.ok) << m.reason;
  EXPECT_EQ(m.sm_partition[2], -1);
  EXPECT_NE(m.sm_partition[3], -1);
}

// A dataset as the family writes it: the map of `md`'s SMs, readers 1/2/8, one SM's global_cg sweep.
Dataset section_data(const MapData& md) {
  BenchRun run;
  run.path = "synthetic.json";
  run.context = {{"memhier_version", "test"}};
  const std::string map = "l2_partitions/map:lines/lines:128/pressure_bytes:39321600";
  run.entries.push_back(test_support::bench_entry(map, {{"sms", static_cast<double>(md.sm_ids.size())}}));
  for (int r : {1, 2, 8})
    run.entries.push_back(test_support::bench_entry("l2_partitions/readers:" + std::to_string(r) + "/bytes:13107200/cta_size:256/ctas:4/ilp:4",
                                {{"bytes_per_second", 7.6e12 * (1 + 0.3 * (r - 1))}, {"readers_per_line", r}}));
  // one SM's global_cg count sweep: far-level accesses appear from 24 MiB on
  std::vector<std::pair<std::string, Trace>> traces;
  for (std::uint64_t mib : {8, 16, 20, 24, 32}) {
    const std::string name = "pchase/path:global_cg/mode:count/bytes:" + std::to_string(mib << 20) +
                             "/stride:128/iters:65536/warm:1";
    run.entries.push_back(test_support::bench_entry(name, {{"latency_cycles", 300}}));
    Trace t;
    t.kind = Trace::Kind::histogram;
    t.benchmark = name;
    t.hist.bin_width = 4;
    t.hist.counts.assign(1024, 0);
    t.hist.counts[280 / 4] = 65536 - (mib >= 24 ? 20000 : 0);
    t.hist.counts[452 / 4] = mib >= 24 ? 20000 : 0;
    traces.emplace_back(name, t);
  }
  Trace mt;
  mt.benchmark = map;
  std::string ids, offs;
  for (auto s : md.sm_ids) ids += (ids.empty() ? "" : ",") + std::to_string(s);
  mt.meta = {{"sm_ids", ids}, {"page_bytes", std::to_string(kPage)}};
  for (auto o : md.offsets) offs += (offs.empty() ? "" : ",") + std::to_string(o);
  mt.meta["line_offsets"] = offs;
  for (std::size_t s = 0; s < md.lat.size(); ++s)
    for (int p = 0; p < 3; ++p)
      for (std::size_t i = 0; i < md.offsets.size(); ++i) {
        mt.index.push_back(static_cast<std::uint32_t>(s * md.offsets.size() + i));
        mt.latency.push_back(static_cast<std::uint32_t>(md.lat[s][p][i]));
        mt.label.push_back(static_cast<std::uint8_t>(p));
      }
  traces.emplace_back(map, mt);
  Dataset d = Dataset::from_runs({run});
  for (auto& [n, t] : traces) d.add_trace(n, t);
  return d;
}

TEST(L2PartitionsSection, MapReplicationAndReaders) {
  const auto j = l2_partitions_section(section_data(synthetic(1u << 10, false)));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["map"]["partitions"], 2);
  EXPECT_EQ(j["map"]["sms_per_partition"][0].size(), 4u);
  EXPECT_EQ(j["map"]["interleave_bytes"], 1024);
  EXPECT_EQ(j["replication_limit_bytes"], 20 << 20);
  EXPECT_EQ(j["replication_bracket_bytes"][1], 24 << 20);
  EXPECT_DOUBLE_EQ(j["one_reader_per_line"]["bytes_per_second"].get<double>(), 7.6e12);
  EXPECT_EQ(j["shared_lines_by_readers"].size(), 2u);
}

// The quick plan's case on the H100: its 4 SMs all in one partition. The lines they all see far
// prove another partition, but not how many: null with the bound, never "1" (a quick run with SMs
// on both sides said 2, and the two runs must not disagree).
TEST(L2PartitionsSection, AllProbedSmsInOnePartitionGiveABoundNotOne) {
  MapData md = synthetic(1u << 10, false);
  md.sm_ids.resize(4);  // SMs 0-3 of synthetic(): partition 0
  md.lat.resize(4);
  const auto j = l2_partitions_section(section_data(md));
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["map"]["partitions"].is_null());
  EXPECT_EQ(j["map"]["partitions_lower_bound"], 2);
  EXPECT_NE(j["map"]["provenance"]["partitions"]["reason"].get<std::string>().find("at least 2"), std::string::npos);
}

TEST(ReplicationLimit, RealH100SweepWithTheLevelsOfItsChase) {
  // the golden H100 subset (tests/cli/golden/infer/h100_subset): one SM's global_cg count sweep;
  // near 281 / far 455 / DRAM 690 cycles are the levels its own chases show (docs/results.md)
  const Dataset d = Dataset::load({std::string(MEMHIER_SOURCE_DIR) + "/tests/cli/golden/infer/h100_subset/bench.json"});
  const Replication r = replication_limit(d, 281, 455, 690);
  ASSERT_FALSE(r.far_fraction.empty());
  EXPECT_EQ(r.limit, 23592960);  // 0.9 % far accesses
  EXPECT_EQ(r.next, 26214400);   // 34 % far accesses
}
