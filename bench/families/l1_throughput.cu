// l1_throughput: read bandwidth of one SM's L1 by working-set size, from well inside it to past
// it. Every CTA reads the whole working set (ld.global.ca), so each SM's L1 holds its own copy;
// the shared-memory carveout is 0 (largest L1) and recorded in the name.
//   name: l1_throughput/bytes:N/cta_size:N/ctas:N/ilp:N/carveout:0
// Counters: bytes_per_second (all SMs), bytes_per_clock_per_sm, sm_clock_mhz, pct_of_peak
// against 32 banks x 4 bytes per clock (the L1 and shared memory are one array).
#include "bench/families/l2_throughput.hpp"

namespace memhier {
namespace {

void register_l1_throughput(Backend&) {
  const auto& dev = tput::device();
  const bool quick = plan() == Plan::quick;
  const double peak = dev.smem_bytes_per_clock_per_sm();
  // Up to twice the unified L1/shared array (at least twice the shared-memory maximum).
  const std::uint64_t hi = 2 * std::max<std::uint64_t>(dev.d.smem_per_sm_bytes, 64 << 10);
  std::vector<std::uint64_t> sizes;
  if (quick) {
    sizes = {16 << 10, 64 << 10, hi};
  } else {
    for (std::uint64_t s = 4 << 10; s < 64 << 10; s *= 2) sizes.push_back(s);
    for (std::uint64_t s = 64 << 10; s <= hi; s += hi <= (512u << 10) ? 32 << 10 : 64 << 10) sizes.push_back(s);
  }
  auto reg = [&](tput::CachedReadConfig c) {
    if (!tput::cached_read_fits(c)) return;
    tput::register_manual(tput::cached_read_name("l1_throughput", c), 3,
                          [c, peak](benchmark::State& st) { tput::run_cached_read(st, c, peak > 0 ? peak : 64, peak); });
  };
  for (std::uint64_t b : sizes) {
    tput::CachedReadConfig c;
    c.op = kern::CacheOp::ca;
    c.tile = false;
    c.carveout = 0;
    c.bytes = b;
    c.cta_size = 256;
    c.ctas = 8;
    c.ilp = 4;
    while (c.ilp > 1 && static_cast<std::uint64_t>(c.cta_size) * c.ilp * 16 > b) c.ilp /= 2;
    reg(c);
  }
  // Occupancy at 32 KiB (Little's law): warps per SM x ILP.
  if (!quick) {
    for (auto [cta, ctas] : std::vector<std::pair<int, int>>{{128, 1}, {128, 4}, {256, 1}, {256, 2}, {256, 4}, {1024, 2}})
      for (int ilp : {1, 2, 4}) {
        tput::CachedReadConfig c;
        c.op = kern::CacheOp::ca;
        c.tile = false;
        c.carveout = 0;
        c.bytes = 32 << 10;
        c.cta_size = cta;
        c.ctas = ctas;
        c.ilp = ilp;
        reg(c);
      }
  }
}

FamilyRegistrar reg("l1_throughput", true, register_l1_throughput);

}  // namespace
}  // namespace memhier
