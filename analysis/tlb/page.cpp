#include "analysis/tlb/page.hpp"

#include <cmath>

namespace memhier::analysis {

namespace {

struct ChunkMap {
  std::uint64_t chunk = 0, gap = 0;
};

// chunk_bytes / gap_bytes of the vmm_gap runs, else the context's granularity with a hole of one chunk.
ChunkMap chunk_map(const Dataset& data, std::uint64_t granularity) {
  ChunkMap m{granularity, granularity};
  for (const auto& c : data.chases())
    if (c.family == "tlb" && c.entry && c.entry->params.get_or("alloc", "") == "vmm_gap" &&
        c.entry->counter("chunk_bytes", 0) > 0) {
      m.chunk = static_cast<std::uint64_t>(c.entry->counter("chunk_bytes", 0));
      m.gap = static_cast<std::uint64_t>(c.entry->counter("gap_bytes", 0));
      break;
    }
  return m;
}

std::uint64_t pow2_nearest(double x) {
  std::uint64_t p = 1;
  while (static_cast<double>(p) * std::sqrt(2.0) < x) p <<= 1;
  return p;
}

// Reach of one entry of vmm_gap level G in logical (mapped) bytes (0: not decided): its own, or,
// while its heights still double at its largest stride, from the penalty of the malloc level its
// highest rise reaches (within 10 %): the largest stride u with a partial height h gives u * P / h.
std::uint64_t gap_entry(const TlbLevel& G, const std::vector<TlbLevel>& malloc_levels, std::string* how) {
  if (G.entry_bytes) {
    *how = G.entry_note;
    return G.entry_bytes;
  }
  if (G.saturated) return 0;  // full height at every stride: at most the smallest one
  double P = 0;
  for (const auto& M : malloc_levels)
    if (M.saturated && std::fabs(G.penalty - M.penalty) <= 0.1 * M.penalty + 3 * (G.penalty_ci95 + M.penalty_ci95) / 1.96)
      P = M.penalty;
  if (P <= 0) return 0;
  const TlbRise* u = nullptr;
  for (const auto& r : G.rises)
    if (!r.shared && r.height < 0.75 * P) u = &r;
  if (!u || u->height <= 0) return 0;
  const double est = static_cast<double>(u->stride) * P / u->height;
  *how = "heights still double at the largest vmm_gap stride; the malloc level's penalty " + std::to_string(P) +
         " cycles and +" + std::to_string(u->height) + " at stride " + std::to_string(u->stride) + " give " +
         std::to_string(static_cast<long long>(est)) + " mapped bytes per entry";
  return pow2_nearest(est);
}

}  // namespace

Evidence tlb_level_evidence(const TlbLevel& L) {
  Evidence ev;
  for (const auto& r : L.rises)
    for (const auto& n : r.evidence) ev.add(n);
  return ev;
}

PageInfo tlb_page_of(const Dataset& data, const std::vector<TlbLevel>& malloc_levels,
                     const std::vector<TlbLevel>& gap_levels) {
  PageInfo pg;
  const auto& cx = data.context();
  if (auto it = cx.find("vmm_granularity_bytes"); it != cx.end()) {
    try {
      pg.granularity = std::stoull(it->second);
    } catch (...) {
    }
  }
  const ChunkMap m = chunk_map(data, pg.granularity);
  std::string region_how, first_note;
  for (const auto& G : gap_levels) {
    std::string how;
    const std::uint64_t e = gap_entry(G, malloc_levels, &how);
    if (first_note.empty()) first_note = G.entry_note;
    if (!e) continue;
    if (!m.chunk || e <= m.chunk) {  // stops at the chunk: contiguous pages, and this is the page
      if (!pg.page || e < pg.page) {
        pg.page = e;
        pg.ev = tlb_level_evidence(G);
      }
    } else if (!pg.region_bytes) {   // spans chunks and their holes: a virtual region
      pg.region_bytes = e / m.chunk * (m.chunk + m.gap);
      region_how = how;
      pg.ev = tlb_level_evidence(G);
    }
  }
  if (pg.page) {
    pg.note = "reach of one entry when memory is mapped in VMM chunks of " + std::to_string(pg.granularity) +
              " bytes with holes (an entry of contiguous pages cannot cover two chunks)" +
              (pg.page < pg.granularity ? "; smaller than the chunk: the driver used smaller pages" : "");
  } else if (pg.region_bytes) {
    pg.at_most = m.chunk;
    pg.note = "not observable from reach: under VMM chunks of " + std::to_string(m.chunk) + " bytes, each followed by a " +
              std::to_string(m.gap) + "-byte hole, one entry still covers " + std::to_string(pg.region_bytes) +
              " bytes of virtual space (" + region_how + "): entries cover aligned virtual regions across separately " +
              "created chunks and holes, not contiguous pages; the page is at most the chunk (" +
              std::to_string(m.chunk) + " bytes)";
  } else {
    pg.note = pg.granularity == 0 ? "no VMM sweep (whole-memory chases on VMM chunks not offered on this device)"
              : gap_levels.empty() ? "the VMM sweep with holes shows no TLB level (no rise at two strides)"
                                   : "the VMM sweep with holes does not decide the reach of one entry: " + first_note;
  }
  return pg;
}

}  // namespace memhier::analysis
