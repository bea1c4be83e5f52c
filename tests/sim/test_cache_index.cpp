// An index that reads address bits below the line (here a table shifted by 6 for 128-byte lines:
// libFuzzer's finding on l1_table_unequal_srrip.json) still puts each line in one set: the second
// pass over lines that fit hits every sector, and nothing reads outside a set's ways.
#include <gtest/gtest.h>

#include "sim/cache.hpp"
#include "sim/config.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

TEST(CacheIndex, IndexBitsBelowTheLineKeepALineInOneSet) {
  const Config c = load_config(testing::config_path("l1_table_unequal_srrip"));
  LevelSpec l1 = c.levels[0];
  ASSERT_EQ(l1.line_bytes, 128u);
  l1.index.shift = 6;
  CacheModel m(l1);
  EXPECT_EQ(m.set_of(512), m.set_of(576));  // the two halves of line 4: table entries 8 (set 0) and 9 (set 1)
  // Lines 0..4 (their halves read table entries 0..9) fit set 0's 9 ways: the second pass hits.
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t a = 0; a < 5 * 128; a += 32) {
      const bool hit = m.access(a);
      if (pass == 1) EXPECT_TRUE(hit) << a;
    }
}

}  // namespace
}  // namespace memhier::sim
