#include "bench/wide/wide_cuda.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "bench/wide/wide_common.hpp"
#include "kernels/wide_chase.cuh"
#include "runtime/buffers.hpp"
#include "runtime/event_timer.hpp"
#include "runtime/vmm.hpp"

namespace memhier {

namespace {

using KernelFn = void (*)(kern::WideLaunch);

KernelFn wide_kernel_for(Path p, Mode m) {
  using kern::LoadPath;
  using kern::WideMode;
  if (p == Path::global_ca)
    return m == Mode::fine ? kern::wide_chase_kernel<LoadPath::global_ca, WideMode::fine>
                           : kern::wide_chase_kernel<LoadPath::global_ca, WideMode::count>;
  return m == Mode::fine ? kern::wide_chase_kernel<LoadPath::global_cg, WideMode::fine>
                         : kern::wide_chase_kernel<LoadPath::global_cg, WideMode::count>;
}

// Memory kept free besides the chased footprint: the context, lazily loaded modules, the
// buffers of one chase.
std::uint64_t free_margin(std::uint64_t total) { return std::max<std::uint64_t>(1ull << 30, total / 32); }

std::uint64_t free_bytes_now(std::uint64_t* total) {
  size_t free = 0, tot = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free, &tot));
  if (total) *total = tot;
  return free;
}

unsigned grid_for(std::uint64_t n) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096));
}

// The device memory of one group: one cudaMalloc, or VMM chunks (with holes for vmm_gap).
class WideMemory {
 public:
  WideMemory(int device, WideAlloc a, std::uint64_t bytes, std::uint64_t chunk) {
    if (a == WideAlloc::malloc) buf_ = DeviceBuffer<char>(bytes);
    else vmm_ = std::make_unique<VmmMapping>(device, bytes, chunk, a == WideAlloc::vmm_gap ? chunk : 0);
  }
  char* base() const { return vmm_ ? static_cast<char*>(vmm_->base()) : buf_.get(); }

 private:
  DeviceBuffer<char> buf_;
  std::unique_ptr<VmmMapping> vmm_;
};

void write_chain(char* base, const WideChaseRequest& r, const WideChain& c) {
  if (r.positions.empty()) {
    kern::wide_init_kernel<<<grid_for(wide_elements(c)), 256>>>(base, c);
    MEMHIER_LAUNCH_CHECK();
  } else {
    DeviceBuffer<unsigned long long> pos(r.positions.size());
    pos.upload(reinterpret_cast<const unsigned long long*>(r.positions.data()), r.positions.size());
    kern::wide_scatter_kernel<<<grid_for(r.positions.size()), 256>>>(base, pos.get(), r.positions.size(), c);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());  // before `pos` is freed
  }
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

// Before a cold chase: overwrite the L2 with other data and read one word per 64 KiB of the
// request's flush range, so that neither the chain's lines nor its translations are cached.
void make_cold(char* base, const WideChaseRequest& r, const WideChain& c, DeviceBuffer<char>& flush,
               DeviceBuffer<unsigned>& sink, int* flush_byte) {
  MEMHIER_CUDA(cudaMemset(flush.get(), ++*flush_byte, flush.bytes()));
  const std::uint64_t step = 64ull << 10;
  kern::wide_touch_kernel<<<grid_for((r.flush_end - r.flush_begin) / step), 256>>>(base, r.flush_begin, r.flush_end,
                                                                                  step, c, sink.get());
  MEMHIER_LAUNCH_CHECK();
  MEMHIER_CUDA(cudaMemset(flush.get(), ++*flush_byte, flush.bytes()));
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

// Address of element g of the request's chain (the chase check: where the last access must end).
const char* element_address(const char* base, const WideChaseRequest& r, const WideChain& c, std::uint64_t g) {
  return base + wide_map(c, r.positions.empty() ? wide_position(c, g) : r.positions[g]);
}

}  // namespace

WideLimits cuda_wide_limits(const DeviceDescription& desc) {
  WideLimits w;
  std::uint64_t total = 0;
  const std::uint64_t free = free_bytes_now(&total);
  const std::uint64_t margin = free_margin(total);
  std::string why;
  w.vmm_granularity = vmm_granularity(desc.index, &why);
  const std::uint64_t unit = std::max<std::uint64_t>(w.vmm_granularity, 2ull << 20);
  w.malloc_bytes = free > margin ? (free - margin) / unit * unit : 0;
  w.vmm_bytes = w.vmm_granularity ? w.malloc_bytes : 0;
  w.l2_lines = desc.l2_bytes / kWideLineBytes;
  return w;
}

