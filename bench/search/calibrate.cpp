#include "bench/search/calibrate.hpp"

#include <algorithm>
#include <atomic>

#include "bench/backends/backend.hpp"
#include "common/sequence.hpp"

namespace memhier::seqsearch {

namespace {
constexpr std::uint64_t kBlock = 65536;
constexpr std::size_t kFresh = 16, kGranularity = 9, kViaL2 = 8;
constexpr std::uint32_t kSerialLines = 15;  // per fresh block: lines 4 KiB apart after the first
std::atomic<std::uint64_t> g_fresh_cursor{0};

std::uint32_t median(std::vector<std::uint32_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}
}  // namespace

std::uint64_t fresh_line(std::uint64_t array_bytes) {
  const std::uint64_t half = array_bytes / 2, blocks = half / kBlock;
  if (blocks < 2) return 0;
  const std::uint64_t k = g_fresh_cursor.fetch_add(1) % blocks;  // past the last block: read before
  // An odd multiplier permutes the blocks when their number is a power of two (the array is).
  const std::uint64_t b = (k * 0x9E3779B97F4A7C15ull + 0x5DEECE66Dull) % blocks;
  return half + b * kBlock;
}

LevelSplit split_levels(const std::vector<std::uint32_t>& hits, const std::vector<std::uint32_t>& slower) {
  LevelSplit s;
  if (hits.empty()) return s;
  s.hit_lo = *std::min_element(hits.begin(), hits.end());
  const std::uint64_t bound = 3ull * s.hit_lo / 2;  // hits below it form the hit level
  std::vector<std::uint32_t> level;
  for (std::uint32_t h : hits)
    if (h < bound || h == s.hit_lo) level.push_back(h);
  std::sort(level.begin(), level.end());
  s.hit_hi = level.size() >= 4 ? level[level.size() - 2] : level.back();
  const std::uint32_t above = s.hit_hi + std::max<std::uint32_t>(8, s.hit_hi / 8);  // clearly not a hit
  for (std::uint32_t v : slower)
    if (v >= above && (s.next_lo == 0 || v < s.next_lo)) s.next_lo = v;
  if (s.next_lo == 0) return s;
  const std::uint32_t mid = (s.hit_hi + s.next_lo + 1) / 2;
  const std::uint32_t cap = std::max(s.hit_hi + (3 * s.hit_hi + 9) / 10, s.hit_hi + 16);
  s.threshold = std::max(std::min(mid, cap), s.hit_hi + 1);
  return s;
}

namespace {

struct Probe {
  AccessSequence seq;
  Lines fresh;
  std::vector<std::uint64_t> ds;
  std::uint32_t miss = 0, hit = 0, gran = 0, via_l2 = 0;  // first slot of each group
  std::size_t via_l2_count = 0;
};

Probe build_probe(Session& s) {
  Probe p;
  for (std::uint64_t d = 4; p.ds.size() < kGranularity; d *= 2) p.ds.push_back(d);
  for (std::size_t k = 0; k < kFresh; ++k) {
    const std::uint64_t x = fresh_line(s.array_bytes());
    if (x) p.fresh.push_back(x);
  }
  const bool via_l2 = path_uses_carveout(s.path()) && s.path_supported(Path::global_cg);
  Lines z;
  for (std::size_t j = 0; via_l2 && j < kViaL2; ++j) {
    const std::uint64_t x = fresh_line(s.array_bytes());
    if (x) z.push_back(x);
  }
  SequenceBuilder b(RecordMode::latency);
  const auto n = static_cast<std::uint32_t>(p.fresh.size());
  p.miss = b.new_slots(n);
  p.hit = b.new_slots(n);
  p.gran = b.new_slots(static_cast<std::uint32_t>(std::min(p.fresh.size(), p.ds.size())));
  p.via_l2 = b.new_slots(static_cast<std::uint32_t>(z.size()));
  p.via_l2_count = z.size();
  const std::uint8_t path = s.path_code();
  for (std::uint32_t k = 0; k < n; ++k) {
    b.mark();  // one run per access: the three reads of a line never merge into a pass
    b.pass_into(p.fresh[k], 0, 1, path, p.miss + k, 1);
    b.mark();
    b.pass_into(p.fresh[k], 0, 1, path, p.hit + k, 1);
    b.mark();
    if (k < p.ds.size()) b.pass_into(p.fresh[k] + p.ds[k], 0, 1, path, p.gran + k, 1);
  }
  for (std::uint32_t j = 0; j < z.size(); ++j) {
    b.mark();
    b.access(z[j], static_cast<std::uint8_t>(Path::global_cg));
    b.mark();
    b.pass_into(z[j], 0, 1, path, p.via_l2 + j, 1);
  }
  p.seq = b.take();
  return p;
}

// Untimed reads of lines 4 KiB apart in the fresh lines' blocks (never read before: misses).
double untimed_cycles(Session& s, const Lines& fresh) {
  SequenceBuilder b(RecordMode::latency);
  b.new_slots(1);
  for (std::uint64_t x : fresh) {
    b.mark();
    b.pass(x + 4096, 4096, kSerialLines, s.path_code());
  }
  b.mark();
  b.pass_into(fresh.empty() ? 0 : fresh[0], 0, 1, s.path_code(), 0, 1);  // one timed hit: a record
  const std::uint64_t n = access_count(b.peek());
  auto rec = s.run(b.take(), {{"step", "serial"}, {"lines", std::to_string(n - 1)}});
  if (!rec || n == 0) return 0;
  return static_cast<double>(s.last_walk_cycles()) / static_cast<double>(n);
}

}  // namespace

Calibration calibrate(Session& s) {
  Calibration c;
  Probe p = build_probe(s);
  if (p.fresh.size() < kGranularity) return c.why = "no fresh lines left in the array", c;
  auto rec = s.run(std::move(p.seq), {{"step", "granularity"}, {"calibrate", "levels"}});
  if (!rec) return c.why = "the calibration launch did not run", c;
  const auto& r = *rec;
  std::vector<std::uint32_t> hits(r.begin() + p.hit, r.begin() + p.hit + static_cast<std::ptrdiff_t>(p.fresh.size()));
  std::vector<std::uint32_t> miss(r.begin() + p.miss, r.begin() + p.miss + static_cast<std::ptrdiff_t>(p.fresh.size()));
  std::vector<std::uint32_t> l2(r.begin() + p.via_l2, r.begin() + p.via_l2 + static_cast<std::ptrdiff_t>(p.via_l2_count));
  std::vector<std::uint32_t> slower = miss;
  slower.insert(slower.end(), l2.begin(), l2.end());
  c.levels = split_levels(hits, slower);
  c.miss_median = median(miss);
  c.l2_median = median(l2);
  if (c.levels.threshold) s.set_threshold(c.levels.threshold);
  else c.why = "no access slower than the hits";
  // The fill granularity: the smallest d whose x + d missed, x a line that was fresh (it missed).
  for (std::size_t k = 0; k < p.ds.size() && !c.granularity; ++k)
    if (miss[k] >= s.threshold() && r[p.gran + k] >= s.threshold()) c.granularity = p.ds[k];
  if (!c.granularity) c.granularity = p.ds.back();
  c.untimed_cycles_per_access = untimed_cycles(s, p.fresh);
  return c;
}

}  // namespace memhier::seqsearch
