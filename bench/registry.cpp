#include "bench/registry.hpp"

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
