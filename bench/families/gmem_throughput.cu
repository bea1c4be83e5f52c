// gmem_throughput: DRAM bandwidth of copy, read-only and write-only streams (000 §5.1 Fig. 12;
// 004's data-type study) against CTAs per SM, CTA size, ILP and access width.
//   name: gmem_throughput/kind:{read,write,copy}/width:{4,8,16}/ilp:N/cta_size:N/ctas:N
//   ctas = CTAs per SM (the grid is ctas x SM count); configurations whose CTAs cannot all be
//   resident at once (threads or blocks per SM) are not registered.
// Every timed sample streams a footprint once after an L2 flush; the footprint is sized from the
// configuration's bytes in flight so that a sample lasts about 1-2 ms whatever the occupancy.
// Counters: bytes_per_second (copy counts bytes read plus written), pct_of_peak against
// 2 x memory clock x bus width / 8, bytes_in_flight_per_sm (threads x ilp x width per SM).
// Tuning variants (16-byte vectors; docs/methodology.md, section throughput) add parameters to the
// name, the baseline adds none: access:{cs,na,ef} (cache hints), layout:{chunk,oneshot} (a
// contiguous range per CTA; one grid step per CTA with as many CTAs as the footprint needs),
// ilp:16, flush:clean (reads: the L2 is left full of clean lines before the sample, as a long read
// stream leaves it), dst_offset:N (copy: destination shifted by N bytes against the source).
#include <memory>
#include <set>
#include <string>

#include "bench/families/gmem_throughput.hpp"
#include "bench/core/guard.hpp"
#include "bench/core/registry.hpp"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

enum class Kind { read, write, copy };
const char* kind_name(Kind k) { return k == Kind::read ? "read" : k == Kind::write ? "write" : "copy"; }

// Source and destination buffers shared by every configuration, allocated on first use and kept
// until the whole-memory chases free them (bench/core/guard.hpp keep_device_cache) or the process ends
// (not freed at exit: that would race the CUDA runtime's own teardown).
constexpr std::uint64_t kDstSlack = 8ull << 20;  // room for Config::dst_offset
struct Streams {
  DeviceBuffer<std::uint32_t> src, dst, sink;
  tput::L2Flusher flusher;
  std::uint64_t bytes = 0;  // of each of src and dst
  // What an untimed launch before the samples would still do: load a kernel's module the first
  // time it runs, and write destination bytes for the first time (src is filled at allocation).
  std::set<std::string> kernels_run;
  std::uint64_t dst_written = 0;  // bytes from the start of dst that a launch has written
};

Streams& streams() {
  static Streams* s = nullptr;
  if (!s) {
    const auto& dev = tput::device();
    auto* x = new Streams;
    // 2 GiB each, at most an eighth of the memory: far above any L2, and a sample of a few ms.
    const std::uint64_t bytes = std::min<std::uint64_t>(2ull << 30, dev.d.global_mem_bytes / 8) / 4096 * 4096;
    x->src = DeviceBuffer<std::uint32_t>(bytes / 4);
    x->dst = DeviceBuffer<std::uint32_t>((bytes + kDstSlack) / 4);
    x->sink = DeviceBuffer<std::uint32_t>(1);
    x->bytes = bytes;
    kern::fill_words<std::uint32_t><<<dev.d.sm_count * 4, 512>>>(x->src.get(), x->src.size(), 0x5A5A5A5Au);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    s = x;
    keep_device_cache([] {
      delete s;
      s = nullptr;
    });
  }
  return *s;
}

// access/layout/flush: the tuning variants (kernels/throughput.cuh); plain/grid/dirty is the
// baseline kernel (gmem_read/write/copy) and adds nothing to the name. Layout oneshot: the chunk
// kernel with one grid step per CTA, as many CTAs as the footprint needs (the hardware scheduler
// hands them out; `ctas` then names how many are resident per SM).
enum class Layout { grid, chunk, oneshot };
struct Config {
  Kind kind;
  int width, ilp, cta_size, ctas;
  kern::Access access = kern::Access::plain;
  Layout layout = Layout::grid;
  bool clean = false;  // clean L2 flush before each sample (read streams)
  int dst_offset = 0;  // bytes the destination starts past its allocation (copy: src/dst DRAM alignment)
  bool variant() const {
    return access != kern::Access::plain || layout != Layout::grid || ilp > 8 || dst_offset != 0;
  }
};
const char* access_name(kern::Access a) {
  return a == kern::Access::plain ? "plain" : a == kern::Access::cs ? "cs" : a == kern::Access::na ? "na" : "ef";
}
const char* layout_name(Layout l) { return l == Layout::grid ? "grid" : l == Layout::chunk ? "chunk" : "oneshot"; }

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

