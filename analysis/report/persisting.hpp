// report.md section of the persisting L2 set-aside (analysis/l2/persisting_l2.hpp): the device's
// maximum, the largest kept, and per requested size the bytes kept, from topology.json alone.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

// Markdown ("" when the topology has no l2_persisting section).
std::string render_persisting_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
