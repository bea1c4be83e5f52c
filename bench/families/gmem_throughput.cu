// gmem_throughput: DRAM bandwidth of copy, read-only and write-only streams (000 §5.1 Fig. 12;
// 004's data-type study) against CTAs per SM, CTA size, ILP and access width.
//   name: gmem_throughput/kind:{read,write,copy}/width:{4,8,16}/ilp:N/cta_size:N/ctas:N
//   ctas = CTAs per SM (the grid is ctas x SM count); configurations whose CTAs cannot all be
//   resident at once (threads or blocks per SM) are not registered.
// Every timed sample streams a footprint once after an L2 flush; the footprint is sized from the
// configuration's bytes in flight so that a sample lasts about 1-2 ms whatever the occupancy.
// Counters: bytes_per_second (copy counts bytes read plus written), pct_of_peak against
// 2 x memory clock x bus width / 8, bytes_in_flight_per_sm (threads x ilp x width per SM).
#include <memory>

#include "bench/families/gmem_throughput.hpp"
#include "bench/registry.hpp"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

enum class Kind { read, write, copy };
const char* kind_name(Kind k) { return k == Kind::read ? "read" : k == Kind::write ? "write" : "copy"; }

// Source and destination buffers shared by every configuration, allocated on first use and kept
// for the process's life (freeing at exit would race the CUDA runtime's own teardown).
struct Streams {
  DeviceBuffer<std::uint32_t> src, dst, sink;
  tput::L2Flusher flusher;
  std::uint64_t bytes = 0;  // of each of src and dst
};

Streams& streams() {
  static Streams* s = [] {
    const auto& dev = tput::device();
    auto* x = new Streams;
    // 2 GiB each, at most an eighth of the memory: far above any L2, and a sample of a few ms.
    const std::uint64_t bytes = std::min<std::uint64_t>(2ull << 30, dev.d.global_mem_bytes / 8) / 4096 * 4096;
    x->src = DeviceBuffer<std::uint32_t>(bytes / 4);
    x->dst = DeviceBuffer<std::uint32_t>(bytes / 4);
    x->sink = DeviceBuffer<std::uint32_t>(1);
    x->bytes = bytes;
    kern::fill_words<std::uint32_t><<<dev.d.sm_count * 4, 512>>>(x->src.get(), x->src.size(), 0x5A5A5A5Au);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    return x;
  }();
  return *s;
}

struct Config {
  Kind kind;
  int width, ilp, cta_size, ctas;
};

template <int W, int ILP>
void launch(const Config& c, std::uint64_t n, int grid) {
  using V = typename tput::VecOf<W>::type;
  Streams& s = streams();
  auto* src = reinterpret_cast<const V*>(s.src.get());
  auto* dst = reinterpret_cast<V*>(s.dst.get());
  if (c.kind == Kind::read)
    kern::gmem_read<V, ILP><<<grid, c.cta_size>>>(src, n, s.sink.get());
  else if (c.kind == Kind::write)
    kern::gmem_write<V, ILP><<<grid, c.cta_size>>>(dst, n, 0xA5A5A5A5u);
  else
    kern::gmem_copy<V, ILP><<<grid, c.cta_size>>>(src, dst, n);
  MEMHIER_LAUNCH_CHECK();
}

template <int W>
void launch_w(const Config& c, std::uint64_t n, int grid) {
  switch (c.ilp) {
    case 1: return launch<W, 1>(c, n, grid);
    case 2: return launch<W, 2>(c, n, grid);
    case 4: return launch<W, 4>(c, n, grid);
    case 8: return launch<W, 8>(c, n, grid);
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

void run_config(benchmark::State& state, const Config& c) {
  const auto& dev = tput::device();
  Streams& s = streams();
  const int grid = c.ctas * dev.d.sm_count;
  const std::uint64_t chunk = static_cast<std::uint64_t>(grid) * c.cta_size * c.ilp;  // vectors per grid step
  // Expected rate: bytes in flight over ~1 us (a loaded DRAM latency), capped at the peak; the
  // sample moves what that rate moves in 1.5 ms (at least one grid step, at most the buffer).
  const double inflight = static_cast<double>(chunk) * c.width;
  const double rate = std::min(dev.theoretical_dram, inflight / 1e-6);
  const double dirs = c.kind == Kind::copy ? 2.0 : 1.0;
  std::uint64_t want = static_cast<std::uint64_t>(rate * 1.5e-3 / dirs / c.width);
  std::uint64_t n = std::max<std::uint64_t>(1, want / chunk) * chunk;
  const std::uint64_t cap = s.bytes / c.width / chunk * chunk;
  if (cap == 0) throw std::runtime_error("stream buffer smaller than one grid step");
  n = std::min(n, cap);
  const double bytes = static_cast<double>(n) * c.width * dirs;

  EventTimer timer;
  auto one = [&] {
    if (c.width == 4) launch_w<4>(c, n, grid);
    else if (c.width == 8) launch_w<8>(c, n, grid);
    else launch_w<16>(c, n, grid);
  };
  one();  // warm-up: module load, first-touch of the pages
  MEMHIER_CUDA(cudaDeviceSynchronize());
  std::vector<double> secs;
  for (auto _ : state) {
    s.flusher.flush();  // no line of the footprint left in the L2
    timer.start();
    one();
    timer.stop();
    const double t = timer.seconds();
    secs.push_back(t);
    state.SetIterationTime(t);
  }
  const double t = tput::median(secs);
  const double bps = bytes / t;
  state.counters["bytes_per_second"] = bps;
  state.counters["pct_of_peak"] = dev.theoretical_dram > 0 ? 100.0 * bps / dev.theoretical_dram : 0;
  state.counters["bytes_in_flight_per_sm"] = inflight / dev.d.sm_count;
  state.counters["warps_per_sm"] = static_cast<double>(c.ctas) * ((c.cta_size + 31) / 32);
  state.counters["bytes_moved"] = bytes;
}

void register_gmem_throughput(Backend&) {
  const auto& dev = tput::device();
  const bool quick = plan() == Plan::quick;
  std::vector<Config> cfgs;
  auto add = [&](Kind k, int w, int ilp, int cta, int ctas) {
    if (cta * ctas > dev.max_threads_per_sm || ctas > dev.max_blocks_per_sm) return;  // not all resident
    cfgs.push_back({k, w, ilp, cta, ctas});
  };
  for (Kind k : {Kind::read, Kind::write, Kind::copy}) {
    if (quick) {
      add(k, 16, 4, 1024, 2);
      add(k, 4, 1, 128, 1);
      continue;
    }
    for (int cta : {128, 256, 512, 1024})
      for (int ctas : {1, 2, 4, 8, 16})
        for (int ilp : {1, 2, 4, 8}) {
          add(k, 16, ilp, cta, ctas);
          // the data-type study (004) at two CTA sizes: 4- and 8-byte accesses
          if (cta == 256 || cta == 1024)
            for (int w : {4, 8}) add(k, w, ilp, cta, ctas);
        }
  }
  for (const Config& c : cfgs) {
    BenchName n("gmem_throughput");
    n.add("kind", kind_name(c.kind)).add("width", c.width).add("ilp", c.ilp);
    n.add("cta_size", c.cta_size).add("ctas", c.ctas);
    tput::register_manual(n.str(), 3, [c](benchmark::State& st) { run_config(st, c); });
  }
}

FamilyRegistrar reg("gmem_throughput", true, register_gmem_throughput);

}  // namespace
}  // namespace memhier
