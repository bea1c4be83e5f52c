// The host and peer families on a CUDA device (bench/levels/levels_cuda.hpp; docs/methodology.md,
// "Levels beyond one SM", host and peer): memory this GPU reaches over a link.
//   host/op:latency/bytes:B/warm:W      P-chase (128-byte stride, shuffled) in pinned, mapped host memory
//   host/op:{read,write}/ctas_per_sm:K  SM-initiated 16-byte streams from (to) mapped host memory
//   host/op:copy/dir:{h2d,d2h,bidir}/bytes:B  cudaMemcpyAsync on the copy engines (bidir: two streams)
//   host/op:managed/bytes:B             first touch of managed memory: fault latency, fault-driven
//                                       migration, cudaMemPrefetchAsync
//   peer/dst:D/op:latency/bytes:B/state:{cold,warm,owner}  P-chase in GPU D's memory
//   peer/dst:D/op:{read,write}/ctas_per_sm:K               SM-initiated streams from (to) D's memory
//   peer/dst:D/op:copy/dir:{uni,bidir}/bytes:B             cudaMemcpyPeerAsync (uni: to D)
// The link figures (pct_of_peak, the context) come from NVML (runtime/nvml.hpp); without NVML the
// context has no link keys and no benchmark a pct_of_peak.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/core/guard.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "common/chase.hpp"
#include "kernels/links.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"
#include "runtime/nvml.hpp"

