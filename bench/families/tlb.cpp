// tlb: a map of address translation over the whole device memory (000 §4.4; docs/methodology.md,
// tlb). Whole-memory chases (64-bit pointers, kernels/wide_chase.cuh) through the L2-only path,
// strides 64 KiB .. 1 GiB (and larger while 4 slots fit), footprints of 2 .. n_max slots up to the
// free memory. Every run reads the
// same number of data lines (at most 1/8 of the L2), so only translation changes with the footprint.
// Allocation modes: cudaMalloc (the driver's pages, which entries may coalesce) at every stride;
// VMM chunks with holes at strides up to 16 chunks: whether an entry stops at a chunk (contiguous
// pages: its reach is the page) or spans chunks and holes (a virtual region). One mapping per mode (WideGroup); the analyzer asks for more points by request.
#include <algorithm>
#include <stdexcept>

#include "bench/wide/wide_family.hpp"
#include "bench/core/registry.hpp"

namespace memhier {
namespace {

struct Groups {
  std::shared_ptr<WideGroup> by_alloc[3];
  std::shared_ptr<WideGroup>& of(WideAlloc a) {
    auto& g = by_alloc[static_cast<int>(a)];
    if (!g) g = std::make_shared<WideGroup>();
    return g;
  }
};

void add_point(Groups& groups, const TlbPoint& p) {
  auto& g = groups.of(p.alloc);
  const std::string name = tlb_bench_name(p);
  register_wide(name, g, g->add(tlb_chase(p), name), report_wide);
}

TlbPoint point_of(const ExtraRequest& x) {
  TlbPoint p;
  auto it = x.str.find("alloc");
  if (it != x.str.end() && !parse_wide_alloc(it->second, &p.alloc))
    throw std::runtime_error("extra tlb request: unknown alloc '" + it->second + "' (malloc, vmm or vmm_gap)");
  auto mo = x.str.find("mode");
  if (mo != x.str.end() && (!parse_mode(mo->second, &p.mode) || p.mode == Mode::classic))
    throw std::runtime_error("extra tlb request: mode must be count or fine");
  p.bytes = static_cast<std::uint64_t>(x.get("bytes", 0));
  p.stride = static_cast<std::uint64_t>(x.get("stride", 0));
  p.lines = static_cast<std::uint64_t>(x.get("lines", static_cast<std::int64_t>(kTlbDefaultLines)));
  p.span = static_cast<std::uint64_t>(x.get("span", static_cast<std::int64_t>(kWideSpanBytes)));
  p.seed = static_cast<std::uint64_t>(x.get("seed", 0));
  p.timed = static_cast<std::uint64_t>(x.get("timed", static_cast<std::int64_t>(kTlbMinTimed)));
  if (p.stride < 128 || p.stride % 128 || p.bytes < p.stride || p.bytes % p.stride || p.lines == 0 ||
      p.timed == 0 || p.timed > (1ull << 22))
    throw std::runtime_error("extra tlb request needs a stride multiple of 128, bytes a multiple of it, lines > 0, "
                             "timed 1..4194304");
  return p;
}

// Footprints in slots: 2, 3, 4, 6, 8, 12, ... (quick: powers of two) up to n_max.
std::vector<std::uint64_t> slot_counts(std::uint64_t n_max, bool quick) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t m = 2; m <= n_max; m *= 2) {
    v.push_back(m);
    if (!quick && m + m / 2 <= n_max) v.push_back(m + m / 2);
  }
  return v;
}

void sweep(Groups& groups, WideAlloc alloc, std::uint64_t s_lo, std::uint64_t s_hi, std::uint64_t cap,
           std::uint64_t n_max, std::uint64_t lines, bool quick) {
  for (std::uint64_t s = s_lo; s <= s_hi && 2 * s <= cap; s *= quick ? 8 : 2)
    for (std::uint64_t m : slot_counts(n_max, quick)) {
      if (m * s > cap) break;
      TlbPoint p;
      p.alloc = alloc;
      p.bytes = m * s;
      p.stride = s;
      p.lines = lines;
      add_point(groups, p);
    }
}

void register_tlb(Backend& be) {
  if (!be.supports(Path::global_cg)) return;
  const WideLimits lim = be.wide_limits();
  if (lim.malloc_bytes == 0) return;
  Groups groups;
  const auto& extras = extra_requests("tlb");
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const TlbPoint p = point_of(extras[i]);
    const std::uint64_t limit = p.alloc == WideAlloc::malloc ? lim.malloc_bytes : lim.vmm_bytes;
    if (p.bytes > limit)
      throw std::runtime_error("requests tlb[" + std::to_string(i) + "]: " + std::to_string(p.bytes) +
                               " bytes exceed the tlb family's limit on this device for " + wide_alloc_name(p.alloc) + " (" +
                               std::to_string(limit) + " bytes, context tlb_limit_bytes" +
                               (p.alloc == WideAlloc::malloc ? "" : "_vmm") + ")");
    add_point(groups, p);
  }
  if (plan() == Plan::none) return;
  const bool quick = plan() == Plan::quick;
  // Data lines per run and slots per footprint: at most 1/8 of the L2, so that the lines stay cached.
  const std::uint64_t budget = std::max<std::uint64_t>(lim.l2_lines / 8, 64);
  const std::uint64_t lines = std::min(kTlbDefaultLines, budget), n_max = std::min<std::uint64_t>(16384, budget);
  // Strides up to 1 GiB, and beyond it while four slots fit: a set-indexed level (or one of
  // entries wider than 1 GiB) shows at strides of several GiB with a few slots.
  std::uint64_t s_max = 1ull << 30;
  while (4 * (2 * s_max) <= lim.malloc_bytes) s_max *= 2;
  sweep(groups, WideAlloc::malloc, 64ull << 10, s_max, lim.malloc_bytes, n_max, lines, quick);
  if (lim.vmm_bytes && lim.vmm_granularity) {
    // Up to 16 chunks: two strides at least at the full height of an entry of 8 chunks and their
    // holes (16 MiB of virtual space on the H100), so the reach of one entry under holes is measured.
    const std::uint64_t g = lim.vmm_granularity;
    sweep(groups, WideAlloc::vmm_gap, 64ull << 10, 16 * g, std::min(lim.vmm_bytes, 2048 * g), n_max, lines, quick);
  }
}

FamilyRegistrar reg("tlb", false, register_tlb);

}  // namespace
}  // namespace memhier
