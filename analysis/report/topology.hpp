// The topology report (DESIGN.md "Topology report", schema memhier-topology/1, docs/formats.md
// section topology): built from a Dataset, rendered as report.md.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/core/dataset.hpp"
#include "analysis/core/refinement.hpp"
#include "analysis/core/requests.hpp"

namespace memhier::analysis {

constexpr const char* kTopologySchema = "memhier-topology/1";

// Infers everything; the chases still needed go to `requests`, this round's (within `budget`) to
// requests.selected.
nlohmann::json build_topology(const Dataset& data, Requests& requests, const RefinementBudget& budget = {});

// report.md; plot_dir: where plots/<name>.svg would be (linked only when the file exists).
std::string render_report(const nlohmann::json& topology, const std::string& plot_dir = "");

}  // namespace memhier::analysis
