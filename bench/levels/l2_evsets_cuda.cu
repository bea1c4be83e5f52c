// l2_evsets on the GPU (bench/plans/l2_evsets_plan.hpp; docs/methodology.md, "l2_evsets"): the oracle
// of the group-testing plan. A buffer of F x the L2 in 128-byte lines (the pool) and 8 MiB after it
// (the targets); a test is one launch of kern::evset_test and the two readout launches
// (kernels/l2_evsets.cuh). Every launch but the flush runs on one SM (kern::EvsetPin): per target
// the SM of kPlaceSms whose cold read of the target is fastest (the target's own L2 partition; from
// the other partition only about half of the targets are ever reduced), or the one named.
//   l2_evsets/targets:T/passes:P/pool:F   (pool_lines:N, for tests and sanitizer runs: at most N lines;
//                                          place:near|far|N, for experiments: near is the plan's)
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/plans/l2_evsets_plan.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "kernels/l2_evsets.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::levels {
namespace {

constexpr std::uint64_t kTargetRegionLines = 65536;  // 8 MiB after the pool
constexpr std::uint64_t kSelfCheckLine = 60000;      // the readout self-check's line, after the pool
constexpr std::size_t kCycleLines = 1024;            // thrash + timed lines of one cyclic read
constexpr double kMaxSeconds = 6;                    // targets not begun after this many device seconds: budget
constexpr int kPlaceSms = 8;                         // SMs 0 .. 7 timed per target (both partitions on an H100 and H200)
constexpr int kPlaceReads = 3;                       // cold reads per SM (the median counts)

class CudaEvsetOracle final : public EvsetOracle {
 public:
  // The buffer holds at least 3 x the L2 (the self-check's flush) however small the pool; the
  // targets lie after the buffer.
  // place: -1 the SM nearest each target, -2 the farthest, >= 0 that SM.
  CudaEvsetOracle(const DeviceDescription& d, std::uint64_t pool_lines, int place)
      : pool_(make_evset_pool(pool_lines)),
        buffer_lines_(std::max<std::uint64_t>(pool_lines, 3 * d.l2_bytes / kEvsetLineBytes)),
        buf_((buffer_lines_ + kTargetRegionLines) * kern::kEvsetLineWords),
        begin_(kern::kEvsetMaxRanges),
        first_(kern::kEvsetMaxRanges),
        out_(2),
        claim_(1),
        sink_(1),
        list_(kCycleLines),
        cycles_(kCycleLines + 1),
        grid_(static_cast<unsigned>(std::max(d.sm_count, 1)) * 4),
        pin_grid_(static_cast<unsigned>(std::max(d.sm_count, 1)) * 2),
        sms_(std::max(d.sm_count, 1)),
        place_(place) {
    buf_.zero();
    sink_.zero();
    claim_.zero();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  const EvsetPool& pool() const override { return pool_; }
  std::uint64_t target_line(int k) const override { return buffer_lines_ + 1000 + 1237ull * static_cast<std::uint64_t>(k); }

  bool evicts(std::uint64_t target, const std::vector<EvsetRange>& ranges, int passes) override {
    std::vector<std::uint64_t> b, f;
    std::uint64_t total = 0;
    for (const auto& r : ranges) {
      if (r.end <= r.begin) continue;
      b.push_back(r.begin);
      f.push_back(total);
      total += r.end - r.begin;
    }
    if (b.size() > static_cast<std::size_t>(kern::kEvsetMaxRanges))
      throw std::runtime_error("a candidate set of " + std::to_string(b.size()) + " ranges (at most " +
                               std::to_string(kern::kEvsetMaxRanges) + ")");
    const std::uint32_t v = ++round_;
    timer_.start();
    if (!b.empty()) {
      begin_.upload(b.data(), b.size());
      first_.upload(f.data(), f.size());
    }
    kern::evset_test<<<pin_grid_, kern::kEvsetThreads>>>(buf_.get(), pool_, target, v, begin_.get(), first_.get(),
                                                          static_cast<int>(b.size()), total, passes, sink_.get(), pin());
    MEMHIER_LAUNCH_CHECK();
    const std::uint32_t got = readout(target);
    timer_.stop();
    seconds_ += timer_.seconds();
    return got == v;
  }

  // A line written (a), the pool flushed (a written back), written again (b, dirty), discarded and
  // read: a expected; written (c), flushed, discarded and read: c expected.
  bool readout_works(std::string* why) override {
    const std::uint64_t t = buffer_lines_ + kSelfCheckLine;
    place(t);
    const std::uint32_t a = ++round_;
    write(t, a);
    flush();
    const std::uint32_t b = ++round_;
    write(t, b);
    const std::uint32_t r1 = readout(t);
    const std::uint32_t c = ++round_;
    write(t, c);
    flush();
    const std::uint32_t r2 = readout(t);
    if (r1 == a && r2 == c) return true;
    if (why)
      *why = "a dirty line discarded from the L2 read " + std::to_string(r1) + " (its older value " + std::to_string(a) +
             " expected, " + std::to_string(b) + " written), a written-back line read " + std::to_string(r2) + " (" +
             std::to_string(c) + " expected)";
    return false;
  }

  std::vector<std::uint32_t> cycle(const std::vector<std::uint64_t>& thrash, const std::vector<std::uint64_t>& lines,
                                   int rounds) override {
    if (thrash.size() + lines.size() > kCycleLines) throw std::runtime_error("l2_evsets: too many lines for one cyclic read");
    if (lines.empty()) return {};
    timer_.start();
    if (!thrash.empty()) list_.upload(thrash.data(), thrash.size());
    list_.upload(lines.data(), lines.size(), thrash.size());
    kern::evset_cycle<<<pin_grid_, 32>>>(buf_.get(), list_.get(), static_cast<std::uint32_t>(thrash.size()),
                                         list_.get() + thrash.size(), static_cast<std::uint32_t>(lines.size()), rounds, cycles_.get(),
                                         pin());
    MEMHIER_LAUNCH_CHECK();
    std::vector<std::uint32_t> out = cycles_.download(lines.size());
    check_claim(claim_.download(1)[0]);
    timer_.stop();
    seconds_ += timer_.seconds();
    return out;
  }

  std::vector<std::vector<std::uint32_t>> sequences(const std::vector<std::uint64_t>& lines,
                                                    const std::vector<std::vector<std::uint32_t>>& seqs) override {
    std::vector<std::uint32_t> ids, start{0};
    if (lines.size() > static_cast<std::size_t>(kEvsetPolicyMaxLines))
      throw std::runtime_error("l2_evsets: policy sequences over " + std::to_string(lines.size()) + " lines (at most " +
                               std::to_string(kEvsetPolicyMaxLines) + ")");
    for (const auto& q : seqs) {
      if (q.size() > static_cast<std::size_t>(kEvsetPolicyMaxLength))
        throw std::runtime_error("l2_evsets: a policy sequence of " + std::to_string(q.size()) + " accesses (at most " +
                                 std::to_string(kEvsetPolicyMaxLength) + ")");
      for (std::uint32_t i : q)
        if (i >= lines.size()) throw std::runtime_error("l2_evsets: a policy sequence names a line it was not given");
      ids.insert(ids.end(), q.begin(), q.end());
      start.push_back(static_cast<std::uint32_t>(ids.size()));
    }
    if (lines.empty() || ids.empty()) return std::vector<std::vector<std::uint32_t>>(seqs.size());
    DeviceBuffer<std::uint64_t> l(lines.size());
    DeviceBuffer<std::uint32_t> d_ids(ids.size()), d_start(start.size()), d_out(ids.size() + 1);
    l.upload(lines.data(), lines.size());
    d_ids.upload(ids.data(), ids.size());
    d_start.upload(start.data(), start.size());
    timer_.start();
    kern::evset_sequences<<<pin_grid_, 32>>>(buf_.get(), l.get(), static_cast<std::uint32_t>(lines.size()), d_ids.get(),
                                             d_start.get(), static_cast<std::uint32_t>(seqs.size()), d_out.get(), pin());
    MEMHIER_LAUNCH_CHECK();
    const std::vector<std::uint32_t> all = d_out.download(ids.size());
    check_claim(claim_.download(1)[0]);
    timer_.stop();
    seconds_ += timer_.seconds();
    std::vector<std::vector<std::uint32_t>> out;
    for (std::size_t q = 0; q < seqs.size(); ++q) out.emplace_back(all.begin() + start[q], all.begin() + start[q + 1]);
    return out;
  }

  // The SM the next launches run on: per candidate SM the median of kPlaceReads cold reads of the
  // target (discarded from the L2, then read once, timed), the fastest (or slowest, or the named SM).
  // "sm:cycles,..." of the candidates, the chosen first.
  std::string place(std::uint64_t target) override {
    std::vector<std::pair<std::uint32_t, int>> by_sm;
    for (int sm = 0; sm < std::min(kPlaceSms, sms_); ++sm) {
      sm_ = static_cast<unsigned>(sm);
      std::vector<std::uint32_t> reads;
      for (int i = 0; i < kPlaceReads; ++i) reads.push_back(discard_then(kern::evset_time_read<>, target));
      std::sort(reads.begin(), reads.end());
      by_sm.emplace_back(reads[reads.size() / 2], sm);
    }
    std::sort(by_sm.begin(), by_sm.end());
    if (place_ == -2) std::reverse(by_sm.begin(), by_sm.end());
    if (place_ >= 0) {
      const auto it = std::find_if(by_sm.begin(), by_sm.end(), [&](const auto& x) { return x.second == place_; });
      if (it != by_sm.end()) std::rotate(by_sm.begin(), it, it + 1);
    }
    sm_ = static_cast<unsigned>(place_ >= 0 ? place_ : by_sm.front().second);
    std::string out = place_ >= 0 && (by_sm.empty() || by_sm.front().second != place_) ? std::to_string(place_) + ":-" : "";
    for (const auto& [cycles, sm] : by_sm) out += (out.empty() ? "" : ",") + std::to_string(sm) + ":" + std::to_string(cycles);
    return out;
  }

  double seconds() const override { return seconds_; }

 private:
  // The next launch's pin (its seq one above the last).
  kern::EvsetPin pin() { return {sm_, claim_.get(), ++seq_}; }
  // A launch that no CTA claimed (its SM busy or absent) leaves the claim word behind.
  void check_claim(std::uint32_t got) const {
    if (got != seq_)
      throw std::runtime_error("l2_evsets: a launch did not run on SM " + std::to_string(sm_) + " (claim " + std::to_string(got) +
                               ", " + std::to_string(seq_) + " expected)");
  }
  // `line` discarded from the L2, then `read` (evset_read: its value; evset_time_read: its cycles)
  // on the pinned SM; the claim word it returns checked.
  using ReadKernel = void (*)(const std::uint32_t*, std::uint64_t, std::uint32_t*, kern::EvsetPin);
  std::uint32_t discard_then(ReadKernel read, std::uint64_t line) {
    kern::evset_discard<<<pin_grid_, 32>>>(buf_.get(), line, pin());
    MEMHIER_LAUNCH_CHECK();
    read<<<pin_grid_, 32>>>(buf_.get(), line, out_.get(), pin());
    MEMHIER_LAUNCH_CHECK();
    const std::vector<std::uint32_t> o = out_.download(2);
    check_claim(o[1]);
    return o[0];
  }
  std::uint32_t readout(std::uint64_t line) { return discard_then(kern::evset_read<>, line); }
  void write(std::uint64_t line, std::uint32_t v) {
    kern::evset_write<<<pin_grid_, 32>>>(buf_.get(), line, v, pin());
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  void flush() {
    kern::evset_flush<<<grid_, 512>>>(buf_.get(), buffer_lines_, ++round_);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  EvsetPool pool_;
  std::uint64_t buffer_lines_ = 0;
  DeviceBuffer<std::uint32_t> buf_;
  DeviceBuffer<std::uint64_t> begin_, first_;
  DeviceBuffer<std::uint32_t> out_, claim_, sink_;
  DeviceBuffer<std::uint64_t> list_;
  DeviceBuffer<std::uint32_t> cycles_;
  unsigned grid_ = 1, pin_grid_ = 1;
  int sms_ = 1, place_ = -1;
  unsigned sm_ = 0;
  std::uint32_t seq_ = 0;
  EventTimer timer_;
  std::uint32_t round_ = 0;
  double seconds_ = 0;
};

}  // namespace

LevelResult run_l2_evsets(const DeviceDescription& d, const LevelRequest& r) {
  const long long f = r.num("pool", 3), targets = r.num("targets", 4), passes = r.num("passes", 2);
  if (f < 1 || f > 8 || targets < 1 || targets > 48 || passes < 1 || passes > 16)
    return {"l2_evsets: pool 1 ... 8 (x the L2), targets 1 ... 48, passes 1 ... 16", {}, 0, {}};
  if (d.l2_bytes == 0) return {"l2_evsets: the device reports no L2", {}, 0, {}};
  std::uint64_t lines = static_cast<std::uint64_t>(f) * d.l2_bytes / kEvsetLineBytes;
  // pool_lines:N (tests and sanitizer runs only, not in the plan): a smaller pool
  if (const long long n = r.num("pool_lines", 0); n > 0) lines = std::min<std::uint64_t>(lines, static_cast<std::uint64_t>(n));
  std::size_t free_bytes = 0, total_bytes = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t need = (std::max<std::uint64_t>(lines, 3 * d.l2_bytes / kEvsetLineBytes) + kTargetRegionLines) * kEvsetLineBytes;
  if (need + (64ull << 20) > free_bytes)
    return {"l2_evsets: the pool needs " + std::to_string(need >> 20) + " MiB, " + std::to_string(free_bytes >> 20) + " MiB free", {}, 0, {}};
  int place = -1;  // place:near (the plan's), far, or an SM id (experiments)
  if (const auto it = r.params.find("place"); it != r.params.end() && it->second != "near") {
    if (it->second == "far") place = -2;
    else if (const long long sm = r.num("place", -1); sm >= 0 && sm < d.sm_count) place = static_cast<int>(sm);
    else return {"l2_evsets: place is near, far or an SM id below " + std::to_string(d.sm_count) + ", not '" + it->second + "'", {}, 0, {}};
  }
  CudaEvsetOracle o(d, lines, place);
  EvsetParams p;
  p.targets = static_cast<int>(targets);
  p.passes = static_cast<int>(passes);
  p.max_seconds = kMaxSeconds;
  return run_evsets(o, p);
}

}  // namespace memhier::levels
