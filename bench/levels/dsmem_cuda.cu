// The CUDA side of the dsmem family (bench/levels/levels.hpp; docs/methodology.md, "Levels beyond one SM")
// and what the device offers to dsmem and async_copy (offer_sm). Kernels: kernels/dsmem.cuh.
//   dsmem/op:latency/cluster:C/rank:R
//   dsmem/op:{read,write}/cluster:C/remote:{0,1}/cta_size:T
// Both launch as many clusters as fit at once (cudaOccupancyMaxActiveClusters), each CTA with
// enough dynamic shared memory that an SM holds one CTA: every other rank is another SM.
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/core/guard.hpp"
#include "bench/levels/cluster_launch.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "bench/core/sm_span.hpp"
#include "kernels/dsmem.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::levels {

// Defined in async_copy_cuda.cu (what offer_sm also reports).
bool multicast_in_image();
bool tensor_maps_reachable();

namespace {

constexpr int kLatencyThreads = 128;
constexpr std::uint32_t kChainStride = 32;  // bytes between chain elements

// Dynamic shared memory of one CTA that leaves no room for a second CTA on its SM (0: `need` does
// not fit one CTA).
std::size_t one_cta_per_sm(const DeviceDescription& d, std::size_t need) {
  const std::size_t bytes = std::max<std::size_t>(need, d.smem_per_sm_bytes / 2 + 1024);
  return bytes <= d.smem_per_block_optin_bytes ? bytes : (need <= d.smem_per_block_optin_bytes ? need : 0);
}

template <typename... P>
void prepare(void (*fn)(P...), std::size_t smem) {
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

// Clusters of `c` CTAs that fit at once (0 where none does).
template <typename... P>
int active_clusters(void (*fn)(P...), int c, int threads, std::size_t smem) {
  ClusterLaunch l(1, c, threads, smem);
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, fn, &l.cfg) != cudaSuccess) {
    (void)cudaGetLastError();  // a refused cluster size is an answer, not a fault
    return 0;
  }
  return n;
}


// The chain in each CTA's shared memory: kDsmemChainBytes / kChainStride elements in a shuffled
// cyclic order; word k holds the byte offset of the next element (0 off the chain).
std::vector<std::uint32_t> shuffled_chain_words() {
  const std::uint32_t n = kern::kDsmemChainBytes / kChainStride;
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t k = 0; k < n; ++k) order[k] = k * kChainStride;
  std::mt19937 rng(0x5EED);
  std::shuffle(order.begin() + 1, order.end(), rng);  // element 0 starts the chain
  std::vector<std::uint32_t> words(kern::kDsmemChainBytes / 4, 0);
  for (std::uint32_t k = 0; k < n; ++k) words[order[k] / 4] = order[(k + 1) % n];
  return words;
}

void add_latency_counters(const std::vector<kern::DsmemLatencyRecord>& recs, int rank, LevelResult* res) {
  std::vector<double> per, same, other, ovh;
  for (const auto& r : recs) {
    if (r.accesses == 0) continue;
    const double mean = static_cast<double>(r.sum_cycles) / r.accesses;
    per.push_back(mean);
    ovh.push_back(r.overhead);
    if (rank > 0) (r.smid[0] / 2 == r.smid[rank] / 2 ? same : other).push_back(mean);
  }
  if (per.empty()) throw std::runtime_error("dsmem latency: no cluster recorded a chase");
  auto& c = res->counters;
  c["latency_cycles"] = level_median(per);
  c["latency_min_cycles"] = *std::min_element(per.begin(), per.end());
  c["latency_max_cycles"] = *std::max_element(per.begin(), per.end());
  c["clusters"] = static_cast<double>(per.size());
  c["accesses"] = recs.front().accesses;
  c["clock_overhead_cycles"] = level_median(ovh);
  if (!same.empty()) c["latency_same_tpc_cycles"] = level_median(same);
  if (!other.empty()) c["latency_other_tpc_cycles"] = level_median(other);
}

LevelResult dsmem_latency(const DeviceDescription& d, int c, int rank) {
  if (rank < 0 || rank >= c) return {"rank " + std::to_string(rank) + " outside a cluster of " + std::to_string(c), {}, 0};
  const std::size_t smem = one_cta_per_sm(d, kern::kDsmemChainBytes);
  if (smem == 0) return {"the chain does not fit one CTA's shared memory", {}, 0};
  prepare(kern::dsmem_latency, smem);
  const int clusters = active_clusters(kern::dsmem_latency, c, kLatencyThreads, smem);
  if (clusters <= 0) return {"no cluster of " + std::to_string(c) + " CTAs fits this device", {}, 0};
  DeviceBuffer<std::uint32_t> chain(kern::kDsmemChainBytes / 4);
  chain.upload(shuffled_chain_words());
  DeviceBuffer<kern::DsmemLatencyRecord> recs(static_cast<std::size_t>(clusters));
  recs.zero();
  const std::uint32_t warm = min_work() ? 8 : kern::kDsmemChainBytes / kChainStride;
  const std::uint32_t timed = min_work() ? 16 : 4 * kern::kDsmemChainBytes / kChainStride;
  ClusterLaunch l(clusters, c, kLatencyThreads, smem);
  EventTimer timer;
  timer.start();
  MEMHIER_CUDA(cudaLaunchKernelEx(&l.cfg, kern::dsmem_latency, static_cast<const std::uint32_t*>(chain.get()), 0u,
                                  static_cast<std::uint32_t>(rank), warm, timed, recs.get()));
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult res;
  res.seconds = timer.seconds();
  add_latency_counters(recs.download(), rank, &res);
  return res;
}

