// How report.md writes a number (analysis/report/): sizes with their unit, intervals that say what
// they are, runs of equal values collapsed. Formatting only: every figure comes from topology.json.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis::report_format {

// A number without trailing noise: integers as integers, others with `digits` decimals.
std::string number(double v, int digits = 1);
// Bytes in the largest binary unit that is at least 1: "256 KiB", "240.6 KiB", "26.53 MiB", "64 B".
std::string bytes_short(double v);
// bytes_short with the exact count beside it when the short form rounds: "240.6 KiB (246336 B)".
std::string bytes_long(double v);
// An interval of bytes in one unit, with as many decimals as it takes to keep its ends apart (exact
// counts when rounding would merge them); closed: "[lo, hi]", else "[lo, hi)". lo == hi: the value.
std::string bytes_interval(double lo, double hi, bool closed);
// Per-set ways, runs collapsed: "4 ways in all 512 sets", "4 ways in sets 0–255, 2 in 256–511".
std::string ways_text(const nlohmann::json& ways, std::size_t max_runs = 8);
// Sets × ways: "1 set × 16 ways", "512 sets × 4 ways"; unequal sets: the sets and ways_text.
std::string sets_ways_text(const nlohmann::json& sets, const nlohmann::json& ways);
// A list as prose: strings unquoted, joined by ", "; empty: `empty`.
std::string list_text(const nlohmann::json& v, const std::string& empty = "none");
// Any JSON value for a table cell: strings as they are, booleans yes/no, numbers via number().
std::string plain(const nlohmann::json& v, int digits = 1);
// Natural order of names with numbers in them: revisit_4 < revisit_16 < revisit_256.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace memhier::analysis::report_format
