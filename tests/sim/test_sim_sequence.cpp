// Access sequences on the simulated device (sim/sequence.hpp): records per mode, the defined start,
// launch invalidation, repeats.
#include <gtest/gtest.h>

#include "sim/sequence.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using testing::one_level_config;

std::array<int, kSeqPathCount> ids_of(const SimDevice& d) {
  std::array<int, kSeqPathCount> ids;
  for (std::uint8_t c = 0; c < kSeqPathCount; ++c) ids[c] = d.path_id(seq_path_name(c));
  return ids;
}

constexpr std::uint8_t kCg = 1;  // global_cg: the one-level test device's path

TEST(SimSequence, LatencyRecordsAndADefinedStart) {
  // 2 ways of 32-byte lines, LRU: A B A C B -> miss miss hit miss miss(B was evicted by C).
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2})"));
  SequenceBuilder b;
  for (std::uint64_t a : {0, 32, 0, 64, 32}) b.access(a, kCg, true);
  const AccessSequence s = b.take();
  SequenceOutcome o = run_sequence(d, s, ids_of(d));
  EXPECT_EQ(o.records, (std::vector<std::uint32_t>{100, 100, 10, 100, 100}));
  EXPECT_EQ(o.accesses, 5u);
  EXPECT_EQ(o.total_cycles, 410u);
  // The device starts empty every time: the same records again.
  EXPECT_EQ(run_sequence(d, s, ids_of(d)).records, o.records);
}

TEST(SimSequence, MissModesCountAndOrIntoSlots) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2})"));
  // Three lines cycling through two ways (LRU): every access misses; untimed first round.
  SequenceBuilder b(RecordMode::miss_count, 50);
  b.pass(0, 32, 3, kCg);
  const std::uint32_t slot = b.new_slots(1);
  const std::size_t m = b.mark();
  b.pass_into(0, 32, 3, kCg, slot, 0);
  b.repeat_since(m, 5);
  SequenceOutcome o = run_sequence(d, b.take(), ids_of(d));
  EXPECT_EQ(o.records, (std::vector<std::uint32_t>{15}));
  EXPECT_EQ(o.accesses, 18u);
  SequenceBuilder a(RecordMode::miss_any, 50);
  a.pass(0, 32, 2, kCg);
  a.pass(0, 32, 2, kCg, true);  // two lines fit: both hit
  a.pass(64, 32, 1, kCg, true); // a third misses
  EXPECT_EQ(run_sequence(d, a.take(), ids_of(d)).records, (std::vector<std::uint32_t>{0, 0, 1}));
}

TEST(SimSequence, LaunchBreaksEmptyOnlyTheMarkedLevels) {
  for (bool invalidates : {true, false}) {
    SimDevice d(one_level_config(std::string(R"({"line_bytes": 32, "sets": 1, "ways": 2, "launch_invalidates": )") +
                                 (invalidates ? "true" : "false") + "}"));
    SequenceBuilder b;
    b.access(0, kCg);
    b.launch_break();
    b.access(0, kCg, true);
    SequenceOutcome o = run_sequence(d, b.take(), ids_of(d));
    EXPECT_EQ(o.launches, 2);
    EXPECT_EQ(o.records[0], invalidates ? 100u : 10u);
  }
}

// sequence_start "as_left" (what the H100 does): a sequence finds what the one before it left in a
// level that launches keep, and an empty launch_invalidates level (a sequence is a new launch).
TEST(SimSequence, AsLeftKeepsWhatEarlierSequencesLeft) {
  for (bool invalidates : {false, true}) {
    Config c = one_level_config(std::string(R"({"line_bytes": 32, "sets": 1, "ways": 2, "launch_invalidates": )") +
                                (invalidates ? "true" : "false") + "}");
    c.sequences_as_left = true;
    SimDevice d(c);
    SequenceBuilder first;
    first.access(0, kCg);
    run_sequence(d, first.take(), ids_of(d));
    SequenceBuilder second;
    second.access(0, kCg, true);
    EXPECT_EQ(run_sequence(d, second.take(), ids_of(d)).records[0], invalidates ? 100u : 10u);
  }
  SimDevice empty(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2})"));
  SequenceBuilder a, b;
  a.access(0, kCg);
  b.access(0, kCg, true);
  run_sequence(empty, a.take(), ids_of(empty));
  EXPECT_EQ(run_sequence(empty, b.take(), ids_of(empty)).records[0], 100u);  // the default: empty
}

TEST(SimSequence, UnmappedPathIsAnError) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2})"));
  SequenceBuilder b;
  b.access(0, 3, true);  // texture: not mapped by the one-level device
  EXPECT_THROW(run_sequence(d, b.take(), ids_of(d)), std::invalid_argument);
}

}  // namespace
}  // namespace memhier::sim
