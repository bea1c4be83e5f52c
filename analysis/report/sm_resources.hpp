// report.md sections for the outstanding-request, cache-sharing / slices and L2-partition results
// (docs/methodology.md, section requests_sharing_partitions); "" when none was measured.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

std::string render_sm_resources_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
