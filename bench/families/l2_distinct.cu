// More l2_throughput layouts (docs/methodology.md, section requests_sharing_partitions, "Distinct-line
// L2 bandwidth against gpu-benches"), registered under the l2_throughput family at 0.2-0.5 x L2:
//   .../stagger:1       the tile layout, each CTA starting at a golden-ratio phase of its window
//   .../layout:oneshot  one tile per CTA, tiles x rounds CTAs handed out by the block scheduler;
//                       `ctas` = CTAs resident per SM (enforced with dynamic shared memory)
//   .../layout:peer     gpu-benches' gpu-l2-cache pattern (shared lines: several resident blocks
//                       read each 512 KiB chunk; the analyzer reports it apart)
//   .../layout:peer/variant:l2only   the same without L1 allocation (L1::no_allocate): no L1 hits
//                       between co-resident blocks of one chunk, the sharing stays
//   .../layout:peer/variant:rotated  no allocation, and the readers of one chunk start rows apart:
//                       no line is read by two blocks at the same time (what is left of the
//                       pattern without concurrent sharing)
//   .../layout:bulk/chunk:C  (sm_90+) each CTA's tile copied into shared memory by the bulk-copy
//                       engine (cp.async.bulk), `ilp` copies of C bytes in flight per CTA
// Counters as l2_throughput, plus readers_per_line (concurrent readers of a line) and resident_ctas.
#include <climits>
#include <cmath>
#include <functional>
#include <set>
#include <tuple>

#include "bench/families/l2_throughput.hpp"
#include "kernels/l2_stream.cuh"
#include "runtime/clock_check.hpp"

namespace memhier {
namespace {

constexpr std::uint64_t kPeerChunkBytes = 512ull << 10;

struct Layout {
  std::string kind;  // oneshot, peer, bulk
  std::string variant;  // peer: "" (as the peer), l2only, rotated
  std::uint64_t bytes = 0;
  int cta_size = 256, ctas = 4, ilp = 4;
  std::uint32_t chunk = 0;  // bulk: bytes per copy
};

using PeerFn = void (*)(const uint2*, std::uint32_t, std::uint32_t, std::uint32_t*);
PeerFn peer_kernel(const std::string& variant) {
  return variant.empty() ? kern::l2_peer_read<false> : kern::l2_peer_read<true>;
}

using OneshotFn = void (*)(const uint4*, std::uint32_t, std::uint32_t, std::uint32_t*);
OneshotFn oneshot_kernel(int ilp) {
  switch (ilp) {
    case 2: return kern::l2_oneshot_read<2>;
    case 4: return kern::l2_oneshot_read<4>;
    case 8: return kern::l2_oneshot_read<8>;
  }
  throw std::invalid_argument("oneshot ilp must be 2, 4 or 8");
}

// Smallest dynamic shared memory (1 KiB steps) that leaves at most `ctas` CTAs per SM; 0 when
// `ctas` CTAs do not fit at all.
std::size_t pad_for(const void* fn, int cta_size, int ctas) {
  const auto& dev = tput::device();
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(dev.d.smem_per_block_optin_bytes)));
  for (std::size_t pad = 0; pad <= dev.d.smem_per_block_optin_bytes; pad += 1024) {
    int n = 0;
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, cta_size, pad));
    if (n < ctas) return 0;
    if (n == ctas) return pad;
  }
  return 0;
}

// Fills the counters of a run from its timings (clock measured right after the timed launches).
void report(benchmark::State& state, double bytes, const std::vector<double>& secs, double readers, int resident) {
  const auto& dev = tput::device();
  const double bps = bytes / tput::median(secs);
  double f = measure_sm_clock_mhz() * 1e6;
  if (!(f > 0)) f = dev.d.sm_clock_khz * 1e3;
  state.counters["bytes_per_second"] = bps;
  state.counters["bytes_per_clock"] = bps / f;
  state.counters["bytes_per_clock_per_sm"] = bps / f / dev.d.sm_count;
  state.counters["sm_clock_mhz"] = f * 1e-6;
  state.counters["readers_per_line"] = readers;
  state.counters["resident_ctas"] = resident;
}

// A warm launch (the working set into the L2), then one timed launch per iteration; the seconds.
std::vector<double> time_launches(benchmark::State& state, const std::function<void(std::uint64_t)>& launch,
                                  std::uint64_t warm_grid, std::uint64_t grid) {
  launch(warm_grid);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  EventTimer timer;
  std::vector<double> secs;
  for (auto _ : state) {
    timer.start();
    launch(grid);
    timer.stop();
    secs.push_back(timer.seconds());
    state.SetIterationTime(secs.back());
  }
  return secs;
}

