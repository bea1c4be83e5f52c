// The rows of one cache's screen in report.md (analysis/report/markdown.cpp): each labelled with
// what its number is — capacity, where misses begin (onset), the 50 % point of the miss-rate curve,
// line, sets, ways (runs collapsed), ...; a TLB's rows are entries, reach per entry, total reach,
// page, sets × ways, miss penalty. Values and confidences come from topology.json as they are.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace memhier::analysis::report_rows {

struct Row {
  std::string label, value, confidence;
};

bool is_tlb(const std::string& name);
// The determined rows of cache `name`, in datasheet order.
std::vector<Row> rows(const std::string& name, const nlohmann::json& c);
// One summary-table cell: "256 KiB", "31.58 MiB (50 % point)", "≥ 64 KiB", "33", "—".
std::string summary_cell(const nlohmann::json& c, const std::string& key);
// The provenance's reason for a null value ("no reason stated" when it has none).
std::string reason_of(const nlohmann::json& c, const std::string& key);
// The provenance's confidence as "0.90", or `none`.
std::string confidence_or(const nlohmann::json& c, const std::string& key, const std::string& none);
// Fields without a value, grouped by reason: reason -> labels; `shared` ("key\nreason") left out.
std::map<std::string, std::vector<std::string>> undetermined(const std::string& name, const nlohmann::json& c,
                                                              const std::set<std::string>& shared);
// ("key\nreason") null in every cache alike: said once above the caches.
std::set<std::string> shared_reasons(const nlohmann::json& caches);
// Nothing determined but bookkeeping (per_sm): no table of its own.
bool empty_cache(const std::string& name, const nlohmann::json& c);
// The label of a field key.
std::string label_of(const std::string& key);

}  // namespace memhier::analysis::report_rows