using StreamKernel = void (*)(std::uint32_t, int, kern::SmemStamp*, std::uint32_t*);

LevelResult dsmem_stream(const DeviceDescription& d, bool write, int c, int remote, int threads) {
  if ((remote != 0 && remote != 1) || threads < 32 || threads > 1024 || threads % 32 != 0)
    return {"remote must be 0 or 1 and cta_size a multiple of 32 up to 1024", {}, 0};
  const std::size_t need = static_cast<std::size_t>(kern::kDsmemVectors) * threads * 16;
  const std::size_t smem = one_cta_per_sm(d, need);
  if (smem == 0) return {"the CTA's buffer does not fit its shared memory", {}, 0};
  const StreamKernel fn = write ? kern::dsmem_stream<true> : kern::dsmem_stream<false>;
  prepare(fn, smem);
  const int clusters = active_clusters(fn, c, threads, smem);
  if (clusters <= 0) return {"no cluster of " + std::to_string(c) + " CTAs of " + std::to_string(threads) + " threads fits", {}, 0};
  const int ctas = clusters * c;
  // 32 MiB per CTA: ~0.15 ms at the banks' 128 B/clk, ~0.5 ms at a remote 32 B/clk, ~2 ms at 8 B/clk
  // (2 repetitions under MEMHIER_MIN_WORK).
  const auto reps = min_work() ? 2u : static_cast<std::uint32_t>((32ull << 20) / need);
  DeviceBuffer<kern::SmemStamp> stamps(static_cast<std::size_t>(ctas));
  DeviceBuffer<std::uint32_t> sink(1);
  ClusterLaunch l(clusters, c, threads, smem);
  EventTimer timer;
  timer.start();
  MEMHIER_CUDA(cudaLaunchKernelEx(&l.cfg, fn, reps, remote, stamps.get(), sink.get()));
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  LevelResult res;
  res.seconds = timer.seconds();
  const auto rates = per_sm_rates(stamps.download(), static_cast<double>(need) * reps);
  if (rates.empty()) throw std::runtime_error("dsmem stream: no SM recorded a span");
  const double bpc = level_median(rates);
  res.counters["bytes_per_clock_per_sm"] = bpc;
  res.counters["bytes_per_second"] = bpc * static_cast<double>(rates.size()) * d.sm_clock_khz * 1e3;
  if (d.cc_major >= 5) res.counters["pct_of_peak"] = 100.0 * bpc / 128.0;  // 32 banks x 4 bytes per clock
  res.counters["warps_per_sm"] = threads / 32.0;
  return res;
}

}  // namespace

void offer_sm(const DeviceDescription& d, LevelOffer* o) {
  o->cp_async = d.cc_major >= 8;
  if (d.cc_major < 9) return;
  o->bulk_copies = true;
  const std::size_t smem = one_cta_per_sm(d, kern::kDsmemChainBytes);
  if (smem) {
    prepare(kern::dsmem_latency, smem);
    for (int c : {2, 4, 8, 16})
      if (active_clusters(kern::dsmem_latency, c, kLatencyThreads, smem) > 0) o->max_cluster = c;
  }
  o->multicast = o->max_cluster >= 2 && multicast_in_image();
  o->tensor_copies = tensor_maps_reachable();
}

LevelResult run_dsmem(const DeviceDescription& d, const LevelRequest& r) {
  try {
    if (d.cc_major < 9) return {"dsmem needs thread-block clusters (compute capability 9.0)", {}, 0};
    const std::string op = r.text("op");
    const int c = static_cast<int>(r.num("cluster"));
    if (c < 1 || c > 16) return {"cluster must be 1 to 16 CTAs", {}, 0};
    if (op == "latency") return dsmem_latency(d, c, static_cast<int>(r.num("rank")));
    if (op == "read" || op == "write")
      return dsmem_stream(d, op == "write", c, static_cast<int>(r.num("remote")), static_cast<int>(r.num("cta_size", 1024)));
    return {"unknown dsmem op '" + op + "'", {}, 0};
  } catch (const std::invalid_argument& e) {
    return {e.what(), {}, 0};
  }
}

}  // namespace memhier::levels
