// Access sequences (common/sequence.hpp) and their traces (common/seqtrace.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "common/seqtrace.hpp"
#include "common/sequence_policy.hpp"
#include "common/sequence.hpp"

using namespace memhier;

namespace {
struct Acc {
  std::uint64_t off;
  std::uint8_t path;
  std::uint32_t slot;
  bool operator==(const Acc& o) const { return off == o.off && path == o.path && slot == o.slot; }
};
std::vector<Acc> expand(const AccessSequence& s, int* breaks = nullptr) {
  std::vector<Acc> v;
  int b = 0;
  for_each_access(
      s, [&](std::uint64_t o, std::uint8_t p, std::uint32_t sl) { v.push_back({o, p, sl}); }, [&] { ++b; });
  if (breaks) *breaks = b;
  return v;
}
}  // namespace

TEST(Sequence, SingleAccessesCompressIntoRuns) {
  SequenceBuilder b;
  for (std::uint64_t k = 0; k < 100; ++k) b.access(4096 + 128 * k, 0);  // one progression
  b.access(4, 1, true);                                                  // another path, timed
  b.access(8, 1, true);                                                  // continues it (next slot)
  b.access(8, 1, true);                                                  // stride 8 -> 8 -> 8? no: breaks it
  AccessSequence s = b.take();
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[0].count, 100u);
  EXPECT_EQ(s.runs[0].stride, 128);
  EXPECT_FALSE(s.runs[0].timed());
  EXPECT_EQ(s.runs[1].count, 2u);
  EXPECT_EQ(s.runs[1].slot, 0u);
  EXPECT_EQ(s.runs[2].slot, 2u);
  EXPECT_EQ(s.slots, 3u);
  EXPECT_EQ(access_count(s), 103u);
  const auto v = expand(s);
  EXPECT_EQ(v[99].off, 4096u + 128 * 99);
  EXPECT_EQ(v[101], (Acc{8, 1, 1}));
  EXPECT_EQ(v[102], (Acc{8, 1, 2}));
}

TEST(Sequence, LinesFartherApartThanARunStrideStaySeparateRuns) {
  // a flip of address bit 31 (the H100's L1 search on a 4 GiB array): the two accesses must not
  // become one run of stride -2^31 - x, which the CUDA kernel cannot hold
  SequenceBuilder b;
  b.access(0x8023afe0ull, 0);
  b.access(0x1000ull, 0);
  b.access(0x1000ull + 0x7FFFFFFCull, 0);  // +2^31 - 4: still fits
  AccessSequence s = b.take();
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].count, 1u);
  EXPECT_EQ(s.runs[1].count, 2u);
  EXPECT_EQ(s.runs[1].stride, kMaxRunStride - 3);
  const auto v = expand(s);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].off, 0x8023afe0ull);
  EXPECT_EQ(v[2].off, 0x1000ull + 0x7FFFFFFCull);
}

TEST(Sequence, RepeatBlocksAndLaunchBreaks) {
  SequenceBuilder b(RecordMode::miss_count, 100);
  b.access(0, 0);
  const std::uint32_t t = b.new_slots(1);
  const std::size_t m = b.mark();
  b.access(128, 0);  // does not extend the run before the mark
  b.pass(4096, 64, 3, 0);
  b.pass_into(0, 0, 1, 0, t, 0);  // the target, timed, counted into one slot each round
  b.repeat_since(m, 4);
  b.launch_break();
  b.access(256, 3, true);
  AccessSequence s = b.take();
  EXPECT_EQ(check_sequence(s, 8192), "");
  ASSERT_EQ(s.runs.size(), 6u);
  EXPECT_TRUE(s.runs[4].is_repeat());
  EXPECT_EQ(s.runs[4].repeat, 3u);
  EXPECT_EQ(s.launch_breaks, (std::vector<std::uint32_t>{5}));
  int breaks = 0;
  const auto v = expand(s, &breaks);
  EXPECT_EQ(breaks, 1);
  EXPECT_EQ(v.size(), 1u + 4 * 5 + 1);
  EXPECT_EQ(access_count(s), v.size());
  int target_hits = 0;
  for (const auto& a : v) target_hits += a.slot == t;
  EXPECT_EQ(target_hits, 4);
  EXPECT_EQ(v.back(), (Acc{256, 3, 1}));
}