// The variant kernels: 16-byte vectors only.
template <int ILP, kern::Access A, kern::Layout L>
void launch_v(const Config& c, std::uint64_t n, int grid) {
  Streams& s = streams();
  auto* src = reinterpret_cast<const uint4*>(s.src.get());
  if (c.dst_offset < 0 || c.dst_offset % 16 || static_cast<std::uint64_t>(c.dst_offset) > kDstSlack)
    throw std::invalid_argument("dst_offset must be a multiple of 16 within the slack");
  auto* dst = reinterpret_cast<uint4*>(s.dst.get()) + c.dst_offset / 16;
  if (c.kind == Kind::read)
    kern::gmem_read_v<uint4, ILP, A, L><<<grid, c.cta_size>>>(src, n, s.sink.get());
  else if (c.kind == Kind::write)
    kern::gmem_write_v<uint4, ILP, A, L><<<grid, c.cta_size>>>(dst, n, 0xA5A5A5A5u);
  else
    kern::gmem_copy_v<uint4, ILP, A, L><<<grid, c.cta_size>>>(src, dst, n);
  MEMHIER_LAUNCH_CHECK();
}

template <int ILP, kern::Access A>
void launch_va(const Config& c, std::uint64_t n, int grid) {
  if (c.layout == Layout::grid) return launch_v<ILP, A, kern::Layout::grid>(c, n, grid);
  return launch_v<ILP, A, kern::Layout::chunk>(c, n, grid);
}

template <int ILP>
void launch_vi(const Config& c, std::uint64_t n, int grid) {
  switch (c.access) {
    case kern::Access::plain: return launch_va<ILP, kern::Access::plain>(c, n, grid);
    case kern::Access::cs: return launch_va<ILP, kern::Access::cs>(c, n, grid);
    case kern::Access::na: return launch_va<ILP, kern::Access::na>(c, n, grid);
    case kern::Access::ef: return launch_va<ILP, kern::Access::ef>(c, n, grid);
  }
}

void launch_variant(const Config& c, std::uint64_t n, int grid) {
  if (c.width != 16) throw std::invalid_argument("variants use 16-byte vectors");
  switch (c.ilp) {
    case 1: return launch_vi<1>(c, n, grid);
    case 2: return launch_vi<2>(c, n, grid);
    case 4: return launch_vi<4>(c, n, grid);
    case 8: return launch_vi<8>(c, n, grid);
    case 16: return launch_vi<16>(c, n, grid);
  }
  throw std::invalid_argument("variant ilp must be 1, 2, 4, 8 or 16");
}

