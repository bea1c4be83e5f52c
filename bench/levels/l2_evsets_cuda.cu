// l2_evsets on the GPU (bench/plans/l2_evsets_plan.hpp; docs/methodology.md, "l2_evsets"): the oracle
// of the group-testing plan. A buffer of F x the L2 in 128-byte lines (the pool) and 8 MiB after it
// (the targets); a test is one launch of kern::evset_test and the two readout launches
// (kernels/l2_evsets.cuh).
//   l2_evsets/targets:T/passes:P/pool:F   (pool_lines:N, for tests and sanitizer runs: at most N lines)
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

class CudaEvsetOracle final : public EvsetOracle {
 public:
  // The buffer holds at least 3 x the L2 (the self-check's flush) however small the pool; the
  // targets lie after the buffer.
  CudaEvsetOracle(const DeviceDescription& d, std::uint64_t pool_lines)
      : pool_(make_evset_pool(pool_lines)),
        buffer_lines_(std::max<std::uint64_t>(pool_lines, 3 * d.l2_bytes / kEvsetLineBytes)),
        buf_((buffer_lines_ + kTargetRegionLines) * kern::kEvsetLineWords),
        begin_(kern::kEvsetMaxRanges),
        first_(kern::kEvsetMaxRanges),
        out_(1),
        sink_(1),
        list_(kCycleLines),
        cycles_(kCycleLines + 1),
        grid_(static_cast<unsigned>(std::max(d.sm_count, 1)) * 4) {
    buf_.zero();
    sink_.zero();
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
    kern::evset_test<<<1, kern::kEvsetThreads>>>(buf_.get(), pool_, target, v, begin_.get(), first_.get(),
                                                  static_cast<int>(b.size()), total, passes, sink_.get());
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
    kern::evset_cycle<<<1, 32>>>(buf_.get(), list_.get(), static_cast<std::uint32_t>(thrash.size()),
                                 list_.get() + thrash.size(), static_cast<std::uint32_t>(lines.size()), rounds, cycles_.get());
    MEMHIER_LAUNCH_CHECK();
    std::vector<std::uint32_t> out = cycles_.download(lines.size());
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
    kern::evset_sequences<<<1, 32>>>(buf_.get(), l.get(), static_cast<std::uint32_t>(lines.size()), d_ids.get(), d_start.get(),
                                     static_cast<std::uint32_t>(seqs.size()), d_out.get());
    MEMHIER_LAUNCH_CHECK();
    const std::vector<std::uint32_t> all = d_out.download(ids.size());
    timer_.stop();
    seconds_ += timer_.seconds();
    std::vector<std::vector<std::uint32_t>> out;
    for (std::size_t q = 0; q < seqs.size(); ++q) out.emplace_back(all.begin() + start[q], all.begin() + start[q + 1]);
    return out;
  }

  double seconds() const override { return seconds_; }

 private:
  std::uint32_t readout(std::uint64_t line) {
    kern::evset_discard<<<1, 32>>>(buf_.get(), line);
    MEMHIER_LAUNCH_CHECK();
    kern::evset_read<<<1, 32>>>(buf_.get(), line, out_.get());
    MEMHIER_LAUNCH_CHECK();
    return out_.download(1)[0];
  }
  void write(std::uint64_t line, std::uint32_t v) {
    kern::evset_write<<<1, 32>>>(buf_.get(), line, v);
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
  DeviceBuffer<std::uint32_t> out_, sink_;
  DeviceBuffer<std::uint64_t> list_;
  DeviceBuffer<std::uint32_t> cycles_;
  unsigned grid_ = 1;
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
  CudaEvsetOracle o(d, lines);
  EvsetParams p;
  p.targets = static_cast<int>(targets);
  p.passes = static_cast<int>(passes);
  p.max_seconds = kMaxSeconds;
  return run_evsets(o, p);
}

}  // namespace memhier::levels
