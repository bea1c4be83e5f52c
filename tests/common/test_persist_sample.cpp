// The l2_persist probe's sample lines (common/persist_sample.hpp): every sample inside the window,
// one per block, blocks covering the whole window — the tail included, where the lines the warm
// pass touched last lie.
#include <gtest/gtest.h>

#include <cstdint>

#include "common/persist_sample.hpp"

using namespace memhier;

namespace {

void check_cover(std::uint64_t lines, std::uint32_t samples) {
  std::uint64_t prev = 0, last = 0, in_tail = 0;
  const std::uint64_t tail_start = lines - lines / 4;  // the window's last quarter
  for (std::uint32_t k = 0; k < samples; ++k) {
    const std::uint64_t x = persist_sample_line(k, lines, samples);
    ASSERT_LT(x, lines) << "sample " << k << " of " << samples << " over " << lines << " lines";
    ASSERT_GE(x, k * lines / samples) << "sample " << k << " left its block";
    ASSERT_LT(x, (static_cast<std::uint64_t>(k) + 1) * lines / samples) << "sample " << k << " left its block";
    if (k > 0) ASSERT_GT(x, prev) << "samples " << k - 1 << " and " << k << " share a line or are out of order";
    prev = x;
    last = x;
    in_tail += x >= tail_start;
  }
  // the last block ends at the window's end; the last quarter of the window holds about a quarter of the samples
  EXPECT_GE(last, lines - (lines + samples - 1) / samples);
  EXPECT_NEAR(static_cast<double>(in_tail) / samples, 0.25, 1.5 / samples + 1e-9);
}

}  // namespace

TEST(PersistSample, SamplesCoverTheWholeWindowNotJustItsHead) {
  // W = 31.25 MiB and 62.5 MiB (the H100's M and 2M: 256 000 and 512 000 lines, 65 536 samples —
  // blocks of floor(lines / samples) = 3 and 7 lines covered only 76.8 % and 89.6 % of them)
  check_cover(256000, 65536);
  check_cover(512000, 65536);
  check_cover(65536, 65536);  // one line per block: every line
  check_cover(4096, 4096);
  check_cover(131071, 65536);  // blocks of one and two lines
  check_cover(1000003, 4096);
}

TEST(PersistSample, OneSampleSpansTheWindow) {
  // a single block is the whole window; the sample lies inside it
  for (std::uint64_t lines : {1ull, 2ull, 3ull, 1000ull}) EXPECT_LT(persist_sample_line(0, lines, 1), lines);
}