void run_config(benchmark::State& state, const Config& c) {
  const auto& dev = tput::device();
  Streams& s = streams();
  const int resident = c.ctas * dev.d.sm_count;
  const std::uint64_t chunk = static_cast<std::uint64_t>(resident) * c.cta_size * c.ilp;  // vectors per grid step
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
  const std::uint64_t grid64 = c.layout == Layout::oneshot ? n / (static_cast<std::uint64_t>(c.cta_size) * c.ilp) : resident;
  if (grid64 > 0x7FFFFFFFull) throw std::runtime_error("grid too large");
  const int grid = static_cast<int>(grid64);

  EventTimer timer;
  auto one = [&] {
    if (c.variant()) launch_variant(c, n, grid);
    else if (c.width == 4) launch_w<4>(c, n, grid);
    else if (c.width == 8) launch_w<8>(c, n, grid);
    else launch_w<16>(c, n, grid);
  };
  // Warm-up (untimed): the kernel's module load and the first write of destination pages; skipped
  // where an earlier configuration already did both (the timed samples are the same either way).
  const std::string kernel = std::string(c.variant() ? "v/" : "b/") + kind_name(c.kind) + "/" + std::to_string(c.width) + "/" +
                             std::to_string(c.ilp) + "/" + access_name(c.access) + "/" + layout_name(c.layout);
  const std::uint64_t dst_end = c.kind == Kind::read ? 0 : static_cast<std::uint64_t>(c.dst_offset) + n * c.width;
  if (!s.kernels_run.count(kernel) || dst_end > s.dst_written) {
    one();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    s.kernels_run.insert(kernel);
    s.dst_written = std::max(s.dst_written, dst_end);
  }
  std::vector<double> secs;
  for (auto _ : state) {
    if (c.clean) s.flusher.flush_clean();  // no line of the footprint left in the L2, none dirty
    else s.flusher.flush();                // no line of the footprint left in the L2
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
      // the variant kernels: oneshot (and a clean L2 for reads; ILP 1 for copies)
      const std::size_t before = cfgs.size();
      add(k, 16, k == Kind::copy ? 1 : 4, 512, 2);
      if (cfgs.size() > before) {
        cfgs.back().layout = Layout::oneshot;
        cfgs.back().clean = k == Kind::read;
      }
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
  // Tuning variants (16-byte vectors): cache hints, layouts, ILP 16 and, for reads, a clean L2.
  if (!quick) {
    for (Kind k : {Kind::read, Kind::write, Kind::copy})
      for (auto [cta, ctas] : std::vector<std::pair<int, int>>{{256, 8}, {512, 4}, {1024, 2}, {1024, 1}, {256, 4}})
        for (int ilp : {4, 8, 16})
          for (kern::Access a : {kern::Access::plain, kern::Access::cs, kern::Access::na, kern::Access::ef})
            for (Layout l : {Layout::grid, Layout::chunk, Layout::oneshot})
              for (bool clean : {false, true}) {
                if (ilp == 16 && cta == 1024) continue;  // more registers than 1024 threads may hold
                if (clean && k != Kind::read) continue;  // writes leave dirty lines: the dirty flush balances them
                if (k == Kind::write && a == kern::Access::na) continue;  // na = plain for stores
                if (l == Layout::oneshot && ilp == 16) continue;
                if (a == kern::Access::ef && dev.d.cc_major < 8) continue;  // L2 cache policies need sm_80
                // the cache hints gained nothing on the H100 (docs/methodology.md): kept at one ILP
                // and the grid/oneshot layouts so the archive shows it, without tripling the plan
                if (a != kern::Access::plain && (ilp != 4 || l == Layout::chunk)) continue;
                const std::size_t before = cfgs.size();
                add(k, 16, ilp, cta, ctas);
                if (cfgs.size() == before) continue;
                Config& c = cfgs.back();
                c.access = a;
                c.layout = l;
                c.clean = clean;
                if (!c.variant() && !clean) cfgs.pop_back();  // the baseline, registered above
              }
  }
  // Copy: the destination shifted against the source (DRAM channel / bank alignment of the two
  // streams), oneshot with ILP 1 and 2 (one short step per CTA, as simple copy kernels do).
  if (!quick) {
    for (auto [cta, ctas] : std::vector<std::pair<int, int>>{{512, 4}, {1024, 2}, {256, 8}})
      for (int ilp : {1, 2, 4})
        for (int off : {0, 4096, 65536, 1 << 20, 3 << 20}) {
          const std::size_t before = cfgs.size();
          add(Kind::copy, 16, ilp, cta, ctas);
          if (cfgs.size() == before) continue;
          cfgs.back().layout = Layout::oneshot;
          cfgs.back().dst_offset = off;
          if (ilp == 4 && off == 0) cfgs.pop_back();  // registered above
        }
    // ... and the cache hints on the short oneshot steps
    for (int ilp : {1, 2})
      for (kern::Access a : {kern::Access::cs, kern::Access::na, kern::Access::ef}) {
        if (a == kern::Access::ef && dev.d.cc_major < 8) continue;  // L2 cache policies need sm_80
        const std::size_t before = cfgs.size();
        add(Kind::copy, 16, ilp, 1024, 2);
        if (cfgs.size() == before) continue;
        cfgs.back().layout = Layout::oneshot;
        cfgs.back().access = a;
      }
  }
  for (const Config& c : cfgs) {
    BenchName n("gmem_throughput");
    n.add("kind", kind_name(c.kind)).add("width", c.width).add("ilp", c.ilp);
    n.add("cta_size", c.cta_size).add("ctas", c.ctas);
    if (c.access != kern::Access::plain) n.add("access", access_name(c.access));
    if (c.layout != Layout::grid) n.add("layout", layout_name(c.layout));
    if (c.clean) n.add("flush", "clean");
    if (c.dst_offset) n.add("dst_offset", c.dst_offset);
    tput::register_manual(n.str(), 3, [c](benchmark::State& st) { run_config(st, c); });
  }
}

FamilyRegistrar reg("gmem_throughput", true, register_gmem_throughput);

}  // namespace
}  // namespace memhier
