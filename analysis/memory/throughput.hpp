// Throughput, bank-conflict and warp-access sections of the topology report (issue 4 families:
// gmem_throughput, l1_throughput, l2_throughput, smem_throughput, smem_bank_conflict, warp_access).
// Called by the topology builder; each section it cannot fill is null with a reason.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::analysis {

// Adds/overwrites in `topology`: global_memory.{peak_read,peak_write,peak_copy}_bytes_per_second
// (+ configurations, pct of theoretical), l1_bandwidth, l2_bandwidth, shared_memory.{banks,
// bank_width_bytes, latency_by_stride, conflict_law, peak_bytes_per_clock_per_sm, ...},
// warp_access.
void add_throughput_sections(const std::vector<BenchRun>& runs, nlohmann::json& topology);

// Markdown for report.md (tables of the sections above); "" when nothing was measured.
std::string render_throughput_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
