// The L2 slices from the simulated sliced L2 (sim/l2_slices.hpp), built like the H100 (2
// partitions, a modulo hash over a non-power-of-two count) and unlike it (one partition, an XOR
// hash): every slice count recovered, the XOR matrix where there is one, and null (not a wrong
// count) when the slices cannot be told apart.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "analysis/l2/l2_slices.hpp"
#include "common/l2_slice_lines.hpp"
#include "sim/l2_slices.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

// A dataset with the fingerprint trace the family writes for model `m`.
Dataset fingerprint_data(const sim::L2SlicesModel& m, int pages, int bases, int passes = 2, int repeats = 6) {
  const auto offsets = slice_test_offsets(pages, bases);
  const sim::SliceFingerprint f = sim::slice_fingerprint(m, offsets, repeats, passes, 0);
  const std::string name = "l2_slices/op:fingerprint/pages:" + std::to_string(pages) + "/bases:" + std::to_string(bases) +
                           "/hits:" + std::to_string(repeats) + "/passes:" + std::to_string(passes);
  BenchRun run = test_support::bench_run({test_support::bench_entry(name, {{"sms", static_cast<double>(f.sm_ids.size())}})},
                                         {{"memhier_version", "test"}});
  Trace t;
  t.benchmark = name;
  std::string ids, offs;
  for (auto s : f.sm_ids) ids += (ids.empty() ? "" : ",") + std::to_string(s);
  for (auto o : offsets) offs += (offs.empty() ? "" : ",") + std::to_string(o);
  t.meta = {{"sm_ids", ids}, {"line_offsets", offs}, {"page_bytes", std::to_string(kSlicePageBytes)},
            {"repeats", std::to_string(repeats)}};
  const std::size_t n = offsets.size(), sms = f.sm_ids.size();
  for (int p = 0; p < passes; ++p)
    for (std::size_t s = 0; s < sms; ++s)
      for (std::size_t k = 0; k < n; ++k) {
        t.index.push_back(static_cast<std::uint32_t>(s * n + k));
        t.latency.push_back(f.cycles[(p * sms + s) * n + k]);
        t.label.push_back(static_cast<std::uint8_t>(p));
      }
  Dataset d = Dataset::from_runs({run});
  d.add_trace(name, t);
  return d;
}

std::vector<std::vector<unsigned>> partitions_of(const sim::L2SlicesModel& m) {
  std::vector<std::vector<unsigned>> p(m.partitions);
  for (int s = 0; s < m.sm_count; ++s) p[sim::slice_partition_of_sm(m, s)].push_back(s);
  return p;
}

sim::L2SlicesModel model(const std::string& cfg, int sms) { return sim::parse_l2_slices_model(nlohmann::json::parse(cfg), sms, 1.98e9); }

}  // namespace

TEST(L2Slices, HopperLikeModuloHashTwoPartitions) {
  const auto m = model(R"({"partitions": 2, "slices_per_partition": 40, "gpcs": 8, "hash": "modulo", "hit_cycles": 250,
                           "spread_cycles": 140, "sm_spread_cycles": 4, "jitter_cycles": 3, "outlier_rate": 0.002,
                           "outlier_cycles": 700, "seed": 5})", 132);
  const auto j = l2_slices_section(fingerprint_data(m, 2, 16, 2), partitions_of(m));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["slices_per_partition"], 40) << j.dump(1);
  EXPECT_EQ(j["slices"], 80);
  EXPECT_EQ(j["line_classes"], 40);  // the replica slice has the home's index: one class per index
  EXPECT_FALSE(j["hash"]["xor_of_offset_bits"].get<bool>());
  // without the partition map the count per partition stays null, with the reason
  const auto k = l2_slices_section(fingerprint_data(m, 2, 16, 2));
  EXPECT_TRUE(k["slices_per_partition"].is_null());
  EXPECT_EQ(k["line_classes"], 40);
}

