#include "bench/core/registry.hpp"

#include <algorithm>
#include <fstream>
#include <set>
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

// About 2 s of an H200's GPU time (the families' wall times of a full run, 2026-12-02): the
// sweeps of these figures are cheap, the L2's and the TLBs' (whole-memory chases, 31 MiB
// footprints) are not, and are left to the full characterization.
bool in_check_plan(const std::string& name) {
  const auto n = BenchName::parse(name);
  if (!n) return false;
  const std::string fam = n->family();
  static const std::set<std::string> whole = {"clock_overhead", "latency_spectrum", "smem_bank_conflict",
                                              "smem_throughput", "l1_throughput",    "warp_access"};
  if (whole.count(fam)) return true;
  const std::string path = n->get_or("path", ""), carveout = n->get_or("carveout", "0");
  if (fam == "pchase") return (path == "global_ca" && carveout == "0") || path == "constant" || path == "shared";
  if (fam == "cache_sequences") return path == "global_ca" && carveout == "0";
  if (fam == "gmem_throughput") return n->get_or("kind", "") == "read";
  return false;
}
}  // namespace memhier

namespace memhier {
namespace {
std::map<std::string, std::vector<ExtraRequest>>& extras_slot() {
  static std::map<std::string, std::vector<ExtraRequest>> e;
  return e;
}
std::set<std::string>& taken_slot() {
  static std::set<std::string> t;
  return t;
}
}  // namespace

void set_extra_requests(std::map<std::string, std::vector<ExtraRequest>> r) {
  extras_slot() = std::move(r);
  taken_slot().clear();  // a new requests file (--memhier_serve runs one per round)
}

std::vector<std::string> untaken_extra_families() {
  std::vector<std::string> out;
  for (const auto& [family, list] : extras_slot())
    if (!list.empty() && !taken_slot().count(family)) out.push_back(family);
  return out;
}

const std::vector<ExtraRequest>& extra_requests(const std::string& family) {
  static const std::vector<ExtraRequest> none;
  taken_slot().insert(family);
  auto it = extras_slot().find(family);
  return it == extras_slot().end() ? none : it->second;
}

std::map<std::string, std::vector<ExtraRequest>> load_extra_requests(const std::string& path) {
  return load_requests(path);
}
}  // namespace memhier