// Target bytes of a sample: about 2 ms at 48 bytes per clock per SM.
double sample_bytes() {
  const auto& dev = tput::device();
  return 48.0 * dev.d.sm_count * dev.d.sm_clock_khz * 1e3 * 2e-3;
}

void run_oneshot(benchmark::State& state, const Layout& l) {
  const auto& dev = tput::device();
  OneshotFn fn = oneshot_kernel(l.ilp);
  const std::size_t pad = pad_for(reinterpret_cast<const void*>(fn), l.cta_size, l.ctas);
  if (pad == 0 && l.ctas > 0) {
    int n = 0;
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, l.cta_size, 0));
    if (n != l.ctas) throw std::invalid_argument("cannot hold exactly " + std::to_string(l.ctas) + " CTAs per SM");
  }
  tput::WorkingSet& ws = tput::working_set(l.bytes);
  const std::uint32_t tile = static_cast<std::uint32_t>(l.cta_size) * l.ilp;
  const std::uint32_t tiles = static_cast<std::uint32_t>(l.bytes / 16 / tile);
  const std::uint64_t rounds = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(sample_bytes() / (16.0 * tile * tiles)));
  const std::uint64_t grid = std::min<std::uint64_t>(rounds * tiles, INT_MAX / 2);
  const int resident = l.ctas * dev.d.sm_count;
  auto launch = [&](std::uint64_t g) {
    fn<<<static_cast<unsigned>(g), l.cta_size, pad>>>(ws.buf.get(), tile, tiles, ws.sink.get());
    MEMHIER_LAUNCH_CHECK();
  };
  const std::vector<double> secs = time_launches(state, launch, tiles, grid);
  report(state, 16.0 * tile * static_cast<double>(grid), secs, std::max(1.0, static_cast<double>(resident) / tiles), resident);
}

void run_peer(benchmark::State& state, const Layout& l) {
  const auto& dev = tput::device();
  const std::uint32_t chunks = static_cast<std::uint32_t>(l.bytes / kPeerChunkBytes);
  tput::WorkingSet& ws = tput::working_set(static_cast<std::uint64_t>(chunks) * kPeerChunkBytes);
  const PeerFn fn = peer_kernel(l.variant);
  int per_sm = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 1024, 0));
  const int resident = per_sm * dev.d.sm_count;
  const double readers = std::max(1.0, static_cast<double>(resident) / chunks);  // resident blocks per chunk
  // rotated: the resident readers of a chunk start 32 / readers rows apart
  const std::uint32_t row_step =
      l.variant == "rotated" ? std::max<std::uint32_t>(1, kern::kPeerRows / static_cast<std::uint32_t>(std::ceil(readers))) : 0;
  const std::uint64_t blocks = std::max<std::uint64_t>(chunks, static_cast<std::uint64_t>(sample_bytes() / kPeerChunkBytes));
  const uint2* src = reinterpret_cast<const uint2*>(ws.buf.get());
  auto launch = [&](std::uint64_t g) {
    fn<<<static_cast<unsigned>(g), 1024>>>(src, chunks, row_step, ws.sink.get());
    MEMHIER_LAUNCH_CHECK();
  };
  const std::vector<double> secs = time_launches(state, launch, chunks, blocks);
  // concurrent readers of a line: rotated keeps them apart (one at a time while row_step x readers <= 32)
  report(state, static_cast<double>(blocks) * kPeerChunkBytes, secs, l.variant == "rotated" ? 1.0 : readers, resident);
  state.counters["row_step"] = row_step;
}