TEST(L2Slices, XorHashOnePartitionRecoversTheMatrix) {
  const auto m = model(R"({"partitions": 1, "slices_per_partition": 16, "gpcs": 4, "hash": "xor",
                           "xor_masks": [8320, 33792, 1056768, 69632], "hit_cycles": 180, "spread_cycles": 60,
                           "jitter_cycles": 1, "seed": 2})", 8);
  const auto j = l2_slices_section(fingerprint_data(m, 2, 16, 2), partitions_of(m));
  EXPECT_EQ(j["slices_per_partition"], 16) << j.dump(1);
  ASSERT_TRUE(j["hash"]["xor_of_offset_bits"].get<bool>()) << j["hash"].dump(1);
  EXPECT_EQ(j["hash"]["index_bits"], 4);
  // the recovered masks span the same space as the model's: the same class for every pair of offsets
  std::vector<std::uint64_t> got = j["hash"]["offset_masks"].get<std::vector<std::uint64_t>>();
  auto label = [](const std::vector<std::uint64_t>& ms, std::uint64_t o) {
    std::uint64_t l = 0;
    for (std::size_t i = 0; i < ms.size(); ++i) l |= static_cast<std::uint64_t>(__builtin_parityll(o & ms[i])) << i;
    return l;
  };
  const auto offsets = slice_test_offsets(1, 16);
  std::set<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (auto o : offsets) pairs.insert({label(m.xor_masks, o), label(got, o)});
  EXPECT_EQ(pairs.size(), 16u);  // a bijection between the model's slices and the recovered labels
  std::set<int> bits(j["hash"]["bits_that_change_the_slice"].begin(), j["hash"]["bits_that_change_the_slice"].end());
  EXPECT_EQ(bits, (std::set<int>{7, 10, 12, 13, 15, 16, 20}));
}

TEST(L2Slices, SlicesNoLatencyTellsApartStayNull) {
  // 64 slices whose latencies from 8 SMs of one GPC spread over 6 cycles with 4 cycles of jitter:
  // no gap between classes, so no count.
  const auto m = model(R"({"partitions": 1, "slices_per_partition": 64, "gpcs": 1, "hash": "modulo", "hit_cycles": 250,
                           "spread_cycles": 6, "sm_spread_cycles": 0, "jitter_cycles": 4, "seed": 3})", 8);
  const auto j = l2_slices_section(fingerprint_data(m, 2, 16, 2), partitions_of(m));
  EXPECT_TRUE(j["slices_per_partition"].is_null()) << j.dump(1);
  EXPECT_TRUE(j["line_classes"].is_null());
  EXPECT_FALSE(j["provenance"]["slices_per_partition"]["reason"].get<std::string>().empty());
}

TEST(L2Slices, OnePassIsNotEnough) {
  const auto m = model(R"({"partitions": 1, "slices_per_partition": 8, "gpcs": 2, "hash": "xor", "seed": 4})", 8);
  const auto j = l2_slices_section(fingerprint_data(m, 1, 8, 1), partitions_of(m));
  EXPECT_TRUE(j["line_classes"].is_null());
}

namespace {

// The contention trace for `m`: one reference per slice (the first line of each, as the family's
// plan would pick them), each line timed on `copies` probe SMs (odd ids), quiet and loaded.
Dataset contention_data(const sim::L2SlicesModel& m, int pages, int bases, std::map<std::string, std::string> context = {},
                        int copies = 4, int hits = 6) {
  const auto offsets = slice_test_offsets(pages, bases);
  const std::size_t n = offsets.size();
  std::vector<std::uint32_t> refs;
  std::set<int> seen;
  for (std::size_t l = 0; l < n; ++l)
    if (seen.insert(sim::slice_of_address(m, sim::slice_physical(m, offsets[l]))).second) refs.push_back(static_cast<std::uint32_t>(l));
  std::vector<unsigned> probe;  // per line x copies + copy
  for (std::size_t lc = 0; lc < n * copies; ++lc) probe.push_back(static_cast<unsigned>(2 * (lc % (m.sm_count / 2)) + 1));
  const std::string name = "l2_slices/op:contention/pages:" + std::to_string(pages) + "/bases:" + std::to_string(bases) +
                           "/hits:" + std::to_string(hits) + "/copies:" + std::to_string(copies);
  context["memhier_version"] = "test";
  BenchRun run = test_support::bench_run({test_support::bench_entry(name, {{"refs", static_cast<double>(refs.size())}})}, context);
  Trace t;
  t.benchmark = name;
  auto join = [](const auto& v) {
    std::string s;
    for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
    return s;
  };
  t.meta = {{"line_offsets", join(offsets)}, {"page_bytes", std::to_string(kSlicePageBytes)}, {"repeats", std::to_string(hits)},
            {"copies", std::to_string(copies)}, {"refs", join(refs)}, {"probe_sms", join(probe)}};
  const std::size_t block = n * copies;
  for (std::size_t k = 0; k < refs.size(); ++k)
    for (std::size_t lc = 0; lc < block; ++lc) {
      t.index.push_back(static_cast<std::uint32_t>(k * block + lc));
      t.latency.push_back(sim::slice_record(m, probe[lc], offsets[lc / copies], hits, 100 + k, offsets[refs[k]]));
      t.label.push_back(1);
    }
  for (std::size_t lc = 0; lc < block; ++lc) {
    t.index.push_back(static_cast<std::uint32_t>(refs.size() * block + lc));
    t.latency.push_back(sim::slice_record(m, probe[lc], offsets[lc / copies], hits, 7, UINT64_MAX));
    t.label.push_back(0);
  }
  Dataset d = Dataset::from_runs({run});
  d.add_trace(name, t);
  return d;
}

}  // namespace

