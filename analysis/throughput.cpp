#include "analysis/throughput.hpp"

namespace memhier::analysis {

void add_throughput_sections(const std::vector<BenchRun>&, nlohmann::json&) {}

std::string render_throughput_markdown(const nlohmann::json&) { return {}; }

}  // namespace memhier::analysis