// layout:bulk (sm_90+): one issuing thread per CTA; `ilp` = copies in flight, `chunk` = bytes per copy.
void run_bulk(benchmark::State& state, const Layout& l) {
  const auto& dev = tput::device();
  const auto fn = kern::l2_bulk_read<>;
  const std::size_t smem = static_cast<std::size_t>(l.ilp) * l.chunk;
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 32, smem));
  if (per_sm < l.ctas) throw std::invalid_argument("the bulk-copy CTAs do not all fit at once");
  const std::uint64_t grid = static_cast<std::uint64_t>(l.ctas) * dev.d.sm_count;
  const std::uint64_t tile = l.bytes / grid / l.chunk * l.chunk;  // one reader per line: each CTA its tile
  if (tile == 0) throw std::invalid_argument("working set smaller than one chunk per CTA");
  tput::WorkingSet& ws = tput::working_set(l.bytes);
  const std::uint32_t rounds = static_cast<std::uint32_t>(std::max(1.0, sample_bytes() / (tile * grid)));
  DeviceBuffer<std::uint32_t> err(1);
  err.zero();
  const auto* src = reinterpret_cast<const unsigned char*>(ws.buf.get());
  auto launch = [&](std::uint64_t r) {
    fn<<<static_cast<unsigned>(grid), 32, smem>>>(src, tile, l.chunk, static_cast<std::uint32_t>(l.ilp),
                                                  static_cast<std::uint32_t>(r), err.get());
    MEMHIER_LAUNCH_CHECK();
  };
  const std::vector<double> secs = time_launches(state, launch, 1, rounds);
  if (const std::uint32_t e = err.download(1)[0]; e != 0)
    throw std::runtime_error(e == 1 ? "a bulk copy did not complete within 50 M cycles" : "no bulk-copy engine on this GPU");
  report(state, static_cast<double>(tile) * grid * rounds, secs, 1.0, static_cast<int>(grid));
}

std::string layout_name(const Layout& l) {
  BenchName n("l2_throughput");
  n.add("bytes", static_cast<std::int64_t>(l.bytes)).add("cta_size", l.cta_size).add("ctas", l.ctas).add("ilp", l.ilp);
  n.add("layout", l.kind);
  if (l.kind == "bulk") n.add("chunk", static_cast<std::int64_t>(l.chunk));
  if (!l.variant.empty()) n.add("variant", l.variant);
  return n.str();
}

void register_l2_distinct(Backend&) {
  const auto& dev = tput::device();
  if (dev.d.l2_bytes == 0) return;
  const bool quick = plan() == Plan::quick;
  const double l2 = static_cast<double>(dev.d.l2_bytes);
  const std::vector<double> fr = quick ? std::vector<double>{0.3} : std::vector<double>{0.2, 0.3, 0.4, 0.5};
  std::set<std::string> seen;
  for (double x : fr) {
    const std::uint64_t bytes = std::max<std::uint64_t>(1 << 20, static_cast<std::uint64_t>(x * l2) / 65536 * 65536);
    for (auto [cta, ctas, ilp] : std::vector<std::tuple<int, int, int>>{{512, 4, 4}, {512, 2, 8}, {1024, 1, 8}}) {
      tput::CachedReadConfig c;
      c.bytes = bytes;
      c.cta_size = cta;
      c.ctas = ctas;
      c.ilp = ilp;
      c.stagger = true;
      const std::string name = tput::cached_read_name("l2_throughput", c);
      if (!tput::cached_read_fits(c) || !seen.insert(name).second) continue;
      tput::register_manual(name, 3, [c](benchmark::State& st) { tput::run_cached_read(st, c, 48.0, 0); });
    }
    for (auto [cta, ctas, ilp] : std::vector<std::tuple<int, int, int>>{{256, 4, 4}, {512, 2, 4}, {1024, 1, 4}, {256, 8, 2}}) {
      const Layout l{"oneshot", "", bytes, cta, ctas, ilp};
      if (seen.insert(layout_name(l)).second)
        tput::register_manual(layout_name(l), 3, [l](benchmark::State& st) { run_oneshot(st, l); });
    }
    int peer_per_sm = 0;  // resident peer blocks per SM (the name records it)
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&peer_per_sm, kern::l2_peer_read<false>, 1024, 0));
    if (dev.d.cc_major >= 9)  // the bulk-copy engine (cp.async.bulk) of sm_90
      for (auto [ctas, stages, chunk] : std::vector<std::tuple<int, int, std::uint32_t>>{{2, 4, 16384}, {1, 8, 16384}, {2, 8, 8192}}) {
        const Layout b{"bulk", "", bytes, 32, ctas, stages, chunk};
        if (seen.insert(layout_name(b)).second)
          tput::register_manual(layout_name(b), 3, [b](benchmark::State& st) { run_bulk(st, b); });
      }
    for (const char* variant : {"", "l2only", "rotated"}) {
      const Layout p{"peer", variant, bytes / kPeerChunkBytes * kPeerChunkBytes, 1024, peer_per_sm, 2};
      if (p.bytes >= kPeerChunkBytes && seen.insert(layout_name(p)).second)
        tput::register_manual(layout_name(p), 3, [p](benchmark::State& st) { run_peer(st, p); });
    }
  }
}

FamilyRegistrar reg("l2_throughput", true, register_l2_distinct);

}  // namespace
}  // namespace memhier
