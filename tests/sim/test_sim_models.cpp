// The simulator's policies are the common models (common/policy.hpp), its GF(2) index function,
// launch invalidation, and the configs built like (and unlike) Hopper's caches.
#include <gtest/gtest.h>

#include <set>

#include "common/policy.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using testing::config_path;
using testing::hits_of;
using testing::one_level_config;

std::vector<std::int64_t> random_lines(std::uint64_t seed, int n, int distinct) {
  policy::SplitMix64 g(seed);
  std::vector<std::int64_t> v;
  for (int k = 0; k < n; ++k) v.push_back(static_cast<std::int64_t>(g.next() % static_cast<std::uint64_t>(distinct)));
  return v;
}

// One set of `ways` 32-byte lines: the simulator's hits equal the common model's, access by access,
// for every candidate policy (LRU/FIFO run the simulator's own list fast path) and random with a seed.
TEST(SimModels, OneSetAgreesWithTheCommonModels) {
  for (std::uint32_t ways : {1u, 2u, 4u, 8u, 16u, 6u}) {
    for (const std::string& name : policy::candidate_policies(ways)) {
      for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
        // a policy that draws (random, brrip) gets the seed the model uses
        const std::string repl = !policy::policy_is_deterministic(name)
                                     ? R"({"policy": ")" + name + R"(", "seed": )" + std::to_string(seed) + "}"
                                     : "\"" + name + "\"";
        SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": )" + std::to_string(ways) +
                                     R"(, "replacement": )" + repl + "}"));
        const auto lines = random_lines(seed * 7 + ways, 400, static_cast<int>(ways) + 3);
        std::vector<std::uint64_t> addrs;
        for (auto l : lines) addrs.push_back(32ull * static_cast<std::uint64_t>(l) + 4 * (l % 8));
        const std::vector<bool> sim = hits_of(d, addrs);
        std::vector<bool> model;
        if (policy::policy_is_deterministic(name)) {
          model = policy::simulate_set(name, ways, lines);
        } else {
          for (double p : policy::hit_probability(name, ways, lines, 1, seed)) model.push_back(p > 0.5);
        }
        EXPECT_EQ(sim, model) << name << " ways " << ways << " seed " << seed;
      }
    }
  }
}

// Repeated hits to one line must reach the policy when it is not idempotent (QLRU promotion).
TEST(SimModels, RepeatedHitsReachQlru) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 4, "replacement": "qlru_h21_m2_r0_u0_umo"})"));
  const std::vector<std::int64_t> lines = {1, 2, 3, 4, 1, 1, 5, 6, 7, 1, 2};
  std::vector<std::uint64_t> addrs;
  for (auto l : lines) addrs.push_back(32ull * static_cast<std::uint64_t>(l));
  EXPECT_EQ(hits_of(d, addrs), policy::simulate_set("qlru_h21_m2_r0_u0_umo", 4, lines));
}

TEST(SimModels, Gf2IndexIsTheParityOfMaskedBits) {
  // Two rows: set bit 0 = bit 5 ^ bit 7, set bit 1 = bit 6 ^ bit 8 ^ bit 12.
  SimDevice d(one_level_config(
      R"({"line_bytes": 32, "sets": 4, "ways": 1, "index": {"function": "gf2", "rows": [160, "0x1140"]}})"));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->set_of(0x00), 0u);
  EXPECT_EQ(c->set_of(0x20), 1u);   // bit 5
  EXPECT_EQ(c->set_of(0xA0), 0u);   // bits 5 and 7 cancel
  EXPECT_EQ(c->set_of(0x40), 2u);   // bit 6
  EXPECT_EQ(c->set_of(0x1000), 2u); // bit 12
  EXPECT_EQ(c->set_of(0x1140), 2u); // bits 6, 8, 12: odd
  EXPECT_EQ(c->set_of(0x1040), 0u); // bits 6 and 12 cancel
  EXPECT_EQ(c->set_of(0x1F), 0u);   // bits inside the line do not count
}

TEST(SimModels, Gf2ConfigErrors) {
  auto err = [](const std::string& index) {
    try {
      one_level_config(R"({"line_bytes": 32, "sets": 4, "ways": 1, "index": )" + index + "}");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err(R"({"function": "gf2"})").find("needs 'rows'"), std::string::npos);
  EXPECT_NE(err(R"({"function": "gf2", "rows": [32]})").find("1 gf2 rows choose among 2 sets"), std::string::npos);
  EXPECT_NE(err(R"({"function": "gf2", "rows": [32, 32]})").find("linearly dependent"), std::string::npos);
  EXPECT_NE(err(R"({"function": "gf2", "rows": [32, 16]})").find("below the line"), std::string::npos);
  EXPECT_NE(err(R"({"function": "gf2", "rows": [32, 0]})").find("is 0"), std::string::npos);
  EXPECT_NE(err(R"({"function": "gf2", "rows": [32, "0xzz"]})").find("not a number"), std::string::npos);
  EXPECT_EQ(err(R"({"function": "gf2", "rows": [32, "0x40"]})"), "");
}

TEST(SimModels, EveryPolicyNameAndLaunchInvalidationParse) {
  for (const std::string& name : policy::candidate_policies(8, true)) {
    if (name == "random") continue;
    EXPECT_NO_THROW(one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 8, "replacement": ")" + name + "\"}"))
        << name;
  }
  Config c = one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 8, "launch_invalidates": true})");
  EXPECT_TRUE(c.levels[0].launch_invalidates);
  EXPECT_FALSE(one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 8})").levels[0].launch_invalidates);
  EXPECT_THROW(one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 8, "launch_invalidates": 1})"),
               std::runtime_error);
  EXPECT_THROW(one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 8, "replacement": "qlru_h11_m1_r0_u3"})"),
               std::runtime_error);
}

// Every line of a config built like Hopper's L1 maps to one set; the sets fill evenly over an
// aligned region of the capacity (a full-rank GF(2) hash), and the soft edge follows from it: a
// region one line per set larger overflows every set, but a misaligned one overflows some sets early.
TEST(SimModels, HopperLikeL1IsHashedAndFillsEvenly) {
  Config cfg = load_config(config_path("hopper_like"));
  SimDevice d(cfg);
  const CacheModel* l1 = d.level("l1");
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(cfg.levels[0].index.kind, IndexKind::gf2);
  std::vector<int> per_set(l1->sets(), 0);
  const std::uint64_t line = l1->spec().line_bytes;
  for (std::uint64_t a = 0; a < l1->spec().capacity_bytes(); a += line) ++per_set[l1->set_of(a)];
  for (std::size_t s = 0; s < per_set.size(); ++s) EXPECT_EQ(per_set[s], static_cast<int>(l1->ways(s))) << s;
  // The set is not given by contiguous bits: lines 2^k lines apart do not all share a set.
  std::set<std::size_t> sets_of_strided;
  for (std::uint64_t k = 0; k < 64; ++k) sets_of_strided.insert(l1->set_of(k * line * l1->sets()));
  EXPECT_GT(sets_of_strided.size(), 1u);
}

TEST(SimModels, ShippedConfigsForIssue10Load) {
  for (const char* n : {"hopper_like", "unlike_hopper"}) {
    Config c = load_config(config_path(n));
    EXPECT_EQ(c.name, n);
    SimDevice d(c);
    for (const auto& l : c.levels) {
      if (l.name == "l2") {
        EXPECT_EQ(l.capacity_bytes(), c.device.l2_bytes) << n;
      }
    }
  }
}

}  // namespace
}  // namespace memhier::sim
