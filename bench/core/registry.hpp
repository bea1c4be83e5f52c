// Family registration. Each family file defines a static FamilyRegistrar; main.cpp selects the
// backend (--device) and then calls every family's register function, which registers that
// family's device-derived sweep with Google Benchmark. Families that run their own kernels
// (throughput, bank conflicts, ...) say needs_cuda and are skipped on the simulated device.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/backends/backend.hpp"
#include "common/requests_file.hpp"

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

// Largest footprint of the tlb and latency_spectrum families: the whole-memory limit of the
// backend (free memory less a margin, Backend::wide_limits), or, where those chases are not
// offered, half the device memory, at most 15 GiB (4-byte element indices address 16 GiB).
std::uint64_t tlb_footprint_limit(Backend& be);

// Where traces go (absolute directory), "" when traces are off. Set by main.
void set_trace_dir(const std::string& dir);
const std::string& trace_dir();
// Writes a trace named after the benchmark into trace_dir(); no-op when traces are off.
// Returns the file name written ("" when none).
std::string write_bench_trace(const std::string& bench_name, const Trace& t);

}  // namespace memhier

namespace memhier {
// The plan size: `full` (default) is the characterization plan; `quick` is a small plan of every
// family for smoke tests (its sweeps are coarser: its figures are not the full plan's);
// `check` is the regression check's plan (scripts/regression_check.sh): the full plan's benchmarks
// of the figures a check gates, exactly as the full plan registers them (in_check_plan below);
// `none` registers no plan sweep, only the extra requests of --memhier_extra.
enum class Plan { none, quick, check, full };
void set_plan(Plan p);
Plan plan();
// Whether the full plan's benchmark `name` belongs to the check plan: the L1 (global_ca at carveout
// 0, its access sequences), the constant caches, shared memory (latency, banks, bandwidth), the
// latency spectrum (DRAM latency), DRAM read bandwidth, L1 bandwidth, warp access, the clock
// overhead. A family registers as for the full plan and register_guarded keeps only these.
bool in_check_plan(const std::string& name);

// Extra requests (--memhier_extra, format memhier-requests/1 in docs/formats.md): the list under
// `family` ("pchase", "tlb"), or an empty list. Each item is a flat object of parameters.
using ExtraRequest = RequestItem;
void set_extra_requests(std::map<std::string, std::vector<ExtraRequest>> r);
// Also marks the family's requests as taken.
const std::vector<ExtraRequest>& extra_requests(const std::string& family);
// Families of the requests file that no registered family took (main refuses such a file).
std::vector<std::string> untaken_extra_families();
// Parses and checks a requests file (common/requests_file.hpp); throws std::runtime_error with
// one clear line when it is not valid.
std::map<std::string, std::vector<ExtraRequest>> load_extra_requests(const std::string& path);
}  // namespace memhier
