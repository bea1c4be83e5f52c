// l2_partitions: the L2 as the SMs see it (docs/methodology.md, section requests_sharing_partitions).
//   l2_partitions/map:lines/lines:N/pressure_bytes:P   per SM: cold, after-write, warm,
//       after-pressure and after-primer latency of N test lines (trace: index = SM slot x N + line,
//       label = pass 0 cold / 1 after write / 2 after pressure / 3 after primer; meta: sm_ids,
//       line_offsets, primer_sm)
//   l2_partitions/readers:R/bytes:W/cta_size:C/ctas:K/ilp:I   read bandwidth of W bytes with R
//       consecutive CTAs (different SMs) reading each window in step (R = 1: one reader per line)
// Counters (map): sms, sms_failed, lines, pressure_bytes, <pass>_median_cycles; (readers): as
// l2_throughput, plus readers_per_line.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "bench/families/l2_throughput.hpp"
#include "bench/families/sm_ids.hpp"
#include "bench/core/registry.hpp"
#include "kernels/l2_partitions.cuh"

namespace memhier {
namespace {

constexpr std::uint64_t kPage = 2ull << 20;
constexpr int kPages = 2;
constexpr int kLinesPerPage = 32;  // 0, the 14 single-bit offsets, 17 random: the trace stays small
constexpr int kAttempts = 4;

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Test lines: per page offset 0, the single-bit offsets 2^7 .. 2^20 and seeded random line offsets.
std::vector<std::uint64_t> test_offsets() {
  std::vector<std::uint64_t> out;
  std::uint64_t seed = 13;
  for (int p = 0; p < kPages; ++p) {
    std::vector<std::uint64_t> page = {0};
    for (int k = 7; k <= 20; ++k) page.push_back(1ull << k);
    while (static_cast<int>(page.size()) < kLinesPerPage) {
      const std::uint64_t o = (splitmix(seed) % (kPage / 128)) * 128;
      if (std::find(page.begin(), page.end(), o) == page.end()) page.push_back(o);
    }
    for (auto o : page) out.push_back(p * kPage + o);
  }
  return out;
}

struct MapSetup {
  std::vector<std::uint64_t> offsets = test_offsets();  // bytes from base, per line id
  std::vector<std::uint32_t> visit;                      // line ids in chase order
  DeviceBuffer<std::uint32_t> pages{(kPages + 1) * kPage / 4};
  DeviceBuffer<std::uint32_t> order;
  std::uint32_t* base = nullptr;                         // 2 MiB aligned inside `pages`
  MapSetup() {
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(pages.get());
    base = reinterpret_cast<std::uint32_t*>((p + kPage - 1) / kPage * kPage);
    visit.resize(offsets.size());
    std::iota(visit.begin(), visit.end(), 0u);
    std::uint64_t seed = 7;
    for (std::size_t i = visit.size() - 1; i > 0; --i) std::swap(visit[i], visit[splitmix(seed) % (i + 1)]);
    std::vector<std::uint32_t> elems(visit.size());
    for (std::size_t k = 0; k < visit.size(); ++k) elems[k] = static_cast<std::uint32_t>(offsets[visit[k]] / 4);
    order = DeviceBuffer<std::uint32_t>(elems.size());
    order.upload(elems);
    std::vector<std::uint32_t> host(kPages * kPage / 4, 0);
    for (std::size_t k = 0; k < elems.size(); ++k)
      for (int w = 0; w < 8; ++w) host[elems[k] + w] = elems[(k + 1) % elems.size()];  // the whole sector
    MEMHIER_CUDA(cudaMemcpy(base, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  }
};

MapSetup& map_setup() {
  static MapSetup* m = new MapSetup;  // kept for the process's life (see gmem_throughput.cu)
  return *m;
}

// One launch of the map kernel pinned to `sm`; false when no CTA claimed it.
bool map_launch(kern::MapArgs a, unsigned sm, std::uint32_t passes, std::uint32_t slot, DeviceBuffer<int>& claim,
                DeviceBuffer<std::uint32_t>& ran) {
  claim.zero();
  ran.zero();
  a.claim = claim.get();
  a.ran = ran.get();
  a.target_sm = sm;
  a.passes = passes;
  a.slot = slot;
  kern::partition_map_kernel<><<<2 * tput::device().d.sm_count, 1024>>>(a);
  MEMHIER_LAUNCH_CHECK();
  return ran.download(1)[0] == sm + 1;
}

// One SM's passes, each after an L2 flush: A; W B C P D; then the primer SM's chase and E (far
// lines homed in the primer's partition are far-partition hits there). False when a launch found no
// CTA on its SM.
bool map_one_sm(unsigned sm, unsigned primer, const DeviceBuffer<uint4>& pressure, tput::L2Flusher& flush,
                DeviceBuffer<std::uint32_t>& out, std::uint32_t overhead) {
  MapSetup& m = map_setup();
  DeviceBuffer<int> claim(2);
  DeviceBuffer<std::uint32_t> ran(2);
  kern::MapArgs a{};
  a.base = m.base;
  a.order = m.order.get();
  a.start = m.order.download(1)[0];
  a.n = static_cast<std::uint32_t>(m.visit.size());
  a.pressure = pressure.get();
  a.pressure_vecs = pressure.size();
  a.overhead = overhead;
  a.out = out.get();
  flush.flush_clean();
  if (!map_launch(a, sm, kern::kMapCold, 0, claim, ran)) return false;
  flush.flush_clean();
  if (!map_launch(a, sm, kern::kMapRest, 0, claim, ran)) return false;
  flush.flush_clean();
  if (!map_launch(a, primer, kern::kMapCold, kern::kMapSlotPrimed, claim, ran)) return false;
  return map_launch(a, sm, kern::kMapCold, kern::kMapSlotPrimed, claim, ran);
}

std::string join(const std::vector<std::uint64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

void run_map(benchmark::State& state, const std::string& name, std::uint64_t pressure_bytes, std::size_t max_sms) {
  MapSetup& m = map_setup();
  const std::uint32_t n = static_cast<std::uint32_t>(m.visit.size());
  for (auto _ : state) {
    EventTimer t;
    t.start();
    DeviceBuffer<uint4> pressure(pressure_bytes / 16);
    kern::fill_words<std::uint32_t><<<tput::device().d.sm_count * 4, 512>>>(
        reinterpret_cast<std::uint32_t*>(pressure.get()), pressure.size() * 4, 0x1234567u);
    MEMHIER_LAUNCH_CHECK();
    tput::L2Flusher flush;
    DeviceBuffer<std::uint32_t> out(kern::kMapPasses * n);
    const std::uint32_t overhead = static_cast<std::uint32_t>(backend().clock_overhead().fine_cycles + 0.5);
    Trace tr;
    tr.kind = Trace::Kind::fine;
    tr.benchmark = name;
    std::vector<std::uint64_t> measured;
    std::vector<std::vector<double>> by_pass(kern::kMapPasses);
    int failed = 0;
    const auto& ids = sm_ids();
    for (std::size_t i = 0; i < ids.size() && i < max_sms; ++i) {
      bool ok = false;
      for (int k = 0; k < kAttempts && !ok; ++k) ok = map_one_sm(ids[i], ids.front(), pressure, flush, out, overhead);
      if (!ok) {
        ++failed;
        continue;
      }
      const auto lat = out.download();
      const std::uint32_t slot = static_cast<std::uint32_t>(measured.size());
      measured.push_back(ids[i]);
      for (int p = 0; p < kern::kMapPasses; ++p)
        for (std::uint32_t k = 0; k < n; ++k) {
          by_pass[p].push_back(lat[p * n + k]);
          if (p == 2) continue;  // the warm pass goes into the counters only
          tr.index.push_back(slot * n + m.visit[k]);
          tr.latency.push_back(lat[p * n + k]);
          tr.label.push_back(static_cast<std::uint8_t>(p < 2 ? p : p - 1));  // A 0, B 1, D 2, E 3
        }
    }
    t.stop();
    state.SetIterationTime(t.seconds());
    tr.meta = {{"content", "l2_partition_map"}, {"lines", std::to_string(n)},
               {"sm_ids", join(measured)}, {"line_offsets", join(m.offsets)},
               {"page_bytes", std::to_string(kPage)}, {"pressure_bytes", std::to_string(pressure_bytes)},
               {"primer_sm", std::to_string(ids.front())},
               {"labels", "0=cold 1=after_write 2=after_pressure 3=after_primer"}};
    write_bench_trace(name, tr);
    state.counters["sms"] = static_cast<double>(measured.size());
    state.counters["sms_failed"] = failed;
    state.counters["lines"] = n;
    state.counters["pressure_bytes"] = static_cast<double>(pressure_bytes);
    const char* pass_names[] = {"cold", "after_write", "warm", "after_pressure", "after_primer"};
    for (int p = 0; p < kern::kMapPasses; ++p)
      if (!by_pass[p].empty()) state.counters[std::string(pass_names[p]) + "_median_cycles"] = tput::median(by_pass[p]);
  }
}

void register_l2_partitions(Backend&) {
  const auto& dev = tput::device();
  if (dev.d.l2_bytes == 0) return;
  const bool quick = plan() == Plan::quick;
  const std::uint64_t pressure = dev.d.l2_bytes * 3 / 4 / 65536 * 65536;
  const std::uint32_t lines = kPages * kLinesPerPage;
  const std::string map = BenchName("l2_partitions").add("map", "lines").add("lines", static_cast<std::int64_t>(lines))
                              .add("pressure_bytes", static_cast<std::int64_t>(pressure)).str();
  const std::size_t max_sms = quick ? 4 : kern::kMaxSmIds;
  tput::register_manual(map, 1, [map, pressure, max_sms](benchmark::State& st) { run_map(st, map, pressure, max_sms); });
  const std::vector<int> readers = quick ? std::vector<int>{1, 8} : std::vector<int>{1, 2, 4, 8, 16, 32};
  for (int r : readers) {
    tput::CachedReadConfig c;
    c.op = kern::CacheOp::cg;
    c.bytes = dev.d.l2_bytes / 4 / 65536 * 65536;
    c.cta_size = 256;  // one CTA step (16 KiB) below a tile (W / 528 CTAs), so R = 1 is one reader
    c.ctas = 4;
    c.ilp = 4;
    c.share = r;
    if (!tput::cached_read_fits(c)) continue;
    // readers per line per round: share x window / tile (a window spans at least one CTA step)
    const double tiles = std::floor(static_cast<double>(c.ctas) * dev.d.sm_count / r);
    const double tile = std::floor(static_cast<double>(c.bytes / 16) / tiles);
    const double per_line = r * static_cast<double>(tput::cached_window(c)) / tile;
    const std::string name = BenchName("l2_partitions").add("readers", r).add("bytes", static_cast<std::int64_t>(c.bytes))
                                 .add("cta_size", c.cta_size).add("ctas", c.ctas).add("ilp", c.ilp).str();
    tput::register_manual(name, 3, [c, per_line](benchmark::State& st) {
      tput::run_cached_read(st, c, 48.0, 0);
      st.counters["readers_per_line"] = per_line;
    });
  }
}

FamilyRegistrar reg("l2_partitions", true, register_l2_partitions);

}  // namespace
}  // namespace memhier
