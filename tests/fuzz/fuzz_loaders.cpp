// libFuzzer target over everything memhier reads from a file (docs/methodology.md, reliability):
// the first byte picks the reader, the rest is the file's text.
//   0 Google Benchmark JSON (bench.json) -> the checks of analysis/core/validate -> the whole analyzer
//     (build_topology, render_report, the refinement requests)
//   1 trace file -> the analyzer on a P-chase entry of that trace
//   2 sim config -> a short chase on every path it maps
//   3 requests file
//   4 topology report -> memhier-compare's loader and comparison, every rendering
// A reader may refuse its input with std::runtime_error (one line naming the file); any other
// exception, a crash, a leak, undefined behaviour or a hang is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "analysis/gate/compare.hpp"
#include "analysis/core/dataset.hpp"
#include "analysis/report/topology.hpp"
#include "analysis/core/validate.hpp"
#include "common/bench_json.hpp"
#include "common/chase.hpp"
#include "common/requests_file.hpp"
#include "common/trace.hpp"
#include "sim/config.hpp"
#include "sim/device.hpp"

using namespace memhier;

namespace {

void analyze(std::vector<BenchRun> runs, const std::vector<std::pair<std::string, Trace>>& traces = {}) {
  for (auto& r : runs) r.context.erase("trace_dir");  // traces come from the input only, never the disk
  std::vector<std::string> left;
  analysis::screen_runs(runs, true, &left);
  auto data = analysis::Dataset::from_runs(std::move(runs));
  for (const auto& [name, t] : traces) data.add_trace(name, t);
  analysis::Requests req;
  nlohmann::json topo = analysis::build_topology(data, req);
  (void)analysis::count_determined_values(topo);
  (void)analysis::render_report(topo, "");
  (void)req.to_json().dump();
}

void fuzz_bench(const std::string& text) { analyze({parse_bench_json(text, "fuzz.json")}); }

void fuzz_trace(const std::string& text) {
  std::istringstream in(text);
  Trace t = parse_trace(in, "fuzz.trace");
  auto name = BenchName::parse(t.benchmark);
  if (!name || name->family() != "pchase") return;
  BenchRun run;
  run.path = "fuzz.json";
  run.context = {{"memhier_version", "fuzz"}, {"device_backend", "sim:fuzz"}, {"gpu_name", "fuzz"}};
  BenchEntry e;
  e.name = e.run_name = t.benchmark;
  e.params = *name;
  e.run_type = "iteration";
  e.iterations = 1;
  e.counters = {{"latency_cycles", 30}, {"accesses", static_cast<double>(t.index.size() + t.hist.total())}};
  run.entries.push_back(e);
  analyze({run}, {{t.benchmark, t}});
}

void fuzz_sim_config(const std::string& text) {
  sim::Config cfg = sim::parse_config(text, "fuzz.json");
  sim::SimDevice dev(cfg);
  for (const auto& p : sim::known_paths()) {
    const int id = dev.path_id(p);
    if (id < 0) continue;
    const std::uint64_t bytes = std::min<std::uint64_t>(4096, cfg.paths.at(p).max_array_bytes / 4 * 4);
    if (bytes < 64) continue;
    std::vector<std::uint32_t> chain = uniform_chain(bytes, 32);
    sim::ChaseSpec s;
    s.path = id;
    s.chain = &chain;
    s.iters = 64;
    s.max_records = 64;
    s.hist_bins = 64;
    (void)sim::run_chase(dev, s);
  }
}

void fuzz_requests(const std::string& text) { (void)parse_requests(text, "fuzz.json"); }

// memhier-compare reads archives from disk: the topology is written beside a fixed bench.json.
void fuzz_topology(const std::string& text) {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::string d = std::string(t ? t : "/tmp") + "/memhier-fuzz-" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    static std::string to_remove = d;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(to_remove, ec);
    });
    std::ofstream(d + "/bench.json") << R"({"context": {"memhier_version": "fuzz", "device_backend": "sim:f", )"
                                     << R"("gpu_name": "f"}, "benchmarks": [{"name": "pchase/path:global_cg/mode:count/)"
                                     << R"(bytes:4096/stride:32", "latency_cycles": 30, "accesses": 128}]})";
    return d;
  }();
  std::ofstream(dir + "/topology.json", std::ios::trunc) << text;
  analysis::CompareInput a = analysis::load_compare_input(dir);
  analysis::CompareInput b = a;
  analysis::CompareOptions opt;
  auto r = analysis::compare_runs(a, b, opt);
  (void)analysis::render_console(r, true);
  (void)analysis::render_markdown(r, true);
  (void)analysis::render_json(r).dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0: fuzz_bench(text); break;
      case 1: fuzz_trace(text); break;
      case 2: fuzz_sim_config(text); break;
      case 3: fuzz_requests(text); break;
      case 4: fuzz_topology(text); break;
    }
  } catch (const std::runtime_error&) {
    // a clear refusal: the reader's contract
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_loaders: reader %d threw %s: %s (not a one-line refusal)\n", data[0] % 5,
                 typeid(e).name(), e.what());
    std::abort();
  }
  return 0;
}
