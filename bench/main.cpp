// memhier-bench: Google Benchmark over the memory-hierarchy families. Our own flags:
//   --device=cuda:N | sim:<config.json>   (default cuda:0)
//   --plan=full | quick | none            (default full; none: only --memhier_extra)
//   --memhier_extra=requests.json         extra chases (refinement pass, docs/formats.md)
//   --memhier_trace_dir=DIR               (default: traces/ beside --benchmark_out)
// Every Google Benchmark flag works as usual.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/backend_cuda.hpp"
#include "bench/backend_sim.hpp"
#include "bench/progress.hpp"
#include "bench/registry.hpp"
#include "bench/wide_family.hpp"

namespace fs = std::filesystem;
using namespace memhier;

namespace {

const char* kUsage =
    "usage: memhier-bench [--device=cuda:N|sim:<config.json>] [--plan=full|quick|none]\n"
    "                     [--memhier_extra=requests.json] [--memhier_trace_dir=DIR]\n"
    "                     [Google Benchmark flags]\n"
    "  --device            where to run: a CUDA device (default cuda:0) or the simulated device\n"
    "                      described by a config (sim/configs/*.json)\n"
    "  --plan              full: the characterization plan; quick: a small plan of every family;\n"
    "                      none: only the --memhier_extra requests\n"
    "  --memhier_extra     also run the chases a requests file asks for (memhier-infer\n"
    "                      --next-requests writes one; format in docs/formats.md)\n"
    "  --memhier_progress=N  one progress line per family on stderr instead of the console\n"
    "                      table (N: benchmarks expected, from --benchmark_list_tests; 0 if unknown)\n"
    "  --memhier_trace_dir where fine-grained traces go (default: traces/ beside --benchmark_out;\n"
    "                      none without either)\n"
    "Google Benchmark flags: --benchmark_filter, --benchmark_out, --benchmark_out_format,\n"
    "  --benchmark_format, --benchmark_repetitions, --benchmark_list_tests, ...\n";

struct Options {
  std::string device = "cuda:0";
  std::string plan = "full";
  std::string trace_dir;
  std::string extra;
  std::string progress;  // "" (console output) or the number of benchmarks to expect
  std::string out;
  std::string out_format = "json";
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "memhier-bench: %s\n", msg.c_str());
  std::exit(2);
}

// Takes our flags out of argv (so Google Benchmark does not see them) and checks the values of the
// Google Benchmark flags whose bad values it would not explain in one line.
Options take_options(int* argc, char** argv) {
  Options o;
  std::vector<char*> keep{argv[0]};
  auto value_of = [&](int& i, const std::string& a, const std::string& flag, std::string* out) {
    if (a == flag) {
      if (i + 1 >= *argc) die(flag + " needs a value; see --help");
      *out = argv[++i];
      return true;
    }
    if (a.rfind(flag + "=", 0) == 0) {
      *out = a.substr(flag.size() + 1);
      return true;
    }
    return false;
  };
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i], v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (value_of(i, a, "--device", &o.device) || value_of(i, a, "--plan", &o.plan) ||
        value_of(i, a, "--memhier_trace_dir", &o.trace_dir) || value_of(i, a, "--memhier_extra", &o.extra) ||
        value_of(i, a, "--memhier_progress", &o.progress))
      continue;
    if (a.rfind("--benchmark_format=", 0) == 0 || a.rfind("--benchmark_out_format=", 0) == 0) {
      v = a.substr(a.find('=') + 1);
      if (v != "console" && v != "json" && v != "csv")
        die("unknown value '" + v + "' for " + a.substr(0, a.find('=')) + ": use console, json or csv");
      if (a.rfind("--benchmark_out_format=", 0) == 0) o.out_format = v;
    }
    if (a.rfind("--benchmark_out=", 0) == 0) o.out = a.substr(std::strlen("--benchmark_out="));
    if (a.rfind("--benchmark_filter=", 0) == 0) set_wide_filter(a.substr(std::strlen("--benchmark_filter=")));
    keep.push_back(argv[i]);
  }
  for (std::size_t i = 0; i < keep.size(); ++i) argv[i] = keep[i];
  *argc = static_cast<int>(keep.size());
  if (o.plan != "full" && o.plan != "quick" && o.plan != "none")
    die("unknown plan '" + o.plan + "': use full, quick or none");
  if (o.plan == "none" && o.extra.empty()) die("--plan=none runs only --memhier_extra requests; give one");
  return o;
}