TEST(L2Slices, ContentionCountsTheSlicesPerPartition) {
  const auto m = model(R"({"partitions": 2, "slices_per_partition": 40, "gpcs": 8, "hash": "modulo", "spread_cycles": 140,
                           "jitter_cycles": 3, "outlier_rate": 0.002, "outlier_cycles": 700, "contention_cycles": 250, "seed": 5})",
                       132);
  const auto j = l2_slices_section(contention_data(m, 2, 8), partitions_of(m));
  ASSERT_TRUE(j.contains("contention")) << j.dump(1);
  EXPECT_EQ(j["contention"]["slices_per_partition"], 40) << j["contention"].dump(1);
  EXPECT_EQ(j["slices_per_partition"], 40);
  EXPECT_EQ(j["slices"], 80);
  EXPECT_EQ(j["slices_from"], "contention");
  EXPECT_FALSE(j["hash"]["xor_of_offset_bits"].get<bool>());
}

TEST(L2Slices, ContentionRecoversAnXorHash) {
  const auto m = model(R"({"partitions": 1, "slices_per_partition": 16, "gpcs": 4, "hash": "xor",
                           "xor_masks": [8320, 33792, 1056768, 69632], "jitter_cycles": 1, "contention_cycles": 80, "seed": 2})", 8);
  const auto j = l2_slices_section(contention_data(m, 2, 8), partitions_of(m));
  EXPECT_EQ(j["slices_per_partition"], 16) << j.dump(1);
  EXPECT_TRUE(j["hash"]["xor_of_offset_bits"].get<bool>());
  EXPECT_EQ(j["hash"]["index_bits"], 4);
}

TEST(L2Slices, ContentionWithoutSignalStaysNull) {
  // hammering slows every line alike (no slice of its own): no reference splits the lines
  const auto m = model(R"({"partitions": 1, "slices_per_partition": 16, "gpcs": 4, "hash": "xor", "jitter_cycles": 4,
                           "contention_cycles": 5, "contention_other_cycles": 5, "seed": 6})", 8);
  const auto j = l2_slices_section(contention_data(m, 2, 8), partitions_of(m));
  EXPECT_TRUE(j["contention"]["slices_per_partition"].is_null()) << j["contention"].dump(1);
  EXPECT_TRUE(j["slices_per_partition"].is_null() || j.value("slices_from", "") != "contention");
}

TEST(L2Slices, ACountTheL2DoesNotDivideIsALowerBound) {
  const auto m = model(R"({"partitions": 2, "slices_per_partition": 40, "gpcs": 8, "hash": "modulo", "jitter_cycles": 3,
                           "contention_cycles": 250, "seed": 5})", 132);
  // 80 slices of 640 KiB: 50 MiB divides among them; 50 MiB + one line does not
  const auto fits = l2_slices_section(contention_data(m, 2, 8, {{"l2_cache_bytes", "52428800"}}), partitions_of(m));
  EXPECT_EQ(fits["slices"], 80) << fits["contention"].dump(1);
  EXPECT_EQ(fits["contention"]["l2_units_per_slice"], 5120);
  const auto odd = l2_slices_section(contention_data(m, 2, 8, {{"l2_cache_bytes", "52428928"}}), partitions_of(m));
  EXPECT_TRUE(odd["slices_per_partition"].is_null()) << odd.dump(1);
  EXPECT_EQ(odd["slices_per_partition_at_least"], 40);
  EXPECT_EQ(odd["slices_at_least"], 80);
  EXPECT_NE(odd["provenance"]["slices_per_partition"]["reason"].get<std::string>().find("do not divide"), std::string::npos);
}