namespace {

struct LaunchBuffers {
  DeviceBuffer<unsigned long long> sums{2}, blocks{kWideBlocks}, hist{kWideHistBins}, last{1};
  DeviceBuffer<std::uint32_t> records;
  DeviceBuffer<int> smid{1};
};

// Runs one request on the group's memory: writes its chain, makes it cold if asked, times it.
WideChaseResult run_one(const DeviceDescription& desc, char* base, const WideChaseRequest& r, const WideChain& c,
                        const ClockOverhead& oh, DeviceBuffer<char>& flush, DeviceBuffer<unsigned>& sink,
                        int* flush_byte) {
  WideChaseResult o;
  write_chain(base, r, c);
  if (r.cold) make_cold(base, r, c, flush, sink, flush_byte);
  const std::uint32_t records = r.mode == Mode::fine ? r.max_records : 0;
  const std::uint64_t dyn = (r.mode == Mode::count ? kWideHistBins : records) * 4ull;
  if (dyn > desc.smem_per_block_optin_bytes) {
    o.error = "needs " + std::to_string(dyn) + " bytes of shared memory; the device allows " +
              std::to_string(desc.smem_per_block_optin_bytes) + " per block";
    return o;
  }
  LaunchBuffers b;
  if (records) b.records = DeviceBuffer<std::uint32_t>(records);
  kern::WideLaunch L{};
  L.start = reinterpret_cast<const unsigned long long*>(element_address(base, r, c, 0));
  L.warm = r.warm;
  L.iters = r.iters;
  L.block_len = wide_block_len(r);
  L.overhead = static_cast<std::uint32_t>(std::lround(oh.fine_cycles));
  L.bin_width = std::max<std::uint32_t>(1, r.hist_bin_width);
  L.bins = kWideHistBins;
  L.max_records = records;
  L.out_sums = b.sums.get();
  L.out_blocks = b.blocks.get();
  L.out_hist = b.hist.get();
  L.out_latency = records ? b.records.get() : nullptr;
  L.out_last = b.last.get();
  L.out_smid = b.smid.get();
  KernelFn fn = wide_kernel_for(r.path, r.mode);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn)));
  EventTimer timer;
  timer.start();
  fn<<<1, 32, dyn>>>(L);
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  o.seconds = timer.seconds();
  MEMHIER_CUDA(cudaDeviceSynchronize());

  const auto sums = b.sums.download(), blocks = b.blocks.download(), last = b.last.download();
  const std::uint64_t elements = r.positions.empty() ? wide_elements(c) : r.positions.size();
  const char* want = element_address(base, r, c, (r.warm + r.iters) % elements);
  if (last[0] != reinterpret_cast<unsigned long long>(want)) {
    o.error = "chain check failed: the chase ended at " + std::to_string(last[0]) + ", the chain says " +
              std::to_string(reinterpret_cast<unsigned long long>(want));
    return o;
  }
  std::vector<double> bs(blocks.begin(), blocks.end());
  finish_wide_stats(o, static_cast<double>(sums[0]), static_cast<double>(sums[1]), bs, r.iters, L.block_len);
  o.clock_overhead_cycles = L.overhead;
  o.sm_id = b.smid.download()[0];
  if (r.mode == Mode::count) {
    o.hist.bin_width = L.bin_width;
    const auto h = b.hist.download();
    o.hist.counts.assign(h.begin(), h.end());
  } else {
    const std::uint64_t n = std::min<std::uint64_t>(r.iters, records);
    o.latency = b.records.download(n);
    for (std::uint64_t i = 0; i < n; ++i) o.index.push_back(static_cast<std::uint32_t>((r.warm + i) % elements));
  }
  return o;
}

}  // namespace

std::vector<WideChaseResult> run_wide_cuda(const DeviceDescription& desc, const WideLimits& limits,
                                           const ClockOverhead& oh, const std::vector<WideChaseRequest>& rs) {
  std::vector<WideChaseResult> out(rs.size());
  std::uint64_t total = 0;
  const std::uint64_t free = free_bytes_now(&total), margin = free_margin(total);
  // Half the margin here: the limits (cuda_wide_limits, at start-up) kept all of it, and the
  // context grows by a few MB before a request runs (the first H100 run refused the spectrum's
  // footprint at exactly the limit for 1.6 MB).
  const std::uint64_t usable = free > margin / 2 ? free - margin / 2 : 0;
  std::uint64_t need = 0;
  bool cold = false;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    out[i].error = check_wide_request(rs[i], limits);
    if (out[i].error.empty() && rs[i].alloc != rs[0].alloc) out[i].error = "one group, one allocation mode";
    if (out[i].error.empty() && wide_request_bytes(rs[i]) > usable)
      out[i].error = "needs " + std::to_string(wide_request_bytes(rs[i])) + " bytes; " + std::to_string(usable) +
                     " are free now (besides a margin of " + std::to_string(margin / 2) + ")";
    if (!out[i].error.empty()) continue;
    need = std::max(need, wide_request_bytes(rs[i]));
    cold = cold || rs[i].cold;
  }
  if (need == 0) return out;
  // The L2 flush buffer first: the group's mapping may take nearly all free memory.
  DeviceBuffer<char> flush(cold ? std::max<std::uint64_t>(2 * desc.l2_bytes, 4ull << 20) : 0);
  DeviceBuffer<unsigned> sink(1);
  int flush_byte = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<WideMemory> mem;
  try {
    mem = std::make_unique<WideMemory>(desc.index, rs[0].alloc, need, limits.vmm_granularity);
  } catch (const std::exception& e) {  // one line per request, never a crash of the whole run
    for (auto& o : out)
      if (o.error.empty()) o.error = "could not map " + std::to_string(need) + " bytes: " + e.what();
    return out;
  }
  const double alloc_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool first = true;
  std::string broken;  // after a failed CUDA call the context may be unusable: the rest is not run
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (!out[i].error.empty()) continue;
    if (!broken.empty()) {
      out[i].error = "not run after an earlier failure: " + broken;
      continue;
    }
    const WideChain c = wide_chain_of(rs[i], limits);
    try {
      out[i] = run_one(desc, mem->base(), rs[i], c, oh, flush, sink, &flush_byte);
    } catch (const std::exception& e) {
      out[i].error = broken = e.what();
      continue;
    }
    out[i].mapped_bytes = need;
    out[i].chunk_bytes = c.chunk;
    out[i].gap_bytes = c.gap;
    if (first) out[i].alloc_seconds = alloc_s;
    first = false;
  }
  return out;
}

}  // namespace memhier
