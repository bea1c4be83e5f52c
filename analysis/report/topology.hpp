// The topology report (DESIGN.md "Topology report", schema memhier-topology/2, docs/formats.md
// section topology): built from a Dataset, rendered as report.md.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/core/dataset.hpp"
#include "analysis/core/refinement.hpp"
#include "analysis/core/requests.hpp"
#include "analysis/report/topology_schema.hpp"  // kTopologySchema, upgrade_topology

namespace memhier::analysis {

// Infers everything; the chases still needed go to `requests`, this round's (within `budget`) to
// requests.selected. sections_cache (memhier-infer --sections-cache): a file that holds the early
// sections (analysis/report/early_sections.hpp): reused where its fingerprint matches the data,
// else computed and written there; *cache_note (optional) says which.
nlohmann::json build_topology(const Dataset& data, Requests& requests, const RefinementBudget& budget = {},
                              const std::string& sections_cache = "", std::string* cache_note = nullptr);

// report.md (from a /1 or /2 document); plot_dir: where plots/<name>.svg would be (linked only when the file exists).
std::string render_report(const nlohmann::json& topology, const std::string& plot_dir = "");

}  // namespace memhier::analysis
