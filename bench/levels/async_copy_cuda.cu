// The CUDA side of the async_copy family (bench/levels/levels.hpp; docs/methodology.md, "Levels beyond
// one SM"). Kernels: kernels/async_copy.cuh.
//   async_copy/op:bandwidth/method:{plain,cp_async,bulk,tensor}/source:{l2,dram}/chunk:B/ctas_per_sm:K/stages:S
//   async_copy/op:multicast/source:l2/chunk:B/cluster:C
//   async_copy/op:latency/method:M/chunk:B
// Sources: `l2` a buffer of a quarter of the L2, read by an identical untimed launch first (L2-
// resident); `dram` a buffer of eight times the L2: an untimed launch reads its last quarter (at
// most 2x the L2, evicting what earlier benchmarks left), the timed one a prefix of 2 to 6x the L2
// sized for about 0.5 ms. Both buffers are kept between benchmarks (keep_device_cache).
// The tensor map comes from the driver's cuTensorMapEncodeTiled, reached through the runtime's
// entry-point query (runtime/cu_check.hpp), never by linking libcuda.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bench/core/guard.hpp"
#include "bench/levels/cluster_launch.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "kernels/async_copy.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cu_check.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::levels {

using kern::CopyMethod;

// 1 where the image running on this device has the multicast kernel (an architecture-specific
// target such as sm_90a; kernels/async_copy.cuh).
bool multicast_in_image() {
  DeviceBuffer<int> out(1);
  out.zero();
  kern::multicast_probe<<<1, 1>>>(out.get());
  MEMHIER_LAUNCH_CHECK();
  return out.download()[0] == 1;
}

namespace {

using EncodeTiled = decltype(&::cuTensorMapEncodeTiled);
EncodeTiled encode_tiled() {
  static const EncodeTiled f = MEMHIER_DRIVER_FN(cuTensorMapEncodeTiled);  // throws (each call) while unavailable
  return f;
}

}  // namespace

