// report.md section "Address translation": the map of the topology's address_translation section
// (levels, entries, reach, penalty with intervals, page, sets/ways, resolution, steps per stride).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

std::string render_translation_markdown(const nlohmann::json& topology);

}  // namespace memhier::analysis
