// The global-memory latency spectrum (000 §5.2, Fig. 14; 001 Table 3) from the latency_spectrum
// family: each pattern's median latency, and which of P1-P6 it is. P1 near_hit (cache hit, TLB hit),
// revisit groups (cache hits behind the translations of the last g far pages) by their steps over
// the group before on the same lines (placement cancelled; older runs: by their medians): P1 up to
// the first step, P2 from it (only the first TLB level misses), P3 from a second one (the next
// level misses too), P4 cold_near (cache miss, TLB hit), P5 far_new_line (cache miss, TLB miss, page
// seen before), P6 first_far (first touch: the page-table walk from DRAM, 000's "page table
// context switching"). Older archives (patterns cold_far, far_revisit) are read as they are.
#pragma once
#include <nlohmann/json.hpp>

#include "analysis/cache/infer_caches.hpp"

namespace memhier::analysis {

// global_memory.latency_spectrum.<path> = [{pattern, cycles, what, p}], and the DRAM latency
// (cold_near on global_cg) into *dram (unchanged when not measured).
nlohmann::json spectrum_of(const Dataset& data, Evidence* ev, double* dram);

}  // namespace memhier::analysis