TEST(Sequence, ChecksCatchMalformedSequences) {
  SequenceBuilder b;
  b.pass(0, 4, 10, 0);
  AccessSequence s = b.take();
  EXPECT_EQ(check_sequence(s, 40), "");
  EXPECT_NE(check_sequence(s, 39).find("outside the array"), std::string::npos);
  s.runs[0].offset = 2;
  EXPECT_NE(check_sequence(s, 4096).find("multiples of 4"), std::string::npos);
  s.runs[0].offset = 0;
  s.runs[0].path = 9;
  EXPECT_NE(check_sequence(s, 4096).find("unknown load path"), std::string::npos);
  s.runs[0].path = 0;
  s.runs[0].slot = 0;  // timed, but the sequence has no slots
  EXPECT_NE(check_sequence(s, 4096).find("slot"), std::string::npos);
  s.runs[0].slot = kUntimed;
  AccessRun rep;
  rep.repeat = 2;
  rep.count = 3;
  s.runs.push_back(rep);
  EXPECT_NE(check_sequence(s, 4096).find("before the first run"), std::string::npos);
  s.runs.back().repeat = 1;
  s.launch_breaks = {1};
  EXPECT_NE(check_sequence(s, 4096).find("launch break"), std::string::npos);
  s.launch_breaks.clear();
  s.mode = RecordMode::miss_any;
  EXPECT_NE(check_sequence(s, 4096).find("threshold"), std::string::npos);
  // A negative stride that stays inside the array is fine.
  SequenceBuilder n;
  n.pass(36, -4, 10, 2);
  EXPECT_EQ(check_sequence(n.peek(), 40), "");
}

TEST(SeqTrace, RoundTripsEveryField) {
  SeqTrace t;
  t.benchmark = "cache_sequences/cache:l1/path:global_ca";
  t.meta["path"] = "global_ca";
  t.meta["start"] = "empty";
  SequenceBuilder b(RecordMode::miss_any, 51);
  b.pass(0x10000, 128, 2000, 0);
  const std::uint32_t first = b.pass(0x10000, 128, 2000, 0, true);
  const std::size_t m = b.mark();
  b.access(0x200000, 0);
  b.repeat_since(m, 1);
  b.launch_break();
  b.pass_into(0x10000, 128, 2000, 0, first, 1);
  SeqTraceEntry e;
  e.seq = b.take();
  e.tags["step"] = "discover";
  e.tags["target"] = "0x200000";
  e.records.assign(e.seq.slots, 0);
  e.records[17] = 1;
  e.records[1999] = 1;
  t.entries.push_back(e);
  SeqTraceEntry lat;
  SequenceBuilder lb;
  lb.access(0, 3, true);
  lb.access(64, 3, true);
  lat.seq = lb.take();
  lat.records = {34, 290};
  t.entries.push_back(lat);
  SeqTraceEntry bad;
  bad.seq = lat.seq;
  bad.error = "the device does not map the texture path";
  t.entries.push_back(bad);

  const std::string text = format_seq_trace(t);
  EXPECT_LT(text.size(), 600u);  // a 2000-line pass is one line; the sparse records two pairs
  SeqTrace r = parse_seq_trace(text, "mem");
  EXPECT_EQ(r.benchmark, t.benchmark);
  EXPECT_EQ(r.meta, t.meta);
  ASSERT_EQ(r.entries.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(r.entries[k].seq.runs, t.entries[k].seq.runs) << k;
    EXPECT_EQ(r.entries[k].seq.launch_breaks, t.entries[k].seq.launch_breaks) << k;
    EXPECT_EQ(r.entries[k].seq.mode, t.entries[k].seq.mode) << k;
    EXPECT_EQ(r.entries[k].seq.threshold_cycles, t.entries[k].seq.threshold_cycles) << k;
    EXPECT_EQ(r.entries[k].seq.slots, t.entries[k].seq.slots) << k;
    EXPECT_EQ(r.entries[k].records, t.entries[k].records) << k;
    EXPECT_EQ(r.entries[k].tags, t.entries[k].tags) << k;
    EXPECT_EQ(r.entries[k].error, t.entries[k].error) << k;
  }
  // Files too.
  const std::string path = testing::TempDir() + "/seq.trace";
  write_seq_trace(path, t);
  EXPECT_EQ(read_seq_trace(path).entries.size(), 3u);
  std::remove(path.c_str());
}

