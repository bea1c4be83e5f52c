// Issue 20: a TLB level's penalty is its own step, never the next level's added. Rises of one chain
// (synthetic, heights and intervals as the simulated configs of tests/cli/infer_tlb_coincide.cmake
// gave them): past a plateau of the level's own, a larger height holds another level's misses
// (64 then 264 cycles: tlb_coincide_l1); heights that neither stay nor double are two levels at
// once (106.5, 213.2, 226.3: tlb_coincide_three): null, no bound; a lone highest rise followed by a
// lower one is no plateau (the H200's 94.6 then 23.1 cycles): a bound of the highest.
#include <gtest/gtest.h>

#include "analysis/tlb/levels.hpp"
#include "analysis/tlb/penalty.hpp"

using namespace memhier::analysis;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

TlbLevel chain(std::uint64_t first_stride, const std::vector<double>& heights, double ci95) {
  TlbLevel L;
  L.alloc = "malloc";
  std::uint64_t s = first_stride;
  for (double h : heights) {
    TlbRise r;
    r.alloc = "malloc";
    r.stride = s;
    r.lo = 16 * s;
    r.hi = 24 * s;
    r.height = h;
    r.ci95 = ci95;
    L.rises.push_back(r);
    s *= 2;
  }
  return L;
}

nlohmann::json penalty_of(const TlbLevel& L) {
  nlohmann::json c;
  write_tlb_penalty(c, L, {}, TlbSteps{}, {});
  return c;
}

}  // namespace

TEST(TlbCombined, HeightAboveTheLevelsOwnPlateauIsAnotherLevels) {
  TlbLevel L = chain(512 * 1024, {16, 32, 64, 64, 264, 264, 264}, 0.01);
  derive_tlb_level(L);
  EXPECT_TRUE(L.saturated);
  EXPECT_NEAR(L.penalty, 64, 0.01);  // before: 264 (the chain's highest rise)
  EXPECT_EQ(L.s_sat, 2 * kMiB);
  EXPECT_EQ(L.entry_bytes, 2 * kMiB);
  EXPECT_FALSE(L.mixed.empty());
  EXPECT_TRUE(L.rises[4].combined);
  EXPECT_NEAR(penalty_of(L)["miss_penalty_cycles"].get<double>(), 64, 0.05);
}

TEST(TlbCombined, HeightsThatNeitherStayNorDoubleAreNullWithoutABound) {
  TlbLevel L = chain(16 * kMiB, {106.5, 213.2, 226.3, 252.5, 305, 410, 410, 410}, 0.1);
  derive_tlb_level(L);
  EXPECT_TRUE(L.mixed_unresolved);
  const auto c = penalty_of(L);  // before: 410 (the plateau of both levels at 512 MiB-2 GiB)
  EXPECT_TRUE(c["miss_penalty_cycles"].is_null());
  EXPECT_FALSE(c.contains("miss_penalty_lower_bound_cycles"));
  EXPECT_NE(c["provenance"]["miss_penalty_cycles"]["reason"].get<std::string>().find("neither stay nor grow"),
            std::string::npos);
}

TEST(TlbCombined, OneLevelsDoublingHeightsAreNotMixed) {
  // the H100's 10-cycle level of one archive: partial shares that do not double exactly
  TlbLevel L = chain(1 * kMiB, {0.66, 1.35, 2.33, 4.72, 9.52, 9.35, 9.46, 9.38, 9.45, 9.69, 9.73, 9.45, 9.18}, 0.4);
  derive_tlb_level(L);
  EXPECT_TRUE(L.mixed.empty());
  EXPECT_TRUE(L.saturated);
  EXPECT_NEAR(L.penalty, 9.5, 0.2);
  EXPECT_EQ(L.entry_bytes, 16 * kMiB);
}

TEST(TlbCombined, LoneHighestRiseFollowedByALowerOneIsABound) {
  TlbLevel L = chain(4 * kMiB, {5.89, 23.45, 46.8, 94.57, 23.11}, 0.8);
  derive_tlb_level(L);
  EXPECT_FALSE(L.saturated);  // before: saturated at 94.6 with entries of 32 MiB
  const auto c = penalty_of(L);
  EXPECT_TRUE(c["miss_penalty_cycles"].is_null());
  EXPECT_NEAR(c["miss_penalty_lower_bound_cycles"].get<double>(), 94.6, 0.05);
}
