// report.md sections for the outstanding-request, cache-sharing, L2-partition, L2-slice and L2-set
// results (docs/methodology.md, sections requests_sharing_partitions, l2_slices, l2_evsets); "" when
// none was measured.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

std::string render_sm_resources_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
