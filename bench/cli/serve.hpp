// --memhier_serve=DIR: after the plan, memhier-bench stays and runs the analyzer's refinement
// rounds in the same process (no CUDA start-up per round), and, while it waits for the analyzer,
// the plan's families deferred with --memhier_defer (those whose data no request depends on).
// The caller (scripts/characterize.sh) and memhier-bench meet in files (docs/formats.md, serve):
//   DIR/requests-N.json   the N-th round's requests (N = 1, 2, ...; renamed into place whole)
//   <out dir>/refine-N.json  that round's output, renamed into place when the round has finished
//   DIR/stop              no more rounds: run what is left of the deferred families, merge their
//                         runs into the plan's JSON (renamed into place), exit
// Rounds come first: the deferred families run a chunk of benchmarks at a time (about 0.25 s) while
// no requests file is waiting, so a round waits for one chunk at most. The GPU is
// thus busy while the analyzer works, and the whole characterization takes about the measuring
// time plus one analysis (docs/methodology.md, wall time).
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"

namespace memhier {

struct ServeHooks {
  // Runs the registered benchmarks that `spec` (a Google Benchmark filter) selects into `target`
  // (JSON, renamed into place when complete), `context` added to its context; the runs' count.
  // `quiet`: no progress lines (the deferred families' chunks: serve() says when a family is done).
  std::function<std::size_t(const std::string& spec, const std::string& target,
                            const std::map<std::string, std::string>& context, bool quiet)>
      run;
  // Clears every registration and registers the plan `p` of the families named (every family
  // the plan has when `only` is empty).
  std::function<void(Plan p, const std::vector<std::string>& only)> register_families;
};

struct ServeConfig {
  std::filesystem::path dir;        // where requests-N.json and stop appear
  std::filesystem::path out_dir;    // where refine-N.json are written
  std::filesystem::path plan_json;  // the plan's output, into which the deferred runs are merged
  Plan plan = Plan::full;           // the plan of the deferred families
  std::vector<std::string> deferred;
  bool progress = false;  // one line on stderr as each deferred family is done
  double idle_seconds = 600;  // with nothing to do and no file for this long: an error
};

// The serve loop; returns the exit status (0, 2 on an error, 3 when the device became unusable).
int serve(const ServeConfig& c, const ServeHooks& h);

// "-^(a|b)/": the filter that leaves the families out (a plan run before serving them).
std::string deferral_filter(const std::vector<std::string>& families);

// Appends the benchmarks of `parts` (Google Benchmark JSON texts) to the JSON file `path` and sets
// `context` there; the file is replaced whole. Throws std::runtime_error.
void merge_benchmark_json(const std::filesystem::path& path, const std::vector<std::string>& parts,
                          const std::map<std::string, std::string>& context);

}  // namespace memhier
