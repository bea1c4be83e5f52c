// memhier-compare: two runs of one device, benchmark by benchmark and field by field.
#include <set>

#include "analysis/gate/compare.hpp"
#include "analysis/gate/compare_detail.hpp"

namespace memhier::analysis {

using namespace compare_detail;

namespace {

// The device (the same GPU model on the same backend: a simulated device is never a real one) and
// the context keys that differ.
void compare_context(const BenchRun& A, const BenchRun& B, CompareResult& r) {
  for (const char* k : {"device_backend", "gpu_name", "compute_capability"})
    if (A.context_or(k, "?") != B.context_or(k, "?")) r.identity_keys_differing.push_back(k);
  r.same_device = r.identity_keys_differing.empty();
  for (const char* k : {"driver_version", "cuda_driver_api", "cuda_runtime", "sm_clock_khz", "mem_clock_khz",
                        "mem_bus_width_bits", "sm_count", "l2_cache_bytes", "smem_per_sm_bytes",
                        "smem_per_block_optin_bytes", "global_mem_bytes", "theoretical_dram_bytes_per_second",
                        "memhier_version", "memhier_plan", "host_name", "library_build_type"}) {
    const std::string va = A.context_or(k, "(absent)"), vb = B.context_or(k, "(absent)");
    if (va != vb) r.context_diffs.push_back({k, va, vb});
  }
}

// A benchmark measured in one run only.
CompareRow one_sided_row(const std::string& name, bool in_base) {
  CompareRow row;
  row.kind = "counter";
  row.name = name;
  row.verdict = Verdict::changed;
  row.test = "exact";
  row.note = in_base ? "benchmark only in base" : "benchmark only in new";
  return row;
}

}  // namespace

CompareResult compare_runs(const CompareInput& base, const CompareInput& now, const CompareOptions& o) {
  CompareResult r;
  r.base_label = base.label;
  r.now_label = now.label;
  r.options = o;
  const BenchRun &A = base.bench, &B = now.bench;
  compare_context(A, B, r);
  if (!r.same_device && !o.ignore_device) return r;
  if (!r.same_device) r.notes.push_back("different devices compared on request (--ignore-device)");

  auto sa = collect(A), sb = collect(B);
  std::set<std::string> names;
  for (auto& [k, v] : sa) names.insert(k);
  for (auto& [k, v] : sb) names.insert(k);
  for (const auto& name : names) {
    const bool ina = sa.count(name) && (sa[name].present || !sa[name].error.empty());
    const bool inb = sb.count(name) && (sb[name].present || !sb[name].error.empty());
    if (ina != inb) {
      (ina ? r.only_base : r.only_now)++;
      if (!o.common_only) r.rows.push_back(one_sided_row(name, ina));
      continue;
    }
    compare_benchmark(name, sa[name], sb[name], o, r.rows);
  }
  if (o.common_only && (r.only_base || r.only_now))
    r.notes.push_back(std::to_string(r.only_base) + " benchmark(s) only in base and " + std::to_string(r.only_now) +
                      " only in new were not compared (--common-only)");

  if (base.topology && now.topology)
    compare_topology(*base.topology, *now.topology, o, r.rows);
  else if (base.topology || now.topology)
    r.notes.push_back(std::string("topology.json only in ") + (base.topology ? "base" : "new") + ": not compared");
  return r;
}

}  // namespace memhier::analysis
