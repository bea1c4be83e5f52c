#include "analysis/report/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace memhier::analysis::report_format {

namespace {

struct Unit {
  double factor;
  const char* name;
  int digits;
};

Unit unit_for(double v) {
  if (v >= 1073741824.0) return {1073741824.0, "GiB", 2};
  if (v >= 1048576.0) return {1048576.0, "MiB", 2};
  if (v >= 1024.0) return {1024.0, "KiB", 1};
  return {1.0, "B", 0};
}

bool integral(double v) { return std::fabs(v) < 1e15 && v == std::floor(v); }

// A value that is not a whole number of the unit never reads as one: "4.03 KiB", not "4.0 KiB".
std::string in_unit(double v, const Unit& u, int digits) {
  const double x = v / u.factor;
  if (integral(x)) return number(x, 0) + " " + u.name;
  std::string s = number(x, digits);
  for (int d = digits + 1; d <= digits + 2 && std::stod(s) == std::round(x); ++d) s = number(x, d);
  return s + " " + u.name;
}

}  // namespace

std::string number(double v, int digits) {
  char b[48];
  if (integral(v)) std::snprintf(b, sizeof b, "%.0f", v);
  else std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string bytes_short(double v) { return in_unit(v, unit_for(v), unit_for(v).digits); }

std::string bytes_long(double v) {
  const Unit u = unit_for(v);
  if (u.factor == 1.0 || integral(v / u.factor)) return bytes_short(v);
  return bytes_short(v) + " (" + number(v, 0) + " B)";
}

std::string bytes_interval(double lo, double hi, bool closed) {
  if (lo == hi) return bytes_long(lo);
  const Unit u = unit_for(std::max(lo, hi));
  std::string a, b;
  for (int d = u.digits; d <= u.digits + 2; ++d) {
    a = in_unit(lo, u, d);
    b = in_unit(hi, u, d);
    if (a != b) break;
  }
  if (a == b) {  // rounding would merge the ends: exact counts
    a = number(lo, 0) + " B";
    b = number(hi, 0) + " B";
  }
  return "[" + a + ", " + b + (closed ? "]" : ")");
}

std::string ways_text(const nlohmann::json& ways, std::size_t max_runs) {
  if (!ways.is_array()) return plain(ways);
  if (ways.empty()) return "no sets";
  struct Run {
    std::string v;
    std::size_t from, to;
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; i < ways.size(); ++i) {
    const std::string v = plain(ways[i]);
    if (!runs.empty() && runs.back().v == v) runs.back().to = i;
    else runs.push_back({v, i, i});
  }
  if (runs.size() == 1)
    return ways.size() == 1 ? runs[0].v + " ways (one set)"
                            : runs[0].v + " ways in all " + std::to_string(ways.size()) + " sets";
  std::string s;
  for (std::size_t r = 0; r < runs.size() && r < max_runs; ++r) {
    const Run& x = runs[r];
    const std::string where = x.from == x.to ? "set " + std::to_string(x.from)
                                             : (r == 0 ? "sets " : "") + std::to_string(x.from) + "–" + std::to_string(x.to);
    s += (r ? ", " : "") + x.v + (r == 0 ? " ways in " : " in ") + where;
  }
  if (runs.size() > max_runs)
    s += ", … (" + std::to_string(runs.size()) + " runs over " + std::to_string(ways.size()) +
         " sets; every set in topology.json)";
  return s;
}

std::string sets_ways_text(const nlohmann::json& sets, const nlohmann::json& ways) {
  if (sets.is_null() && ways.is_null()) return "—";
  const std::string ns = sets.is_number() ? plain(sets) : std::to_string(ways.is_array() ? ways.size() : 0);
  const std::string set_word = ns == "1" ? " set" : " sets";
  if (!ways.is_array() || ways.empty()) return ns + set_word + ", ways not determined";
  bool equal = true;
  for (const auto& w : ways) equal = equal && w == ways[0];
  if (equal && (!sets.is_number() || sets.get<double>() == static_cast<double>(ways.size())))
    return ns + set_word + " × " + plain(ways[0]) + " ways";
  return ns + set_word + ": " + ways_text(ways);
}

std::string list_text(const nlohmann::json& v, const std::string& empty) {
  if (!v.is_array()) return plain(v);
  if (v.empty()) return empty;
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + plain(x);
  return s;
}

std::string plain(const nlohmann::json& v, int digits) {
  if (v.is_null()) return "—";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return number(v.get<double>(), digits);
  if (v.is_array()) return list_text(v, "none");
  return v.dump();
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      const double x = std::stod(a.substr(i, i2 - i)), y = std::stod(b.substr(j, j2 - j));
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace memhier::analysis::report_format