bool tensor_maps_reachable() {
  try {
    return encode_tiled() != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

namespace {

constexpr double kTargetSeconds = 0.5e-3;  // a timed launch: about this long at the estimated rate

// The source buffers, made on first use and kept until the whole-memory chases free them.
DeviceBuffer<unsigned char>*& buffer_slot(int which) {
  static DeviceBuffer<unsigned char>* slots[2] = {nullptr, nullptr};
  return slots[which];
}

DeviceBuffer<unsigned char>& source_buffer(const DeviceDescription& d, bool dram) {
  const int which = dram ? 1 : 0;
  auto*& slot = buffer_slot(which);
  if (!slot) {
    const std::uint64_t want = dram ? std::min<std::uint64_t>(8 * d.l2_bytes, d.global_mem_bytes / 4) : d.l2_bytes / 4;
    const std::uint64_t bytes = std::max<std::uint64_t>(want / (64 << 10), 1) * (64 << 10);
    auto* b = new DeviceBuffer<unsigned char>(bytes);
    MEMHIER_CUDA(cudaMemset(b->get(), 0x5A, bytes));
    MEMHIER_CUDA(cudaDeviceSynchronize());
    slot = b;
    keep_device_cache([which] {
      delete buffer_slot(which);
      buffer_slot(which) = nullptr;
    });
  }
  return *slot;
}

// A 2-D tensor map over the whole buffer: rows of kTensorRowBytes (64 4-byte elements), a box of
// chunk / kTensorRowBytes rows (<= 256), so chunk c is the box at row c * rows.
CUtensorMap tensor_map(const DeviceBuffer<unsigned char>& buf, std::uint32_t chunk) {
  CUtensorMap m{};
  const cuuint64_t dims[2] = {kern::kTensorRowBytes / 4, buf.bytes() / kern::kTensorRowBytes};
  const cuuint64_t strides[1] = {kern::kTensorRowBytes};
  const cuuint32_t box[2] = {kern::kTensorRowBytes / 4, chunk / kern::kTensorRowBytes};
  const cuuint32_t estrides[2] = {1, 1};
  MEMHIER_CU(encode_tiled()(&m, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, buf.get(), dims, strides, box, estrides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return m;
}

bool parse_method(const std::string& s, CopyMethod* m) {
  if (s == "plain") *m = CopyMethod::plain;
  else if (s == "cp_async") *m = CopyMethod::cp_async;
  else if (s == "bulk") *m = CopyMethod::bulk;
  else if (s == "tensor") *m = CopyMethod::tensor;
  else return false;
  return true;
}

// "" or why this device (or this build) cannot run the method with this chunk.
std::string refuse(const DeviceDescription& d, CopyMethod m, long long chunk) {
  if (chunk < 16 || chunk % 16) return "chunk must be a positive multiple of 16 bytes";
  switch (m) {
    case CopyMethod::plain:
      if (chunk > 16 * 1024) return "plain copies hold at most 16 KiB per chunk in registers";
      return "";
    case CopyMethod::cp_async:
      return d.cc_major >= 8 ? "" : "cp.async needs compute capability 8.0";
    case CopyMethod::bulk:
      return d.cc_major >= 9 ? "" : "bulk copies need compute capability 9.0";
    case CopyMethod::tensor:
      if (d.cc_major < 9) return "tensor copies need compute capability 9.0";
      if (chunk % kern::kTensorRowBytes || chunk / kern::kTensorRowBytes > 256)
        return "tensor chunks are 1 to 256 rows of 256 bytes";
      return tensor_maps_reachable() ? "" : "cuTensorMapEncodeTiled is not reachable through the runtime";
  }
  return "unknown method";
}

using CopyKernel = void (*)(kern::CopyArgs, const CUtensorMap);

CopyKernel bandwidth_kernel(CopyMethod m) {
  switch (m) {
    case CopyMethod::plain: return kern::async_copy_bandwidth<CopyMethod::plain>;
    case CopyMethod::cp_async: return kern::async_copy_bandwidth<CopyMethod::cp_async>;
    case CopyMethod::bulk: return kern::async_copy_bandwidth<CopyMethod::bulk>;
    case CopyMethod::tensor: return kern::async_copy_bandwidth<CopyMethod::tensor>;
  }
  throw std::invalid_argument("unknown copy method");
}

CopyKernel latency_kernel(CopyMethod m) {
  switch (m) {
    case CopyMethod::plain: return kern::async_copy_latency<CopyMethod::plain>;
    case CopyMethod::cp_async: return kern::async_copy_latency<CopyMethod::cp_async>;
    case CopyMethod::bulk: return kern::async_copy_latency<CopyMethod::bulk>;
    case CopyMethod::tensor: return kern::async_copy_latency<CopyMethod::tensor>;
  }
  throw std::invalid_argument("unknown copy method");
}

double clock_hz(const DeviceDescription& d) { return d.sm_clock_khz * 1e3; }

// What one timed launch covers: chunks [first, first + per_worker * workers) `passes` times.
struct Range {
  unsigned long long first = 0, per_worker = 1;
  std::uint32_t passes = 1;
};

// l2: the whole buffer, as many passes as `target` bytes take. dram: a prefix of `target` bytes
// within [2x L2, buffer - tail], one pass; *warm: the tail, read by the untimed launch.
Range plan_range(const DeviceDescription& d, std::uint64_t buf_bytes, bool dram, std::uint32_t chunk,
                 unsigned workers, double target, Range* warm) {
  const std::uint64_t step = static_cast<std::uint64_t>(chunk) * workers;
  Range r;
  if (!dram) {
    r.per_worker = std::max<std::uint64_t>(buf_bytes / step, 1);
    r.passes = static_cast<std::uint32_t>(std::clamp(target / static_cast<double>(r.per_worker * step), 1.0, 4096.0));
    if (min_work()) r.passes = 1;
    *warm = r;
    warm->passes = 1;
    return r;
  }
  const std::uint64_t tail = std::min<std::uint64_t>(2 * d.l2_bytes, buf_bytes / 4);
  const double hi = static_cast<double>(buf_bytes - tail), lo = std::min(2.0 * d.l2_bytes, hi);
  r.per_worker = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::clamp(target, lo, hi)) / step, 1);
  warm->first = (buf_bytes - tail) / chunk;
  warm->per_worker = std::max<std::uint64_t>(tail / step, 1);
  if (min_work()) r.per_worker = warm->per_worker = 2;
  return r;
}

kern::CopyArgs args_of(const DeviceBuffer<unsigned char>& buf, const Range& r, std::uint32_t chunk, std::uint32_t stages) {
  kern::CopyArgs a{};
  a.src = buf.get();
  a.first_chunk = r.first;
  a.per_worker = r.per_worker;
  a.passes = r.passes;
  a.chunk_bytes = chunk;
  a.stages = stages;
  return a;
}

LevelResult copy_bandwidth(const DeviceDescription& d, const LevelRequest& r) {
  CopyMethod m{};
  if (!parse_method(r.text("method"), &m)) return {"unknown method '" + r.text("method") + "'", {}, 0};
  const std::string source = r.text("source");
  const long long chunk = r.num("chunk"), k = r.num("ctas_per_sm", 1), stages = r.num("stages", 2);
  if (source != "l2" && source != "dram") return {"source must be l2 or dram", {}, 0};
  if (const std::string why = refuse(d, m, chunk); !why.empty()) return {why, {}, 0};
  if (stages < 1 || stages > kern::kCopyMaxStages) return {"stages must be 1 to 4", {}, 0};
  const std::size_t smem = static_cast<std::size_t>(stages * chunk) + kern::kCopyAlign;
  if (k < 1 || smem > d.smem_per_block_optin_bytes) return {"the stages do not fit one CTA's shared memory", {}, 0};
  const CopyKernel fn = bandwidth_kernel(m);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int fit = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, fn, kern::kCopyThreads, smem));
  if (fit < k) return {std::to_string(k) + " CTAs per SM do not fit (" + std::to_string(fit) + ")", {}, 0};
  const bool dram = source == "dram";
  auto& buf = source_buffer(d, dram);
  const auto grid = static_cast<unsigned>(k * d.sm_count);
  const auto c = static_cast<std::uint32_t>(chunk);
  // estimated rate: the bytes in flight chip-wide per ~1 us round trip, at most ~3x (l2) or 1x the DRAM peak
  const double peak = d.theoretical_dram_bytes_per_second() * (dram ? 1.0 : 3.0);
  const double est = std::min(peak > 0 ? peak : 1e12, static_cast<double>(grid) * stages * chunk / 1e-6);
  Range warm;
  const Range timed = plan_range(d, buf.bytes(), dram, c, grid, est * kTargetSeconds, &warm);
  const CUtensorMap map = m == CopyMethod::tensor ? tensor_map(buf, c) : CUtensorMap{};
  fn<<<grid, kern::kCopyThreads, smem>>>(args_of(buf, warm, c, static_cast<std::uint32_t>(stages)), map);
  MEMHIER_LAUNCH_CHECK();
  EventTimer timer;
  timer.start();
  fn<<<grid, kern::kCopyThreads, smem>>>(args_of(buf, timed, c, static_cast<std::uint32_t>(stages)), map);
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult res;
  res.seconds = timer.seconds();
  const double bytes = static_cast<double>(timed.per_worker) * grid * timed.passes * chunk;
  const double bps = bytes / res.seconds;
  res.counters["bytes_per_second"] = bps;
  res.counters["bytes_per_clock_per_sm"] = bps / (d.sm_count * clock_hz(d));
  if (dram && d.theoretical_dram_bytes_per_second() > 0)
    res.counters["pct_of_peak"] = 100.0 * bps / d.theoretical_dram_bytes_per_second();
  return res;
}

LevelResult copy_latency(const DeviceDescription& d, const LevelRequest& r) {
  CopyMethod m{};
  if (!parse_method(r.text("method"), &m)) return {"unknown method '" + r.text("method") + "'", {}, 0};
  const long long chunk = r.num("chunk");
  if (const std::string why = refuse(d, m, chunk); !why.empty()) return {why, {}, 0};
  const std::size_t smem = static_cast<std::size_t>(chunk) + kern::kCopyAlign;
  if (smem > d.smem_per_block_optin_bytes) return {"the chunk does not fit one CTA's shared memory", {}, 0};
  auto& buf = source_buffer(d, false);
  const std::uint32_t samples = min_work() ? 4 : 256;
  if (static_cast<std::uint64_t>(samples) * chunk > buf.bytes()) return {"the chunks do not fit the L2-resident buffer", {}, 0};
  const CopyKernel fn = latency_kernel(m);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const auto c = static_cast<std::uint32_t>(chunk);
  const CUtensorMap map = m == CopyMethod::tensor ? tensor_map(buf, c) : CUtensorMap{};
  DeviceBuffer<unsigned long long> out(3);
  out.zero();
  Range range;
  range.per_worker = samples;
  kern::CopyArgs a = args_of(buf, range, c, 1);
  a.samples = samples;
  a.out = out.get();
  fn<<<1, kern::kCopyThreads, smem>>>(a, map);  // untimed: the same chunks into the L2
  MEMHIER_LAUNCH_CHECK();
  EventTimer timer;
  timer.start();
  fn<<<1, kern::kCopyThreads, smem>>>(a, map);
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult res;
  res.seconds = timer.seconds();
  const auto o = out.download();
  if (o[1] == 0) throw std::runtime_error("async_copy latency: no sample recorded");
  res.counters["latency_cycles"] = static_cast<double>(o[0]) / static_cast<double>(o[1]);
  res.counters["clock_overhead_cycles"] = static_cast<double>(o[2]);
  res.counters["accesses"] = static_cast<double>(o[1]);
  return res;
}

constexpr int kMulticastThreads = 32;
constexpr std::uint32_t kMulticastStages = 2;

LevelResult copy_multicast(const DeviceDescription& d, const LevelRequest& r) {
  const long long chunk = r.num("chunk"), c = r.num("cluster");
  if (r.text("source") != "l2") return {"multicast reads the L2-resident buffer only (source:l2)", {}, 0};
  if (c < 2 || c > 16) return {"cluster must be 2 to 16 CTAs", {}, 0};
  if (chunk < 16 * c || chunk % (16 * c)) return {"chunk must be a multiple of 16 bytes per CTA of the cluster", {}, 0};
  if (d.cc_major < 9 || !multicast_in_image())
    return {"multicast copies need compute capability 9.0 and an architecture-specific build (sm_90a)", {}, 0};
  // one CTA per SM, as the bandwidth kernel's ctas_per_sm:1
  const std::size_t need = kMulticastStages * chunk + kern::kCopyAlign;
  const std::size_t smem = std::max<std::size_t>(need, d.smem_per_sm_bytes / 2 + 1024);
  if (smem > d.smem_per_block_optin_bytes) return {"the stages do not fit one CTA's shared memory", {}, 0};
  auto fn = kern::async_copy_multicast;
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int clusters = 0;
  {
    ClusterLaunch probe(1, static_cast<int>(c), kMulticastThreads, smem);
    MEMHIER_CUDA(cudaOccupancyMaxActiveClusters(&clusters, fn, &probe.cfg));
  }
  if (clusters <= 0) return {"no cluster of " + std::to_string(c) + " CTAs fits this device", {}, 0};
  auto& buf = source_buffer(d, false);
  const auto cb = static_cast<std::uint32_t>(chunk);
  const double est = std::min(3 * d.theoretical_dram_bytes_per_second(), clusters * kMulticastStages * chunk / 1e-6);
  Range warm;
  const Range timed = plan_range(d, buf.bytes(), false, cb, static_cast<unsigned>(clusters), est * kTargetSeconds, &warm);
  ClusterLaunch l(clusters, static_cast<int>(c), kMulticastThreads, smem);
  MEMHIER_CUDA(cudaLaunchKernelEx(&l.cfg, fn, args_of(buf, warm, cb, kMulticastStages)));
  MEMHIER_LAUNCH_CHECK();
  EventTimer timer;
  timer.start();
  MEMHIER_CUDA(cudaLaunchKernelEx(&l.cfg, fn, args_of(buf, timed, cb, kMulticastStages)));
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult res;
  res.seconds = timer.seconds();
  const double source = static_cast<double>(timed.per_worker) * clusters * timed.passes * chunk / res.seconds;
  res.counters["source_bytes_per_second"] = source;
  res.counters["bytes_per_second"] = source * static_cast<double>(c);
  res.counters["bytes_per_clock_per_sm"] = source * static_cast<double>(c) / (d.sm_count * clock_hz(d));
  return res;
}

}  // namespace

LevelResult run_async_copy(const DeviceDescription& d, const LevelRequest& r) {
  try {
    const std::string op = r.text("op");
    if (op == "bandwidth") return copy_bandwidth(d, r);
    if (op == "latency") return copy_latency(d, r);
    if (op == "multicast") return copy_multicast(d, r);
    return {"unknown async_copy op '" + op + "'", {}, 0};
  } catch (const std::invalid_argument& e) {
    return {e.what(), {}, 0};
  }
}

}  // namespace memhier::levels