std::unique_ptr<Backend> make_backend(const std::string& device) {
  if (device.rfind("cuda:", 0) == 0) {
    std::string idx = device.substr(5);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
      die("bad device '" + device + "': use cuda:N with N a device index, e.g. cuda:0");
    try {
      return make_cuda_backend(std::stoi(idx));
    } catch (const std::exception& e) {
      die(std::string(e.what()) +
          ". Run on a machine with an NVIDIA GPU, or simulate one with --device sim:<config.json> "
          "(configs in sim/configs/)");
    }
  }
  if (device.rfind("sim:", 0) == 0) {
    std::string cfg = device.substr(4);
    if (cfg.empty()) die("bad device '" + device + "': use sim:<config.json>");
    try {
      return make_sim_backend(cfg);
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  die("unknown device '" + device + "': use cuda:N or sim:<config.json>");
}

std::string relative_to(const fs::path& target, const fs::path& base_dir) {
  std::error_code ec;
  auto rel = fs::relative(target, base_dir, ec);
  return ec ? fs::absolute(target).string() : rel.string();
}

// The plan's wall time goes into the context of the JSON file after the run.
void record_wall_time(const std::string& out, double seconds, const std::map<std::string, std::string>& extra) {
  std::ifstream in(out);
  if (!in) return;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (...) {
    return;
  }
  in.close();
  j["context"]["plan_wall_seconds"] = seconds;
  for (const auto& [k, v] : extra) j["context"][k] = v;
  std::ofstream o(out);
  o << j.dump() << "\n";  // compact: an archive stays small (tools read it, people read report.md)
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  Options o = take_options(&argc, argv);
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i)
    die(std::string("unknown flag '") + argv[i] + "'; see --help");

  set_plan(o.plan == "quick" ? Plan::quick : o.plan == "none" ? Plan::none : Plan::full);
  if (!o.extra.empty()) {
    try {
      set_extra_requests(load_extra_requests(o.extra));
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  set_backend(make_backend(o.device));
  Backend& be = backend();

  std::string trace_dir = o.trace_dir;
  if (trace_dir.empty() && !o.out.empty())
    trace_dir = (fs::absolute(o.out).parent_path() / "traces").string();
  std::string trace_rel;
  if (!trace_dir.empty()) {
    std::error_code ec;
    fs::create_directories(trace_dir, ec);
    if (ec) die("cannot create trace directory " + trace_dir + ": " + ec.message());
    trace_dir = fs::absolute(trace_dir).string();
    set_trace_dir(trace_dir);
    fs::path json_dir = o.out.empty() ? fs::current_path() : fs::absolute(o.out).parent_path();
    trace_rel = relative_to(trace_dir, json_dir);
  }

  benchmark::AddCustomContext("memhier_version", MEMHIER_VERSION);
  benchmark::AddCustomContext("memhier_plan", o.plan);
  benchmark::AddCustomContext("trace_dir", trace_rel);
  for (const auto& [k, v] : be.context()) benchmark::AddCustomContext(k, v);
  // Limits of this backend, so that the analyzer asks for no chase the device cannot run.
  for (Path p : {Path::global_ca, Path::global_cg, Path::ldg, Path::texture, Path::constant, Path::shared})
    if (be.supports(p))
      benchmark::AddCustomContext(std::string("chase_limit_bytes_") + path_name(p), std::to_string(be.max_array_bytes(p)));
  benchmark::AddCustomContext("tlb_limit_bytes", std::to_string(tlb_footprint_limit(be)));
  if (const WideLimits wl = be.wide_limits(); wl.vmm_bytes) {  // whole-memory chases on VMM chunks
    benchmark::AddCustomContext("tlb_limit_bytes_vmm", std::to_string(wl.vmm_bytes));
    benchmark::AddCustomContext("vmm_granularity_bytes", std::to_string(wl.vmm_granularity));
  }

  const bool is_cuda = be.name() == "cuda";
  try {
    for (const auto& f : family_registry()) {
      if (f.needs_cuda && !is_cuda) continue;
      // --plan=none: only the families that take --memhier_extra requests (the P-chase kind)
      if (f.needs_cuda && plan() == Plan::none) continue;
      f.register_fn(be);
    }
  } catch (const std::exception& e) {
    die(std::string("while registering the plan: ") + e.what());
  }

  if (!o.progress.empty()) {
    ProgressReporter progress(std::atol(o.progress.c_str()));
    benchmark::RunSpecifiedBenchmarks(&progress);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::string> end;
  try {
    end = be.end_context();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memhier-bench: end-of-run check failed: %s\n", e.what());
  }
  if (!o.out.empty() && o.out_format == "json") record_wall_time(o.out, wall, end);
  if (end.count("sm_clock_throttled") && end["sm_clock_throttled"] == "true")
    std::fprintf(stderr, "memhier-bench: warning: the SM clock was below 90%% of nominal (throttling?)\n");
  std::fprintf(stderr, "memhier-bench: plan finished in %.1f s\n", wall);
  return 0;
}