TEST(SeqTrace, RejectsDamage) {
  SeqTrace t;
  t.benchmark = "b";
  SeqTraceEntry e;
  SequenceBuilder b;
  b.access(0, 0, true);
  e.seq = b.take();
  e.records = {5};
  t.entries.push_back(e);
  const std::string good = format_seq_trace(t);
  auto err = [](const std::string& text) {
    try {
      parse_seq_trace(text, "f");
    } catch (const std::runtime_error& x) {
      return std::string(x.what());
    }
    return std::string();
  };
  EXPECT_EQ(err(good), "");
  EXPECT_NE(err(good.substr(0, good.size() - 4)).find("end marker"), std::string::npos);
  EXPECT_NE(err("memhier-seqtrace 2\n").find("version 2"), std::string::npos);
  EXPECT_NE(err("memhier-trace 1\n").find("not a memhier sequence trace"), std::string::npos);
  std::string bad_path = good;
  bad_path.replace(bad_path.find("global_ca"), 9, "global_xx");
  EXPECT_NE(err(bad_path).find("unknown load path"), std::string::npos);
  std::string short_rec = good;
  short_rec.replace(short_rec.find("o d 5"), 5, "o d");
  EXPECT_NE(err(short_rec).find("fewer records"), std::string::npos);
  t.entries[0].tags["bad key"] = "x";
  EXPECT_THROW(format_seq_trace(t), std::invalid_argument);
}

TEST(SeqTrace, RepeatedListsAreWrittenOnce) {
  SeqTrace t;
  t.benchmark = "b";
  const std::vector<std::uint64_t> set = {0x1040, 0x2080, 0x40c0, 0x8100, 0x10140};
  for (int k = 0; k < 3; ++k) {
    SequenceBuilder b(RecordMode::miss_count, 50);
    const std::uint32_t slot = b.new_slots(1);
    b.pass_into(0x100000 + 64 * k, 0, 1, 0, slot, 0);
    for (auto x : set) b.access(x, 0);
    b.access(0x200000, 2);  // another path: a full run line
    SeqTraceEntry e;
    e.seq = b.take();
    e.records = {static_cast<std::uint32_t>(k)};
    t.entries.push_back(e);
  }
  const std::string text = format_seq_trace(t);
  // Two single accesses always merge into one run: the set is three runs here.
  EXPECT_NE(text.find("L 0 0x1040:4160:2 0x40c0:16448:2 0x10140"), std::string::npos) << text;
  EXPECT_NE(text.find("\nl 0 0:3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nt 0x100040 0 0\n"), std::string::npos) << text;
  const SeqTrace r = parse_seq_trace(text, "mem");
  ASSERT_EQ(r.entries.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(r.entries[k].seq.runs, t.entries[k].seq.runs) << k;
    EXPECT_EQ(r.entries[k].records, t.entries[k].records) << k;
  }
  std::string bad = text;
  bad.replace(bad.find("L 0 "), 4, "L 1 ");
  EXPECT_THROW(parse_seq_trace(bad, "mem"), std::runtime_error);
}

TEST(SequencePolicy, PredictedMissesFollowThePolicy) {
  // Two ways: lines A B A C B; the last three are timed (A hit; C miss; B: LRU miss, FIFO hit).
  SequenceBuilder b(RecordMode::miss_count, 10);
  b.access(0x100, 0);
  b.access(0x200, 0);
  b.access(0x100, 0, true);
  b.access(0x300, 0, true);
  b.access(0x200, 0, true);
  const AccessSequence s = b.take();
  EXPECT_EQ(predict_misses("lru", 2, s), (std::vector<std::uint32_t>{0, 1, 1}));
  EXPECT_EQ(predict_misses("fifo", 2, s), (std::vector<std::uint32_t>{0, 1, 0}));
  // Random, two ways: C replaces A or B with probability 1/2 each; B then misses half the time.
  const std::vector<double> e = expected_misses("random", 2, s, 2000, 3);
  EXPECT_EQ(e[0], 0.0);
  EXPECT_EQ(e[1], 1.0);
  EXPECT_NEAR(e[2], 0.5, 0.04);
  // Slots shared by repetitions add up.
  SequenceBuilder r(RecordMode::miss_count, 10);
  const std::uint32_t slot = r.new_slots(1);
  const std::size_t m = r.mark();
  r.access(0x100, 0);
  r.access(0x200, 0);
  r.pass_into(0x300, 0, 1, 0, slot, 0);
  r.repeat_since(m, 5);
  EXPECT_EQ(predict_misses("lru", 2, r.peek()), (std::vector<std::uint32_t>{5}));
  EXPECT_EQ(predict_misses("lru", 3, r.peek()), (std::vector<std::uint32_t>{1}));
}
