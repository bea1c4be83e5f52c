// l2_throughput: read bandwidth of the L2 by working-set size, from far inside it to past it
// (000 §5.1's method on a cache-resident footprint). ld.global.cg skips the L1; the CTAs tile the
// working set and read it round after round. On a GPU with a partitioned L2 (H100: two halves,
// each SM closer to one) the curve shows a step where the working set outgrows one half.
//   name: l2_throughput/bytes:N/cta_size:N/ctas:N/ilp:N[/overlap:K][/share:G][/op:na][/layout:all]
//   overlap, share and layout:all read each line from several SMs at about the same time (the
//   analyzer reports them apart as shared lines); op:na uses ld.global.nc.L1::no_allocate.
// Counters: bytes_per_second, bytes_per_clock (whole GPU), bytes_per_clock_per_sm, sm_clock_mhz.
// No pct_of_peak: NVIDIA documents no L2 bandwidth to compare with (docs/methodology.md).
#include <cmath>
#include <set>
#include <tuple>

#include "bench/families/l2_throughput.hpp"

namespace memhier {
namespace {

void register_l2_throughput(Backend&) {
  const auto& dev = tput::device();
  if (dev.d.l2_bytes == 0) return;
  const bool quick = plan() == Plan::quick;
  const double l2 = static_cast<double>(dev.d.l2_bytes);
  const std::vector<double> fr = quick ? std::vector<double>{0.125, 0.4, 2.0}
                                       : std::vector<double>{1.0 / 64, 1.0 / 32, 1.0 / 16, 0.125, 0.2, 0.25, 0.3, 0.35,
                                                             0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5,
                                                             2.0, 3.0};
  // Expected rates size the samples: on-chip about 48 bytes per clock per SM; past the L2, DRAM.
  const double clk = dev.d.sm_clock_khz * 1e3;
  const double dram_bpc = clk > 0 ? dev.theoretical_dram / clk / dev.d.sm_count : 16;
  std::set<std::string> seen;
  auto reg = [&](tput::CachedReadConfig c) {
    if (!tput::cached_read_fits(c) || !seen.insert(tput::cached_read_name("l2_throughput", c)).second) return;
    const double expect = static_cast<double>(c.bytes) > l2 ? dram_bpc : 48.0;
    // Lines several SMs read at once (overlap, share, layout:all) vary most from sample to sample:
    // 2 ms samples for them, 1 ms for distinct lines (docs/methodology.md, l1_throughput / l2_throughput).
    const bool shared_lines = c.overlap > 1 || c.share > 1 || !c.tile;
    const double sample = shared_lines ? 2e-3 : 1e-3;
    tput::register_manual(tput::cached_read_name("l2_throughput", c), 3,
                          [c, expect, sample](benchmark::State& st) { tput::run_cached_read(st, c, expect, 0, sample); });
  };
  for (double x : fr) {
    tput::CachedReadConfig c;
    c.op = kern::CacheOp::cg;
    c.bytes = std::max<std::uint64_t>(1 << 20, static_cast<std::uint64_t>(x * l2) / 65536 * 65536);
    c.cta_size = 512;
    c.ctas = 4;
    c.ilp = 4;
    reg(c);
  }
  // Tuning variants, registered at every working set inside the L2 (the same set everywhere, so
  // the best-per-working-set curve stays comparable from one size to the next): the load path (na:
  // the non-coherent path without L1 allocation), overlap (each line read by 2 or 8 CTAs whose
  // windows are shifted by one tile), share (2 or 8 consecutive CTAs, on different SMs, read one
  // window in step) and layout:all (every CTA reads every line from a staggered start), at four
  // occupancy / ILP points. ld.global.ca is left out: the per-SM share of these working sets fits
  // the L1, so it measures the L1. Past the L2 the variants are left out too: shared and
  // overlapping windows would be served partly by the L2 and overstate the DRAM rate.
  // The variants of shared lines (overlap, share, layout:all) only at the powers of two of the L2
  // (1/64 ... 1): in the ten H100 and H200 archives of 2026-11-27 no best-per-working-set point
  // elsewhere came from them and both peaks (one reader, shared lines) lay at these sizes, so the
  // 200 other ones (1.7 s of an H200 run) decided no figure.
  auto shared_variants_at = [](double x) {
    for (double f : {1.0 / 64, 1.0 / 32, 1.0 / 16, 0.125, 0.25, 0.5, 1.0})
      if (std::fabs(x - f) < 1e-9) return true;
    return false;
  };
  if (!quick) {
    for (double x : fr) {
      if (x > 1.0) continue;
      for (auto [cta, ctas, ilp] :
           std::vector<std::tuple<int, int, int>>{{512, 4, 4}, {512, 2, 8}, {1024, 1, 8}, {512, 2, 16}}) {
        tput::CachedReadConfig c;
        c.op = kern::CacheOp::cg;
        c.bytes = std::max<std::uint64_t>(1 << 20, static_cast<std::uint64_t>(x * l2) / 65536 * 65536);
        c.cta_size = cta;
        c.ctas = ctas;
        c.ilp = ilp;
        reg(c);
        const bool shared = shared_variants_at(x);  // the order of the full sweep kept
        for (int ov : {2, 8}) {
          tput::CachedReadConfig o = c;
          o.overlap = ov;
          if (shared) reg(o);
        }
        for (int sh : {2, 8}) {
          tput::CachedReadConfig o = c;
          o.share = sh;
          if (shared) reg(o);
        }
        tput::CachedReadConfig o = c;
        o.op = kern::CacheOp::na;
        reg(o);
        o = c;
        o.tile = false;
        if (shared) reg(o);
      }
    }
  }
  if (quick) {  // the variant kernels at an eighth of the L2
    tput::CachedReadConfig c;
    c.op = kern::CacheOp::cg;
    c.tile = false;
    c.bytes = static_cast<std::uint64_t>(l2 / 8) / 65536 * 65536;
    c.cta_size = 512;
    c.ctas = 4;
    c.ilp = 4;
    reg(c);
    c.tile = true;
    c.op = kern::CacheOp::na;
    c.overlap = 2;
    reg(c);
  }
  // Occupancy (Little's law) at an eighth of the L2: warps per SM x ILP.
  if (!quick) {
    for (auto [cta, ctas] : std::vector<std::pair<int, int>>{{256, 1}, {256, 2}, {256, 4}, {256, 8}, {1024, 1}, {1024, 2}})
      for (int ilp : {1, 2, 4, 8}) {
        tput::CachedReadConfig c;
        c.op = kern::CacheOp::cg;
        c.bytes = static_cast<std::uint64_t>(l2 / 8) / 65536 * 65536;
        c.cta_size = cta;
        c.ctas = ctas;
        c.ilp = ilp;
        if (cta == 512 && ctas == 4 && ilp == 4) continue;  // already in the curve
        reg(c);
      }
  }
}

FamilyRegistrar reg("l2_throughput", true, register_l2_throughput);

}  // namespace
}  // namespace memhier