namespace memhier::levels {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;
constexpr std::uint64_t kHostPinMax = 320 * MiB;        // the most the host family pins
constexpr std::uint64_t kHostStreamBytes = 256 * MiB;   // mapped buffer of the read/write streams
constexpr std::uint64_t kChaseStride = 128;             // bytes between chain elements
constexpr std::uint64_t kChaseMaxBytes = 1ull << 30;    // a chain's array (element indices fit 32 bits)
constexpr std::uint32_t kChaseAccesses = 2048;          // timed accesses: ~2-4 ms at 1-2 us each
constexpr std::uint32_t kChaseAccessesMinWork = 64;
constexpr unsigned kStreamThreads = 256;
constexpr int kStreamIlp = 4;                           // 16-byte loads in flight per thread
constexpr std::uint64_t kMinWorkStreamBytes = 2 * MiB;
constexpr std::uint64_t kPeerStreamBytes = 512 * MiB;   // in D's memory: far above both L2s
constexpr std::uint64_t kCopyTargetBytes = 256 * MiB;   // per direction and timed sample
constexpr int kCopyMaxReps = 64;
constexpr std::uint64_t kManagedStride = 64 * KiB;      // fault latency: one touch per 64 KiB
constexpr std::uint64_t kManagedMinWorkBytes = 8 * MiB;

std::string sci(double v) {
  std::ostringstream o;
  o.precision(6);
  o << std::scientific << v;
  return o.str();
}

LevelResult refuse(const std::string& why) {
  LevelResult r;
  r.error = why;
  return r;
}

std::uint32_t chase_accesses() { return min_work() ? kChaseAccessesMinWork : kChaseAccesses; }

// ---- RAII -------------------------------------------------------------------------------------

// Makes `d` the current device for a scope and restores the previous one (the measured device:
// the backend's device must be current again after anything run on a peer).
class CurrentDevice {
 public:
  explicit CurrentDevice(int d) {
    MEMHIER_CUDA(cudaGetDevice(&prev_));
    if (d != prev_) MEMHIER_CUDA(cudaSetDevice(d));
  }
  // for destructors: reports instead of throwing
  CurrentDevice(int d, std::nothrow_t) {
    MEMHIER_CUDA_NOEXCEPT(cudaGetDevice(&prev_));
    if (d != prev_) MEMHIER_CUDA_NOEXCEPT(cudaSetDevice(d));
  }
  ~CurrentDevice() { MEMHIER_CUDA_NOEXCEPT(cudaSetDevice(prev_)); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int prev_ = 0;
};

// An event that only orders streams (no timing).
class SyncEvent {
 public:
  SyncEvent() { MEMHIER_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~SyncEvent() { MEMHIER_CUDA_NOEXCEPT(cudaEventDestroy(e_)); }
  SyncEvent(const SyncEvent&) = delete;
  SyncEvent& operator=(const SyncEvent&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

class ManagedBuffer {
 public:
  explicit ManagedBuffer(std::size_t bytes) {
    MEMHIER_CUDA(cudaMallocManaged(&p_, bytes, cudaMemAttachGlobal));
  }
  ~ManagedBuffer() {
    if (p_) MEMHIER_CUDA_NOEXCEPT(cudaFree(p_));
  }
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Peer access from device `from` to the memory of `to`, enabled for the object's life; access
// someone else had enabled already is used and left enabled.
class PeerAccess {
 public:
  PeerAccess(int from, int to) : from_(from), to_(to) {
    CurrentDevice on(from);
    const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // the runtime recorded it as the last error: clear it
      return;
    }
    if (e != cudaSuccess)
      throw CudaError(e, cuda_error_text(e, "cudaDeviceEnablePeerAccess", __FILE__, __LINE__));
    enabled_ = true;
  }
  ~PeerAccess() {
    if (!enabled_) return;
    CurrentDevice on(from_, std::nothrow);
    MEMHIER_CUDA_NOEXCEPT(cudaDeviceDisablePeerAccess(to_));
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int from_, to_;
  bool enabled_ = false;
};

// ---- what the device offers -------------------------------------------------------------------

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}

// What the host family may pin: 320 MiB, at most an eighth of the host's memory.
std::uint64_t host_bytes_allowed() {
  std::uint64_t b = kHostPinMax;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) b = std::min<std::uint64_t>(b, static_cast<std::uint64_t>(pages) * page / 8);
  b = b / MiB * MiB;
  return b < MiB ? 0 : b;
}

// Every other device this one can access as a peer, in ordinal order.
std::vector<int> peer_list(int index) {
  std::vector<int> v;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return v;
  }
  for (int p = 0; p < n; ++p) {
    if (p == index) continue;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, index, p) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    if (can) v.push_back(p);
  }
  return v;
}

// ---- link figures (NVML) ----------------------------------------------------------------------

struct LinkFigures {
  std::string host_link, host_link_current;  // "PCIe gen5 x16"
  double host_bps = 0;                       // per direction, 0: unknown
  std::string nvlink;                        // "NVLink 4 x18", "" without an active NVLink
  double nvlink_bps = 0;                     // active links x per-link rate, per direction
  unsigned nvlink_version = 0;               // NVML's nvmlNvlinkVersion_t as it came
};

LinkFigures read_link_figures(int index) {
  LinkFigures f;
  const auto dev = NvmlDevice::open(cuda_pci_bus_id(index));
  if (!dev->available()) return f;
  const NvmlLinks l = dev->links();
  // the most the device and the system allow (the link as trained under load); the current
  // figures where NVML refuses the maximum
  const unsigned gen = l.pcie_gen_max ? l.pcie_gen_max : l.pcie_gen_current;
  const unsigned width = l.pcie_width_max ? l.pcie_width_max : l.pcie_width_current;
  f.host_bps = pcie_bytes_per_second(gen, width);
  if (f.host_bps > 0) f.host_link = pcie_link_text(gen, width);
  if (l.pcie_gen_current && l.pcie_width_current) f.host_link_current = pcie_link_text(l.pcie_gen_current, l.pcie_width_current);
  if (l.nvlink_active > 0) {
    const std::string v = nvlink_version_text(l.nvlink_version);
    f.nvlink = "NVLink" + (v.empty() ? std::string() : " " + v) + " x" + std::to_string(l.nvlink_active);
    f.nvlink_bps = l.nvlink_active * nvlink_bytes_per_second_per_link(l.nvlink_version);
    f.nvlink_version = l.nvlink_version;
  }
  return f;
}

const LinkFigures& link_figures(int index) {
  static std::map<int, LinkFigures> cache;
  auto it = cache.find(index);
  if (it == cache.end()) it = cache.emplace(index, read_link_figures(index)).first;
  return it->second;
}

// The peer link: NVLink where NVML shows active links; else peers talk over PCIe, bounded by this
// device's host link. {text, bytes per second}, {"", 0} when unknown.
std::pair<std::string, double> peer_link(const LinkFigures& f) {
  if (!f.nvlink.empty()) return {f.nvlink, f.nvlink_bps};
  if (f.host_bps > 0) return {f.host_link, f.host_bps};
  return {"", 0};
}

void set_pct(LevelResult* r, double bps, double peak) {
  if (peak > 0) r->counters["pct_of_peak"] = 100.0 * bps / peak;
}

// ---- buffers kept between benchmarks ------------------------------------------------------------

// On the measured device: an L2 flush buffer, the device sides of copies, the mapped host buffer.
// Kept until the whole-memory chases release the device caches (bench/core/guard.hpp), then made anew.
struct Local {
  int device = -1;
  DeviceBuffer<std::uint32_t> flush;  // 2 x L2: overwritten so that no line of a chain stays
  int flush_byte = 0;
  DeviceBuffer<std::uint32_t> dev_a, dev_b;  // copies: device source / destination
  DeviceBuffer<std::uint32_t> sink;
  PinnedHostBuffer<std::uint32_t> pinned;    // mapped: chases, streams, host sides of copies
};
Local* g_local = nullptr;

Local& local(const DeviceDescription& d) {
  if (g_local && g_local->device != d.index) {
    delete g_local;
    g_local = nullptr;
  }
  if (!g_local) {
    auto* l = new Local;
    l->device = d.index;
    l->sink = DeviceBuffer<std::uint32_t>(1);
    l->sink.zero();
    g_local = l;
    keep_device_cache([] {
      delete g_local;
      g_local = nullptr;
    });
  }
  return *g_local;
}

void ensure(DeviceBuffer<std::uint32_t>& b, std::uint64_t bytes) {
  if (b.bytes() >= bytes) return;
  b.reset();
  b = DeviceBuffer<std::uint32_t>((bytes + 3) / 4);
}

// Overwrites the current device's L2 with other data (twice its size, as the chase's make_cold).
void flush_l2(DeviceBuffer<std::uint32_t>& buf, int* byte, std::uint64_t l2_bytes) {
  ensure(buf, std::max<std::uint64_t>(2 * l2_bytes, 4 * MiB));
  *byte = (*byte + 1) & 0xFF;
  MEMHIER_CUDA(cudaMemset(buf.get(), *byte, buf.bytes()));
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

PinnedHostBuffer<std::uint32_t>& pinned(Local& l) {
  const std::uint64_t bytes = std::min(kHostStreamBytes, host_bytes_allowed());
  if (bytes == 0) throw std::runtime_error("the host has too little memory to pin a buffer");
  if (l.pinned.bytes() < bytes) {
    l.pinned.reset();
    l.pinned = PinnedHostBuffer<std::uint32_t>(bytes / 4, cudaHostAllocMapped | cudaHostAllocPortable);
    std::memset(l.pinned.get(), 0, l.pinned.bytes());
  }
  return l.pinned;
}

// ---- the P-chase over a link --------------------------------------------------------------------

// Elements 0, 128, 256, ... bytes below `bytes` (common/chase.hpp), visited in a shuffled order
// (fixed seed: every run the same chain).
std::vector<std::uint32_t> shuffled_chain(std::uint64_t bytes) {
  auto c = uniform_chain(bytes, kChaseStride);
  std::mt19937_64 rng(0x6C696E6Bull ^ bytes);
  std::shuffle(c.begin(), c.end(), rng);
  return c;
}

// a[c[k]] = c[k+1] (cyclic), as chain_to_array, written in place (the host buffer itself).
void write_chain(std::uint32_t* a, const std::vector<std::uint32_t>& c) {
  for (std::size_t k = 0; k < c.size(); ++k) a[c[k]] = c[(k + 1) % c.size()];
}

std::string check_chase_bytes(std::uint64_t bytes, std::uint64_t limit) {
  if (bytes < kChaseStride || bytes % kChaseStride)
    return "bytes must be a positive multiple of " + std::to_string(kChaseStride);
  if (bytes > limit) return "bytes above the " + std::to_string(limit) + " bytes this chase may use";
  return {};
}

std::uint32_t median_pair(const kern::LinkChaseOut& o) {
  std::vector<std::uint32_t> v(o.pair + 4, o.pair + kern::kLinkPairSamples);  // skip the cold start
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// One thread of the current device chases `iters` accesses from `start` (after an untimed pass
// over the same accesses when `warm`): latency_cycles (classic P-chase: the clock-pair overhead
// removed once from the whole loop), clock_overhead_cycles (per access), latency_ns, accesses.
LevelResult timed_chase(const std::uint32_t* a, std::uint32_t start, std::uint32_t iters, bool warm) {
  DeviceBuffer<kern::LinkChaseOut> out(1);
  out.zero();
  EventTimer timer;
  timer.start();
  kern::link_chase_kernel<<<1, 1>>>(a, start, iters, warm ? 1 : 0, 1, out.get());
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult r;
  r.seconds = timer.seconds();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const kern::LinkChaseOut o = out.download()[0];
  if (o.done != iters || o.cycles == 0) return refuse("the chase did not complete its timed accesses");
  const double pair = median_pair(o);
  const double lat = (static_cast<double>(o.cycles) - pair) / iters;
  r.counters["latency_cycles"] = lat;
  r.counters["clock_overhead_cycles"] = pair / iters;
  if (o.ns > 0) r.counters["latency_ns"] = lat * static_cast<double>(o.ns) / static_cast<double>(o.cycles);
  r.counters["accesses"] = iters;
  return r;
}

// ---- streams and copies -------------------------------------------------------------------------

enum class StreamOp { read, write };

// K CTAs per SM stream n 16-byte vectors from (to) `p`: one untimed pass (the translations of the
// buffer, the link's warm-up), then one timed. Seconds of the timed pass.
double timed_stream(const DeviceDescription& d, StreamOp op, void* p, std::uint64_t bytes, int ctas_per_sm,
                    std::uint32_t* sink) {
  const std::uint64_t n = bytes / 16;
  const unsigned grid = static_cast<unsigned>(ctas_per_sm * d.sm_count);
  auto launch = [&] {
    if (op == StreamOp::read)
      kern::link_read_kernel<kStreamIlp><<<grid, kStreamThreads>>>(static_cast<const uint4*>(p), n, sink);
    else
      kern::link_write_kernel<kStreamIlp><<<grid, kStreamThreads>>>(static_cast<uint4*>(p), n, 0x5A5A5A5Au);
    MEMHIER_LAUNCH_CHECK();
  };
  if (!min_work()) {
    launch();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  EventTimer timer;
  timer.start();
  launch();
  timer.stop();
  const double s = timer.seconds();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  return s;
}

// Repetitions of a copy of `bytes` per direction in one timed sample: about 256 MiB moved per
// direction (64 MiB: 4; 1 MiB: 64), one under MEMHIER_MIN_WORK.
int copy_reps(std::uint64_t bytes) {
  if (min_work()) return 1;
  return static_cast<int>(std::clamp<std::uint64_t>(kCopyTargetBytes / std::max<std::uint64_t>(bytes, 1), 2, kCopyMaxReps));
}

using CopyIssue = std::function<void(cudaStream_t)>;

// `first` on one stream and, if given, `second` on another at the same time, `reps` times each
// after one untimed round; the events span both streams. Seconds of the timed rounds.
double timed_copies(const CopyIssue& first, const CopyIssue& second, int reps) {
  MEMHIER_CUDA(cudaDeviceSynchronize());
  Stream s1, s2;
  SyncEvent fork, join;
  first(s1.get());
  if (second) second(s2.get());
  MEMHIER_CUDA(cudaStreamSynchronize(s1.get()));
  MEMHIER_CUDA(cudaStreamSynchronize(s2.get()));
  EventTimer timer(s1.get());
  timer.start();
  if (second) {
    MEMHIER_CUDA(cudaEventRecord(fork.get(), s1.get()));
    MEMHIER_CUDA(cudaStreamWaitEvent(s2.get(), fork.get(), 0));
  }
  for (int i = 0; i < reps; ++i) {
    first(s1.get());
    if (second) second(s2.get());
  }
  if (second) {
    MEMHIER_CUDA(cudaEventRecord(join.get(), s2.get()));
    MEMHIER_CUDA(cudaStreamWaitEvent(s1.get(), join.get(), 0));
  }
  timer.stop();
  const double s = timer.seconds();
  MEMHIER_CUDA(cudaStreamSynchronize(s1.get()));
  MEMHIER_CUDA(cudaStreamSynchronize(s2.get()));
  return s;
}

int ctas_per_sm_of(const LevelRequest& r, std::string* why) {
  const long long k = r.num("ctas_per_sm", 1);
  if (k < 1 || k > 32) {
    *why = "ctas_per_sm must be between 1 and 32";
    return 0;
  }
  return static_cast<int>(k);
}

// Host figures share the host's PCIe root and memory with every other process of the machine,
// whose traffic only ever slows a sample: a host rate is the best of kHostSamples timed samples
// (one under MEMHIER_MIN_WORK), with their median and count beside it; a host latency the lowest
// of kHostLatencySamples chases. Five back-to-back H100 runs of single samples read 44.3-50.7 GB/s
// for SM reads and 44.8-53.3 GB/s for copies to the device: the gate named one in two pairs worse.
constexpr int kHostSamples = 5, kHostLatencySamples = 3;

// `sample` returns the seconds of one timed sample moving `bytes`.
LevelResult best_host_rate(const std::function<double()>& sample, double bytes) {
  const int n = min_work() ? 1 : kHostSamples;
  std::vector<double> rates;
  LevelResult res;
  for (int i = 0; i < n; ++i) {
    const double s = sample();
    res.seconds += s;
    rates.push_back(bytes / s);
  }
  std::sort(rates.begin(), rates.end());
  res.counters["bytes_per_second"] = rates.back();
  res.counters["bytes_per_second_median"] = rates[rates.size() / 2];
  res.counters["samples"] = n;
  return res;
}

// The chase with the lowest latency of `n` (each from `chase`), its counters, and the median.
LevelResult lowest_latency(const std::function<LevelResult()>& chase) {
  const int n = min_work() ? 1 : kHostLatencySamples;
  std::vector<LevelResult> runs;
  std::vector<double> lat;
  double seconds = 0;
  for (int i = 0; i < n; ++i) {
    runs.push_back(chase());
    if (!runs.back().error.empty()) return runs.back();
    seconds += runs.back().seconds;
    lat.push_back(runs.back().counters.at("latency_cycles"));
  }
  const auto best = std::min_element(lat.begin(), lat.end()) - lat.begin();
  LevelResult res = runs[best];
  std::sort(lat.begin(), lat.end());
  res.counters["latency_median_cycles"] = lat[lat.size() / 2];
  res.counters["samples"] = n;
  res.seconds = seconds;
  return res;
}

// ---- host ------------------------------------------------------------------------------------

LevelResult host_latency(const DeviceDescription& d, const LevelRequest& r) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(std::max(0ll, r.num("bytes")));
  const bool warm = r.num("warm", 0) != 0;
  Local& l = local(d);
  auto& p = pinned(l);
  if (auto why = check_chase_bytes(bytes, std::min<std::uint64_t>(p.bytes(), kChaseMaxBytes)); !why.empty())
    return refuse("host latency: " + why);
  const auto chain = shuffled_chain(bytes);
  MEMHIER_CUDA(cudaDeviceSynchronize());  // nothing of the device reads the buffer while the CPU writes it
  write_chain(p.get(), chain);
  const auto iters = static_cast<std::uint32_t>(std::min<std::uint64_t>(chain.size(), chase_accesses()));
  return lowest_latency([&] {
    // No line of the buffer in this GPU's L2 (an earlier benchmark or chase may have read it); the
    // CPU's writes went to host memory and its caches only.
    flush_l2(l.flush, &l.flush_byte, d.l2_bytes);
    return timed_chase(p.device_ptr(), chain[0], iters, warm);
  });
}

LevelResult host_stream(const DeviceDescription& d, const LevelRequest& r, StreamOp op) {
  std::string why;
  const int k = ctas_per_sm_of(r, &why);
  if (!k) return refuse("host " + r.text("op") + ": " + why);
  Local& l = local(d);
  auto& p = pinned(l);
  const std::uint64_t bytes = (min_work() ? std::min<std::uint64_t>(p.bytes(), kMinWorkStreamBytes) : p.bytes()) / 16 * 16;
  LevelResult res = best_host_rate([&] { return timed_stream(d, op, p.device_ptr(), bytes, k, l.sink.get()); },
                                   static_cast<double>(bytes));
  set_pct(&res, res.counters["bytes_per_second"], link_figures(d.index).host_bps);
  return res;
}

LevelResult host_copy(const DeviceDescription& d, const LevelRequest& r) {
  const std::string dir = r.text("dir");
  const std::uint64_t bytes = static_cast<std::uint64_t>(std::max(0ll, r.num("bytes")));
  if (dir != "h2d" && dir != "d2h" && dir != "bidir") return refuse("host copy: dir must be h2d, d2h or bidir");
  Local& l = local(d);
  auto& p = pinned(l);
  const std::uint64_t need = dir == "bidir" ? 2 * bytes : bytes;
  if (bytes == 0 || need > p.bytes())
    return refuse("host copy: " + std::to_string(need) + " bytes of pinned memory needed, " +
                  std::to_string(p.bytes()) + " pinned");
  ensure(l.dev_a, bytes);
  ensure(l.dev_b, bytes);
  auto* host_src = reinterpret_cast<char*>(p.get());
  auto* host_dst = reinterpret_cast<char*>(p.get()) + p.bytes() - bytes;  // apart from the source for bidir
  const CopyIssue h2d = [&](cudaStream_t s) {
    MEMHIER_CUDA(cudaMemcpyAsync(l.dev_a.get(), host_src, bytes, cudaMemcpyHostToDevice, s));
  };
  const CopyIssue d2h = [&](cudaStream_t s) {
    MEMHIER_CUDA(cudaMemcpyAsync(host_dst, l.dev_b.get(), bytes, cudaMemcpyDeviceToHost, s));
  };
  const int reps = copy_reps(bytes);
  const int directions = dir == "bidir" ? 2 : 1;
  LevelResult res = best_host_rate(
      [&] {
        if (dir == "h2d") return timed_copies(h2d, {}, reps);
        if (dir == "d2h") return timed_copies(d2h, {}, reps);
        return timed_copies(h2d, d2h, reps);
      },
      static_cast<double>(bytes) * reps * directions);
  set_pct(&res, res.counters["bytes_per_second"], directions * link_figures(d.index).host_bps);
  return res;
}

void prefetch_to_device(void* p, std::size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = device;
  MEMHIER_CUDA(cudaMemPrefetchAsync(p, bytes, loc, 0, s));
#else
  MEMHIER_CUDA(cudaMemPrefetchAsync(p, bytes, device, s));
#endif
}

// Three fresh managed allocations, each written by the CPU first (its pages in host memory), each
// freed before the next: never more managed memory than the device has free, less a margin.
LevelResult host_managed(const DeviceDescription& d, const LevelRequest& r) {
  if (!attribute(cudaDevAttrConcurrentManagedAccess, d.index))
    return refuse("host managed: the device has no concurrent managed access");
  const std::uint64_t asked = static_cast<std::uint64_t>(std::max(0ll, r.num("bytes")));
  std::size_t free_b = 0, total_b = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const std::uint64_t margin = std::max<std::uint64_t>(512 * MiB, total_b / 20);
  std::uint64_t bytes = free_b > margin ? std::min<std::uint64_t>(asked, free_b - margin) : 0;
  if (min_work()) bytes = std::min(bytes, kManagedMinWorkBytes);
  bytes = bytes / (2 * MiB) * (2 * MiB);
  if (bytes == 0)
    return refuse("host managed: " + std::to_string(free_b) + " bytes of device memory free, less a margin of " +
                  std::to_string(margin) + ": no room for the allocation");
  MEMHIER_CUDA(cudaDeviceSynchronize());
  LevelResult res;
  {  // first touch, one thread: the mean cycles of a fault and its migration
    ManagedBuffer m(bytes);
    std::memset(m.get(), 1, bytes);
    const std::uint64_t count = bytes / kManagedStride;
    DeviceBuffer<kern::ManagedTouchOut> out(1);
    out.zero();
    EventTimer timer;
    timer.start();
    kern::managed_touch_kernel<<<1, 1>>>(static_cast<const std::uint32_t*>(m.get()), count, kManagedStride / 4,
                                         out.get());
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    res.seconds += timer.seconds();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const auto o = out.download()[0];
    if (o.count != count || count == 0) return refuse("host managed: the touch kernel did not complete");
    const double per = (static_cast<double>(o.sum) - static_cast<double>(o.overhead) * count) / count;
    res.counters["fault_latency_cycles"] = per;
    res.counters["fault_latency_max_cycles"] = static_cast<double>(o.max) - o.overhead;
    res.counters["accesses"] = static_cast<double>(count);
  }
  {  // every thread streams a fresh allocation: migration driven by faults
    ManagedBuffer m(bytes);
    std::memset(m.get(), 2, bytes);
    Local& l = local(d);
    const unsigned grid = static_cast<unsigned>(2 * d.sm_count);
    EventTimer timer;
    timer.start();
    kern::link_read_kernel<kStreamIlp><<<grid, kStreamThreads>>>(static_cast<const uint4*>(m.get()), bytes / 16,
                                                                 l.sink.get());
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    const double s = timer.seconds();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    res.seconds += s;
    res.counters["bytes_per_second"] = bytes / s;
  }
  {  // the driver migrates a fresh allocation ahead of use
    ManagedBuffer m(bytes);
    std::memset(m.get(), 3, bytes);
    Stream st;
    EventTimer timer(st.get());
    timer.start();
    prefetch_to_device(m.get(), bytes, d.index, st.get());
    timer.stop();
    const double s = timer.seconds();
    MEMHIER_CUDA(cudaStreamSynchronize(st.get()));
    res.seconds += s;
    res.counters["prefetch_bytes_per_second"] = bytes / s;
  }
  res.counters["bytes"] = static_cast<double>(bytes);
  return res;
}

// ---- peer --------------------------------------------------------------------------------------

// Buffers in a peer's memory, allocated and freed with the peer current.
struct Remote {
  int device = -1;
  DeviceBuffer<std::uint32_t> chain, stream, flush;
  int flush_byte = 0;
  std::uint64_t l2_bytes = 0;
  ~Remote() {
    if (device < 0) return;
    CurrentDevice on(device, std::nothrow);
    chain.reset();
    stream.reset();
    flush.reset();
  }
};

struct PeerState {
  std::unique_ptr<PeerAccess> to_peer, from_peer;
  Remote remote;  // declared last: freed before peer access is disabled
};

std::map<int, PeerState*>& peer_states() {
  static std::map<int, PeerState*> m;
  return m;
}

PeerState& peer_state(const DeviceDescription& d, int dst) {
  auto& m = peer_states();
  if (auto it = m.find(dst); it != m.end()) return *it->second;
  auto ps = std::make_unique<PeerState>();
  ps->remote.device = dst;
  ps->remote.l2_bytes = static_cast<std::uint64_t>(attribute(cudaDevAttrL2CacheSize, dst));
  ps->to_peer = std::make_unique<PeerAccess>(d.index, dst);
  int back = 0;
  MEMHIER_CUDA(cudaDeviceCanAccessPeer(&back, dst, d.index));
  if (back) ps->from_peer = std::make_unique<PeerAccess>(dst, d.index);  // D's engines reach this GPU directly
  {
    CurrentDevice on(dst);
    std::size_t free_b = 0, total_b = 0;
    MEMHIER_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const std::uint64_t bytes = std::min<std::uint64_t>(kPeerStreamBytes, free_b / 4) / MiB * MiB;
    if (bytes < 2 * MiB) throw std::runtime_error("peer " + std::to_string(dst) + " has too little free memory");
    ps->remote.stream = DeviceBuffer<std::uint32_t>(bytes / 4);
    MEMHIER_CUDA(cudaMemset(ps->remote.stream.get(), 0, ps->remote.stream.bytes()));
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  PeerState* raw = ps.release();
  if (m.empty())
    keep_device_cache([] {
      auto& all = peer_states();
      for (auto& [dev, s] : all) delete s;
      all.clear();
    });
  m[dst] = raw;
  return *raw;
}

void flush_remote_l2(Remote& rm) {
  CurrentDevice on(rm.device);
  flush_l2(rm.flush, &rm.flush_byte, rm.l2_bytes);
}

LevelResult peer_latency(const DeviceDescription& d, int dst, const LevelRequest& r) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(std::max(0ll, r.num("bytes")));
  const std::string state = r.text("state");
  if (state != "cold" && state != "warm" && state != "owner")
    return refuse("peer latency: state must be cold, warm or owner");
  if (auto why = check_chase_bytes(bytes, kChaseMaxBytes); !why.empty()) return refuse("peer latency: " + why);
  PeerState& ps = peer_state(d, dst);
  Local& l = local(d);
  const auto chain = shuffled_chain(bytes);
  const auto iters = static_cast<std::uint32_t>(std::min<std::uint64_t>(chain.size(), chase_accesses()));
  {
    std::vector<std::uint32_t> host(bytes / 4, 0xFFFFFFFFu);
    write_chain(host.data(), chain);
    CurrentDevice on(dst);
    ensure(ps.remote.chain, bytes);
    ps.remote.chain.upload(host);
  }
  // cold: neither L2 holds a line of the chain (its upload passed through D's)
  flush_remote_l2(ps.remote);
  flush_l2(l.flush, &l.flush_byte, d.l2_bytes);
  if (state == "owner") {  // D reads the chain itself: its L2 holds it, this GPU's does not
    CurrentDevice on(dst);
    DeviceBuffer<kern::LinkChaseOut> out(1);
    kern::link_chase_kernel<<<1, 1>>>(ps.remote.chain.get(), chain[0], iters, 1, 0, out.get());
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  return timed_chase(ps.remote.chain.get(), chain[0], iters, state == "warm");
}

LevelResult peer_stream(const DeviceDescription& d, int dst, const LevelRequest& r, StreamOp op) {
  std::string why;
  const int k = ctas_per_sm_of(r, &why);
  if (!k) return refuse("peer " + r.text("op") + ": " + why);
  PeerState& ps = peer_state(d, dst);
  Local& l = local(d);
  const std::uint64_t full = ps.remote.stream.bytes();
  const std::uint64_t bytes = (min_work() ? std::min<std::uint64_t>(full, kMinWorkStreamBytes) : full) / 16 * 16;
  LevelResult res;
  res.seconds = timed_stream(d, op, ps.remote.stream.get(), bytes, k, l.sink.get());
  const double bps = bytes / res.seconds;
  res.counters["bytes_per_second"] = bps;
  set_pct(&res, bps, peer_link(link_figures(d.index)).second);
  return res;
}

LevelResult peer_copy(const DeviceDescription& d, int dst, const LevelRequest& r) {
  const std::string dir = r.text("dir");
  const std::uint64_t bytes = static_cast<std::uint64_t>(std::max(0ll, r.num("bytes")));
  if (dir != "uni" && dir != "bidir") return refuse("peer copy: dir must be uni or bidir");
  PeerState& ps = peer_state(d, dst);
  Local& l = local(d);
  const std::uint64_t half = ps.remote.stream.bytes() / 2;
  if (bytes == 0 || bytes > half)
    return refuse("peer copy: bytes must be between 1 and " + std::to_string(half) + " (half the peer's buffer)");
  ensure(l.dev_a, bytes);
  ensure(l.dev_b, bytes);
  auto* remote_a = reinterpret_cast<char*>(ps.remote.stream.get());
  auto* remote_b = remote_a + half;
  const int here = d.index;
  const CopyIssue to_peer = [&](cudaStream_t s) {
    MEMHIER_CUDA(cudaMemcpyPeerAsync(remote_a, dst, l.dev_a.get(), here, bytes, s));
  };
  const CopyIssue from_peer = [&](cudaStream_t s) {
    MEMHIER_CUDA(cudaMemcpyPeerAsync(l.dev_b.get(), here, remote_b, dst, bytes, s));
  };
  const int reps = copy_reps(bytes);
  const int directions = dir == "bidir" ? 2 : 1;
  LevelResult res;
  res.seconds = dir == "bidir" ? timed_copies(to_peer, from_peer, reps) : timed_copies(to_peer, {}, reps);
  const double bps = static_cast<double>(bytes) * reps * directions / res.seconds;
  res.counters["bytes_per_second"] = bps;
  set_pct(&res, bps, directions * peer_link(link_figures(d.index)).second);
  return res;
}

}  // namespace

void offer_links(const DeviceDescription& d, LevelOffer* o) {
  o->host_mapped = attribute(cudaDevAttrCanMapHostMemory, d.index) != 0;
  o->managed = attribute(cudaDevAttrConcurrentManagedAccess, d.index) != 0;
  o->host_bytes = host_bytes_allowed();
  o->peers = peer_list(d.index);
}

LevelResult run_host(const DeviceDescription& d, const LevelRequest& r) {
  CurrentDevice here(d.index);
  const std::string op = r.text("op");
  if (op == "latency") return host_latency(d, r);
  if (op == "read") return host_stream(d, r, StreamOp::read);
  if (op == "write") return host_stream(d, r, StreamOp::write);
  if (op == "copy") return host_copy(d, r);
  if (op == "managed") return host_managed(d, r);
  return refuse("host: unknown op '" + op + "'");
}

LevelResult run_peer(const DeviceDescription& d, const LevelRequest& r) {
  CurrentDevice here(d.index);
  const long long dst = r.num("dst", -1);
  const auto peers = peer_list(d.index);
  if (std::find(peers.begin(), peers.end(), dst) == peers.end())
    return refuse("peer: device " + std::to_string(dst) + " is not a peer of device " + std::to_string(d.index));
  const int p = static_cast<int>(dst);
  const std::string op = r.text("op");
  if (op == "latency") return peer_latency(d, p, r);
  if (op == "read") return peer_stream(d, p, r, StreamOp::read);
  if (op == "write") return peer_stream(d, p, r, StreamOp::write);
  if (op == "copy") return peer_copy(d, p, r);
  return refuse("peer: unknown op '" + op + "'");
}

std::map<std::string, std::string> link_context(const DeviceDescription& d) {
  std::map<std::string, std::string> c;
  const auto peers = peer_list(d.index);
  std::string list;
  for (int p : peers) list += (list.empty() ? "" : ",") + std::to_string(p);
  c["peer_devices"] = list;
  const LinkFigures& f = link_figures(d.index);
  if (f.host_bps > 0) {
    c["host_link"] = f.host_link;
    c["host_link_bytes_per_second"] = sci(f.host_bps);
    c["host_link_source"] = "nvml";
  }
  if (!f.host_link_current.empty()) c["host_link_current"] = f.host_link_current;
  // the NVLink figure whenever NVML shows active links; the PCIe fallback only for actual peers
  const auto [text, bps] = peer_link(f);
  if (!text.empty() && (!f.nvlink.empty() || !peers.empty())) {
    c["peer_link"] = text;
    if (bps > 0) c["peer_link_bytes_per_second"] = sci(bps);
    c["peer_link_source"] = "nvml";
    // the enum value itself: older NVML documentation called it a version number
    if (!f.nvlink.empty()) c["peer_link_nvml_version"] = std::to_string(f.nvlink_version);
  }
  return c;
}

}  // namespace memhier::levels
