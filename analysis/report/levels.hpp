// report.md for the levels beyond one SM (analysis/memory/levels.hpp): distributed shared memory,
// async copies, host memory and peers, each only when its section is in the topology.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

// Markdown ("" when none of the four sections is present).
std::string render_levels_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
