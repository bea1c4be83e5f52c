#include "bench/registry.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/bench_name.hpp"

namespace memhier {

std::vector<FamilySpec>& family_registry() {
  static std::vector<FamilySpec> r;
  return r;
}

namespace {
std::string& trace_dir_slot() {
  static std::string d;
  return d;
}
}  // namespace

std::uint64_t tlb_footprint_limit(Backend& be) {
  const WideLimits w = be.wide_limits();
  if (w.malloc_bytes) return w.malloc_bytes;  // whole-memory chases (64-bit pointers)
  const std::uint64_t half = be.figures().global_mem_bytes / 2;
  return std::min<std::uint64_t>(be.max_array_bytes(Path::global_cg), std::min<std::uint64_t>(half, 15ull << 30));
}

void set_trace_dir(const std::string& dir) { trace_dir_slot() = dir; }
const std::string& trace_dir() { return trace_dir_slot(); }

std::string write_bench_trace(const std::string& bench_name, const Trace& t) {
  if (trace_dir().empty()) return {};
  std::string file = sanitize_for_file(bench_name) + ".trace";
  write_trace(trace_dir() + "/" + file, t);
  return file;
}

}  // namespace memhier

namespace memhier {
namespace {
Plan& plan_slot() {
  static Plan p = Plan::full;
  return p;
}
}  // namespace
void set_plan(Plan p) { plan_slot() = p; }
Plan plan() { return plan_slot(); }
}  // namespace memhier

namespace memhier {
namespace {
std::map<std::string, std::vector<ExtraRequest>>& extras_slot() {
  static std::map<std::string, std::vector<ExtraRequest>> e;
  return e;
}
}  // namespace

void set_extra_requests(std::map<std::string, std::vector<ExtraRequest>> r) { extras_slot() = std::move(r); }

const std::vector<ExtraRequest>& extra_requests(const std::string& family) {
  static const std::vector<ExtraRequest> none;
  auto it = extras_slot().find(family);
  return it == extras_slot().end() ? none : it->second;
}

std::map<std::string, std::vector<ExtraRequest>> load_extra_requests(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open the requests file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!j.is_object() || j.value("format", "") != "memhier-requests/1")
    throw std::runtime_error(path + ": not a memhier-requests/1 file (see docs/formats.md)");
  std::map<std::string, std::vector<ExtraRequest>> out;
  for (auto& [family, list] : j.items()) {
    if (family == "format") continue;
    if (!list.is_array()) throw std::runtime_error(path + ": '" + family + "' must be a list");
    for (auto& item : list) {
      if (!item.is_object()) throw std::runtime_error(path + ": items of '" + family + "' must be objects");
      ExtraRequest r;
      for (auto& [k, v] : item.items()) {
        if (v.is_number_integer()) r.num[k] = v.get<std::int64_t>();
        else if (v.is_boolean()) r.num[k] = v.get<bool>() ? 1 : 0;
        else if (v.is_string()) r.str[k] = v.get<std::string>();
        else throw std::runtime_error(path + ": " + family + "." + k + " must be an integer or a string");
      }
      out[family].push_back(std::move(r));
    }
  }
  return out;
}
}  // namespace memhier
