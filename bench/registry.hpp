// Family registration. Each family file defines a static FamilyRegistrar; main.cpp selects the
// backend (--device) and then calls every family's register function, which registers that
// family's device-derived sweep with Google Benchmark. Families that run their own kernels
// (throughput, bank conflicts, ...) say needs_cuda and are skipped on the simulated device.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bench/backend.hpp"

namespace memhier {

struct FamilySpec {
  std::string name;
  bool needs_cuda;
  std::function<void(Backend&)> register_fn;
};

std::vector<FamilySpec>& family_registry();

struct FamilyRegistrar {
  FamilyRegistrar(std::string name, bool needs_cuda, std::function<void(Backend&)> fn) {
    family_registry().push_back({std::move(name), needs_cuda, std::move(fn)});
  }
};

// Where traces go (absolute directory), "" when traces are off. Set by main.
void set_trace_dir(const std::string& dir);
const std::string& trace_dir();
// Writes a trace named after the benchmark into trace_dir(); no-op when traces are off.
// Returns the file name written ("" when none).
std::string write_bench_trace(const std::string& bench_name, const Trace& t);

}  // namespace memhier

namespace memhier {
// The plan size: `full` (default) is the characterization plan; `quick` is a small plan of every
// family for smoke tests and regression checks (--plan=quick).
enum class Plan { quick, full };
void set_plan(Plan p);
Plan plan();
}  // namespace memhier
