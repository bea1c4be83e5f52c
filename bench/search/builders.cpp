#include "bench/search/builders.hpp"

namespace memhier::seqsearch {

AccessSequence granularity_probe(const Lines& fresh, const std::vector<std::uint64_t>& ds, std::uint8_t path) {
  SequenceBuilder b(RecordMode::latency);
  const std::uint32_t first = b.new_slots(static_cast<std::uint32_t>(ds.size()));
  for (std::size_t k = 0; k < ds.size() && k < fresh.size(); ++k) {
    b.access(fresh[k], path);
    b.pass_into(fresh[k] + ds[k], 0, 1, path, first + static_cast<std::uint32_t>(k), 1);
  }
  return b.take();
}

AccessSequence pool_probe(std::uint64_t n, std::uint64_t stride, std::uint8_t path, std::uint32_t threshold) {
  SequenceBuilder b(RecordMode::miss_count, threshold);
  const std::uint32_t slot = b.new_slots(1);
  b.pass(0, static_cast<std::int64_t>(stride), static_cast<std::uint32_t>(n), path);
  b.mark();
  b.pass_into(0, static_cast<std::int64_t>(stride), static_cast<std::uint32_t>(n), path, slot, 0);
  return b.take();
}

namespace {
// One pass over the pool from line `rotation` on, pool line i recording into slot base + i.
void rotated_pass(SequenceBuilder& b, const PrimeProbe& p, std::uint8_t path, std::uint32_t base) {
  const auto s = static_cast<std::int64_t>(p.stride);
  const auto n = static_cast<std::uint32_t>(p.n), rot = p.rotation % n;
  b.pass_into(rot * p.stride, s, n - rot, path, base + rot, 1);
  if (rot) b.pass_into(0, s, rot, path, base, 1);
}
}  // namespace

AccessSequence prime_probe(const PrimeProbe& p, std::uint8_t path, std::uint32_t threshold) {
  SequenceBuilder b(RecordMode::miss_any, threshold);
  const auto n = static_cast<std::uint32_t>(p.n);
  const std::uint32_t before = b.new_slots(n), after = b.new_slots(n);
  b.pass(0, static_cast<std::int64_t>(p.stride), n, path);
  b.mark();
  b.pass_into(0, static_cast<std::int64_t>(p.stride), n, path, before, 1);
  const std::size_t block = b.mark();
  b.access(p.target, path);
  for (std::uint32_t k = 0; k < p.probes; ++k) rotated_pass(b, p, path, after);  // repeats do not nest
  b.repeat_since(block, p.insertions);
  return b.take();
}

std::size_t eviction_test_runs(std::size_t set_size) { return 2 * (set_size + 2) + 2; }

AccessSequence eviction_tests(const Lines& victims, const Lines& set, std::uint32_t warm, std::uint32_t rounds,
                              std::uint8_t path, std::uint32_t threshold) {
  return eviction_tests(victims, std::vector<Lines>(victims.size(), set), warm, rounds, path, threshold);
}

AccessSequence eviction_tests(const Lines& victims, const std::vector<Lines>& sets, std::uint32_t warm,
                              std::uint32_t rounds, std::uint8_t path, std::uint32_t threshold) {
  SequenceBuilder b(RecordMode::miss_count, threshold);
  const std::uint32_t first = b.new_slots(static_cast<std::uint32_t>(victims.size()));
  for (std::size_t i = 0; i < victims.size(); ++i) {
    const std::size_t w = b.mark();
    b.access(victims[i], path);
    for (std::uint64_t e : sets[i]) b.access(e, path);
    b.repeat_since(w, warm);
    const std::size_t m = b.mark();
    b.pass_into(victims[i], 0, 1, path, first + static_cast<std::uint32_t>(i), 0);
    for (std::uint64_t e : sets[i]) b.access(e, path);
    b.repeat_since(m, rounds);
  }
  return b.take();
}

AccessSequence policy_experiment(const Lines& first_prefix, const Lines& prefix, const Lines& body,
                                 const std::vector<bool>& timed, std::uint32_t repeats, std::uint8_t path,
                                 std::uint32_t threshold) {
  SequenceBuilder b(RecordMode::miss_count, threshold);
  std::vector<std::uint32_t> slot(body.size(), kUntimed);
  for (std::size_t j = 0; j < body.size(); ++j)
    if (j < timed.size() && timed[j]) slot[j] = b.new_slots(1);
  auto add_body = [&] {
    b.mark();  // the body never extends a prefix run
    for (std::size_t j = 0; j < body.size(); ++j) {
      if (slot[j] == kUntimed) b.access(body[j], path);
      else b.pass_into(body[j], 0, 1, path, slot[j], 0);
    }
  };
  for (std::uint64_t x : first_prefix) b.access(x, path);
  add_body();
  if (repeats <= 1) return b.take();
  const std::size_t m = b.mark();
  for (std::uint64_t x : prefix) b.access(x, path);
  add_body();
  b.repeat_since(m, repeats - 1);
  return b.take();
}

AccessSequence policy_rounds(const Lines& first_prefix, const Lines& prefix,
                             const std::vector<std::vector<BodyAccess>>& bodies, std::uint32_t slots,
                             std::uint8_t path, std::uint32_t threshold) {
  SequenceBuilder b(RecordMode::miss_count, threshold);
  b.new_slots(slots);
  for (std::size_t r = 0; r < bodies.size(); ++r) {
    for (std::uint64_t x : r == 0 ? first_prefix : prefix) b.access(x, path);
    b.mark();  // the body never extends a prefix run
    for (const BodyAccess& a : bodies[r]) {
      if (a.slot == kUntimed) b.access(a.line, path);
      else b.pass_into(a.line, 0, 1, path, a.slot, 0);
    }
    b.mark();
  }
  return b.take();
}

}  // namespace memhier::seqsearch
