// memhier-bench: Google Benchmark over the memory-hierarchy families. Our own flags:
//   --device=cuda:N | sim:<config.json>   (default cuda:0)
//   --plan=full | quick | none            (default full; none: only --memhier_extra)
//   --memhier_extra=requests.json         extra chases (refinement pass, docs/formats.md)
//   --memhier_trace_dir=DIR               (default: traces/ beside --benchmark_out)
//   --memhier_budget_s=S                  per-benchmark time budget (default 60)
//   --memhier_serve=DIR [--memhier_defer=F,G]  stay after the plan for refinement rounds
//                                         (bench/cli/serve.hpp), running families F, G meanwhile
// Every Google Benchmark flag works as usual; their values are checked first (bench/cli/bench_flags.hpp),
// --benchmark_out is written atomically (bench/cli/output_file.hpp), CSV works with every family
// (bench/cli/csv_reporter.hpp), and every benchmark runs guarded (bench/core/guard.hpp).
// Exit status: 0 the plan ran (failed benchmarks are in the output with their reasons), 2 bad
// input, 3 the device became unusable during the run (a sticky error; later benchmarks not run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/backends/backend_cuda.hpp"
#include "bench/backends/backend_sim.hpp"
#include "bench/cli/bench_flags.hpp"
#include "bench/cli/conditions.hpp"
#include "bench/cli/csv_reporter.hpp"
#include "bench/core/guard.hpp"
#include "bench/cli/output_file.hpp"
#include "bench/cli/progress.hpp"
#include "bench/core/registry.hpp"
#include "bench/cli/serve.hpp"
#include "common/bench_json.hpp"
#include "bench/wide/wide_family.hpp"
#include "runtime/device_info.hpp"
#include "runtime/nvml.hpp"

namespace fs = std::filesystem;
using namespace memhier;

namespace {

const char* kUsage =
    "usage: memhier-bench [--device=cuda:N|sim:<config.json>|list] [--plan=full|quick|check|none]\n"
    "                     [--memhier_extra=requests.json] [--memhier_trace_dir=DIR]\n"
    "                     [Google Benchmark flags]\n"
    "  --device            where to run: a CUDA device (default cuda:0) or the simulated device\n"
    "                      described by a config (sim/configs/*.json); list: print the CUDA\n"
    "                      devices of this host (index, name, architecture, SMs, memory, L2,\n"
    "                      driver, archive folder) and exit\n"
    "  --plan              full: the characterization plan; quick: a small plan of every family;\n"
    "                      check: the regression check's part of the full plan (the same\n"
    "                      benchmarks; scripts/regression_check.sh); none: only the --memhier_extra\n"
    "                      requests\n"
    "  --memhier_extra     also run the chases a requests file asks for (memhier-infer\n"
    "                      --next-requests writes one; format in docs/formats.md)\n"
    "  --memhier_progress=N  one progress line per family on stderr instead of the console\n"
    "                      table (N: benchmarks expected, from --benchmark_list_tests; 0 if unknown;\n"
    "                      auto: counted from the registered names that --benchmark_filter matches)\n"
    "  --memhier_trace_dir where fine-grained traces go (default: traces/ beside --benchmark_out;\n"
    "                      none without either)\n"
    "  --memhier_budget_s=S  per-benchmark time budget in seconds (default 60): a benchmark\n"
    "                      predicted to take longer is refused, one that runs longer is stopped\n"
    "                      or discarded; both are marked failed with the reason\n"
    "  --memhier_serve=DIR after the plan, run each DIR/requests-N.json (N = 1, 2, ...) as it\n"
    "                      appears into refine-N.json beside --benchmark_out, until DIR/stop\n"
    "                      appears (scripts/characterize.sh; docs/formats.md, serve)\n"
    "  --memhier_defer=F,G with --memhier_serve: the plan's families F, G run while no requests\n"
    "                      file waits, their runs merged into --benchmark_out at the end\n"
    "  --memhier_skip=F,G  families F, G are not registered (characterize.sh --all measures the\n"
    "                      host and peer families of every GPU first, one GPU at a time, then the\n"
    "                      rest at once)\n"
    "Google Benchmark flags: --benchmark_filter, --benchmark_out, --benchmark_out_format,\n"
    "  --benchmark_format, --benchmark_repetitions, --benchmark_list_tests, ...\n";

struct Options {
  std::string device = "cuda:0";
  std::string plan = "full";
  std::string trace_dir;
  std::string extra;
  std::string progress;  // "" (console output), the number of benchmarks to expect, or "auto"
  std::string filter;    // --benchmark_filter's value ("" when not given)
  std::string out;
  std::string out_format = "json";
  std::string format = "console";
  std::string budget;
  std::string serve;               // --memhier_serve directory ("" when not serving)
  std::vector<std::string> defer;  // --memhier_defer families
  std::vector<std::string> skip;   // --memhier_skip families
  bool list_tests = false;
  std::string temp;  // where Google Benchmark writes --benchmark_out until the run has finished
  std::map<std::string, std::string> user_context;  // --benchmark_context pairs
};

[[noreturn]] void die(const std::string& msg) {
  abandon_atomic_output();
  std::fprintf(stderr, "memhier-bench: %s\n", msg.c_str());
  std::exit(2);
}

std::string env_or(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return v ? std::string(v) : fallback;
}

void check_known_families(const std::vector<std::string>& names, const std::string& flag) {
  for (const auto& f : names) {
    bool known = false;
    for (const auto& spec : family_registry()) known = known || spec.name == f;
    if (!known) die(flag + ": no family '" + f + "'");
  }
}

// --memhier_serve and --memhier_defer: a JSON output to serve beside, a plan, known families.
void check_serving(const Options& o) {
  check_known_families(o.defer, "--memhier_defer");
  check_known_families(o.skip, "--memhier_skip");
  if (!o.defer.empty() && o.serve.empty()) die("--memhier_defer needs --memhier_serve (the families run while serving)");
  if (o.serve.empty()) return;
  if (o.list_tests) die("--memhier_serve does not combine with --benchmark_list_tests");
  if (o.out.empty() || o.out_format != "json")
    die("--memhier_serve needs --benchmark_out in JSON (refine-N.json are written beside it)");
  if (o.plan == "none") die("--memhier_serve serves after a plan: use --plan=full, quick or check");
  if (!o.defer.empty() && !o.filter.empty()) die("--memhier_defer does not combine with --benchmark_filter");
  std::error_code ec;
  if (!fs::is_directory(o.serve, ec)) die("--memhier_serve " + o.serve + ": no such directory");
}

// Takes our flags out of argv (so Google Benchmark does not see them) and checks the values of the
// Google Benchmark flags whose bad values it would not explain in one line.
Options take_options(int* argc, char** argv) {
  Options o;
  if (std::string why = check_benchmark_environment(); !why.empty()) die(why);
  o.out = env_or("BENCHMARK_OUT", "");
  o.out_format = env_or("BENCHMARK_OUT_FORMAT", "json");
  o.format = env_or("BENCHMARK_FORMAT", "console");
  o.list_tests = benchmark_flag_true(env_or("BENCHMARK_LIST_TESTS", "false"));
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
        value_of(i, a, "--memhier_progress", &o.progress) || value_of(i, a, "--memhier_budget_s", &o.budget) ||
        value_of(i, a, "--memhier_serve", &o.serve))
      continue;
    const bool defer = value_of(i, a, "--memhier_defer", &v);
    if (defer || value_of(i, a, "--memhier_skip", &v)) {
      std::stringstream list(v);
      for (std::string f; std::getline(list, f, ',');)
        if (!f.empty()) (defer ? o.defer : o.skip).push_back(f);
      continue;
    }
    if (std::string why = check_benchmark_flag(a); !why.empty()) die(why);
    v = a.find('=') == std::string::npos ? "" : a.substr(a.find('=') + 1);
    if (a.rfind("--benchmark_format=", 0) == 0) o.format = v;
    if (a.rfind("--benchmark_out_format=", 0) == 0) o.out_format = v;
    if (a.rfind("--benchmark_out=", 0) == 0) o.out = v;
    if (a.rfind("--benchmark_list_tests", 0) == 0) o.list_tests = benchmark_flag_true(v);
    if (a.rfind("--benchmark_context=", 0) == 0)
      for (const auto& kv : benchmark_context_pairs(v)) o.user_context.insert(kv);
    if (a.rfind("--benchmark_filter=", 0) == 0) set_wide_filter(o.filter = v);
    keep.push_back(argv[i]);
  }
  for (std::size_t i = 0; i < keep.size(); ++i) argv[i] = keep[i];
  *argc = static_cast<int>(keep.size());
  if (o.plan != "full" && o.plan != "quick" && o.plan != "check" && o.plan != "none")
    die("unknown plan '" + o.plan + "': use full, quick, check or none");
  if (o.plan == "none" && o.extra.empty()) die("--plan=none runs only --memhier_extra requests; give one");
  long n = 0;
  if (!o.progress.empty() && o.progress != "auto")
    if (std::string why = check_count("--memhier_progress", o.progress, &n); !why.empty()) die(why);
  double budget = benchmark_budget_seconds();
  if (!o.budget.empty())
    if (std::string why = check_budget_seconds(o.budget, &budget); !why.empty()) die(why);
  set_benchmark_budget_seconds(budget);
  if (!o.trace_dir.empty() && o.trace_dir.find_first_not_of(" ") == std::string::npos)
    die("--memhier_trace_dir needs a directory name");
  check_serving(o);
  return o;
}

// --benchmark_out goes to a temporary file that is renamed onto the target at the end; with
// --benchmark_list_tests nothing is written (Google Benchmark would truncate the file).
void redirect_output(Options& o, int* argc, char** argv) {
  static std::vector<std::string> args;  // storage of the rewritten arguments (live until exit)
  std::vector<char*> keep;
  for (int i = 0; i < *argc; ++i)
    if (std::string(argv[i]).rfind("--benchmark_out=", 0) != 0) keep.push_back(argv[i]);
  if (o.list_tests || o.out.empty()) {
    if (!o.out.empty()) args.push_back("--benchmark_out=");  // overrides BENCHMARK_OUT
    o.out.clear();
  } else {
    try {
      // the directory is created as the trace directory beside it would be
      const fs::path dir = fs::absolute(o.out).parent_path();
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) throw std::runtime_error("cannot create the directory of " + o.out + ": " + ec.message());
      o.temp = begin_atomic_output(o.out);
      args.push_back("--benchmark_out=" + o.temp);
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  for (auto& a : args) keep.push_back(a.data());
  for (std::size_t i = 0; i < keep.size(); ++i) argv[i] = keep[i];
  *argc = static_cast<int>(keep.size());
}

// Context keys memhier-bench writes itself may not come from --benchmark_context (a run could
// otherwise claim another GPU's name).
void check_user_context(const Options& o, const std::map<std::string, std::string>& ours) {
  for (const auto& [k, v] : o.user_context)
    if (ours.count(k) || k.rfind("memhier_", 0) == 0 || k.rfind("chase_limit_bytes_", 0) == 0)
      die("--benchmark_context key '" + k + "' is one memhier-bench sets itself; choose another name");
}

// Whether another process uses CUDA device `index` now, through NVML: "idle (...)", "busy (...)"
// or "NVML absent: why". This process holds no context on it while listing.
std::string busy_text(int index) {
  const auto dev = NvmlDevice::open(cuda_pci_bus_id(index));
  if (!dev->available()) return "NVML absent: " + dev->why();
  const NvmlSample s = dev->sample();
  const bool busy = s.compute_processes > 0 || s.gpu_utilization_pct >= 10;
  std::string t = busy ? "busy (" : "idle (";
  t += s.compute_processes < 0 ? "compute processes unknown" : std::to_string(s.compute_processes) + " compute process(es)";
  for (std::size_t i = 0; i < s.pids.size() && i < 4; ++i) t += (i ? ", " : ": pid ") + std::to_string(s.pids[i]);
  if (s.gpu_utilization_pct >= 0) t += ", GPU " + std::to_string(s.gpu_utilization_pct) + " % busy";
  return t + ")";
}

// --device=list: one line per CUDA device (what --device=cuda:N would measure and where its
// archives go, whether another process uses it now), then the simulated device; exit 0 even with
// no GPU (the reason is the line).
int list_devices() {
  std::string why;
  const int n = cuda_device_count(&why);
  if (n == 0) std::printf("cuda: none (%s)\n", why.c_str());
  for (int i = 0; i < n; ++i) {
    try {
      const DeviceDescription d = describe_device(i);
      std::printf("cuda:%d  %s  %s  %d SMs  %d MHz  %.1f GiB  L2 %.1f MiB  driver %s  archives results/%s/%s/%s/  %s  %s\n",
                  i, d.name.c_str(), d.sm_tag().c_str(), d.sm_count, d.sm_clock_khz / 1000,
                  static_cast<double>(d.global_mem_bytes) / (1u << 30), static_cast<double>(d.l2_bytes) / (1u << 20),
                  d.driver_version.c_str(), d.sm_tag().c_str(), d.slug().c_str(), d.driver_version.c_str(),
                  d.uuid.c_str(), busy_text(i).c_str());
    } catch (const std::exception& e) {
      std::printf("cuda:%d  not usable: %s\n", i, e.what());
    }
  }
  std::printf("sim:<config.json>  the simulated device (configs in sim/configs/)\n");
  return 0;
}

std::unique_ptr<Backend> make_backend(const std::string& device) {
  if (device.rfind("cuda:", 0) == 0) {
    std::string idx = device.substr(5);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
      die("bad device '" + device + "': use cuda:N with N a device index, e.g. cuda:0");
    try {
      const int index = std::stoi(idx);
      conditions_begin_cuda(index);  // the before-the-plan look, before this process has a context there
      return make_cuda_backend(index);
    } catch (const std::exception& e) {
      die(std::string(e.what()) +
          ". Run on a machine with an NVIDIA GPU, or simulate one with --device sim:<config.json> "
          "(configs in sim/configs/)");
    }
  }
  if (device.rfind("sim:", 0) == 0) {
    std::string cfg = device.substr(4);
    if (cfg.empty()) die("bad device '" + device + "': use sim:<config.json>");
    conditions_begin_sim();
    try {
      return make_sim_backend(cfg);
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  die("unknown device '" + device + "': use cuda:N, sim:<config.json> or list");
}

std::string relative_to(const fs::path& target, const fs::path& base_dir) {
  std::error_code ec;
  auto rel = fs::relative(target, base_dir, ec);
  return ec ? fs::absolute(target).string() : rel.string();
}

// The plan's wall time goes into the context of the JSON file after the run.
void record_wall_time(const std::string& out, double seconds, const std::map<std::string, std::string>& extra) {
  std::string text;
  try {
    text = read_whole_file(out);
  } catch (const std::exception&) {
    die("cannot read back " + out);
  }
  nlohmann::json j;
  try {
    j = parse_benchmark_json(text, out);
  } catch (const std::exception&) {
    die("the run's JSON output " + out + " is not valid JSON; nothing written");
  }
  j["context"]["plan_wall_seconds"] = seconds;
  for (const auto& [k, v] : extra) j["context"][k] = v;
  std::ofstream o(out);
  o << j.dump() << "\n";  // compact: an archive stays small (tools read it, people read report.md)
  if (!o.flush()) die("cannot write " + out);
}

// What failed during the run, for the archive (JSON context) and for people (stderr).
std::map<std::string, std::string> fault_context() {
  const FaultLog& f = fault_log();
  std::map<std::string, std::string> c;
  c["memhier_failed_benchmarks"] = std::to_string(f.failed);
  if (!f.device_fault.empty()) c["memhier_device_fault"] = f.device_fault;
  if (f.failed)
    std::fprintf(stderr, "memhier-bench: %d benchmark%s failed (%d refused or stopped by the budget, %d not run on an "
                 "unusable device); the output names each with its reason\n",
                 f.failed, f.failed == 1 ? "" : "s", f.over_budget, f.not_run);
  return c;
}

// --memhier_progress=auto: the registered benchmarks the filter selects, matched as Google
// Benchmark does (extended regex searched in the name, a leading '-' negates, "" / "." / "all":
// every one). Its names carry no /iterations:N or /manual_time suffix: a filter on those may count
// differently (the progress lines say "N/M"; nothing else depends on M).
long expected_runs(const std::string& filter) {
  const auto& names = registered_names();
  if (filter.empty() || filter == "." || filter == "all") return static_cast<long>(names.size());
  const bool negative = filter[0] == '-';
  try {
    const std::regex rx(negative ? filter.substr(1) : filter, std::regex::extended);
    long n = 0;
    for (const auto& name : names) n += std::regex_search(name, rx) != negative;
    return n;
  } catch (const std::regex_error&) {
    return 0;  // unknown: the lines count without a total
  }
}

// The end-of-run context: the backend's checks (a failed check is named on stderr, the output is
// kept) and what failed during the run.
std::map<std::string, std::string> end_of_run(Backend& be) {
  std::map<std::string, std::string> end;
  try {
    end = be.end_context();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memhier-bench: end-of-run check failed: %s\n", e.what());
  }
  for (const auto& kv : fault_context()) end.insert(kv);
  const bool clock_check = end.count("sm_clock_throttled") && end["sm_clock_throttled"] == "true";
  for (const auto& kv : conditions_context(clock_check)) end[kv.first] = kv.second;
  return end;
}

// Registers the plan `p` of the families in `only` (all with `all`): on a simulated device only
// those that need no CUDA; with --plan=none only those that take --memhier_extra requests.
std::vector<std::string> g_skipped;  // --memhier_skip

void register_families(Backend& be, Plan p, const std::vector<std::string>& only, bool all) {
  clear_registrations();
  set_plan(p);
  const bool is_cuda = be.name() == "cuda";
  for (const auto& f : family_registry()) {
    if (std::find(g_skipped.begin(), g_skipped.end(), f.name) != g_skipped.end()) continue;
    if (f.needs_cuda && !is_cuda) continue;
    if (f.needs_cuda && p == Plan::none) continue;  // the P-chase kind takes the requests
    if (!all && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    f.register_fn(be);
  }
}

// One more run of this process (--memhier_serve): what `spec` selects into `target`, atomically,
// with its wall time, the end-of-run checks, its own failures and `context` in the JSON context.
std::size_t run_into(const Options& o, Backend& be, const std::string& spec, const std::string& target,
                     const std::map<std::string, std::string>& context, bool quiet) {
  const auto t0 = std::chrono::steady_clock::now();
  const int failed_before = fault_log().failed;
  rearm_atomic_output(o.temp, target);
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (!o.progress.empty() && !quiet)
    display = std::make_unique<ProgressReporter>(o.progress == "auto" ? expected_runs(spec) : 0);
  else if (quiet)
    display = std::make_unique<SilentReporter>();
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(display.get(), nullptr, spec);
  if (ran == 0) {
    abandon_atomic_output();
    return 0;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::string> end = end_of_run(be);
  end["memhier_failed_benchmarks"] = std::to_string(fault_log().failed - failed_before);
  for (const auto& [k, v] : context) end[k] = v;
  record_wall_time(o.temp, wall, end);
  commit_atomic_output();
  return ran;
}

int serve_after_plan(const Options& o, Backend& be, const std::string& out_file) {
  ServeConfig c;
  c.dir = o.serve;
  c.out_dir = fs::absolute(out_file).parent_path();
  c.plan_json = out_file;
  c.plan = plan();
  c.deferred = o.defer;
  c.progress = !o.progress.empty();
  ServeHooks h;
  h.run = [&](const std::string& spec, const std::string& target, const std::map<std::string, std::string>& ctx,
              bool quiet) { return run_into(o, be, spec, target, ctx, quiet); };
  h.register_families = [&](Plan p, const std::vector<std::string>& only) { register_families(be, p, only, false); };
  return serve(c, h);
}

[[noreturn]] void on_terminate() {
  abandon_atomic_output();
  std::string what = "unknown";
  try {
    if (auto e = std::current_exception()) std::rethrow_exception(e);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::fprintf(stderr, "memhier-bench: fatal: %s; no output written\n", what.c_str());
  std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  std::set_terminate(on_terminate);
  Options o = take_options(&argc, argv);
  if (o.device == "list") return list_devices();
  redirect_output(o, &argc, argv);
  const std::string out_file = o.out;  // the target; Google Benchmark writes the temporary file
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i)
    die(std::string("unknown flag '") + argv[i] + "'; see --help");

  set_plan(o.plan == "quick" ? Plan::quick : o.plan == "check" ? Plan::check : o.plan == "none" ? Plan::none : Plan::full);
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

  {
    auto ours = be.context();
    ours["trace_dir"] = trace_rel;
    ours["tlb_limit_bytes"] = "";
    check_user_context(o, ours);
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

  g_skipped = o.skip;
  if (!o.skip.empty()) {
    std::string list;
    for (const auto& f : o.skip) list += (list.empty() ? "" : ",") + f;
    benchmark::AddCustomContext("memhier_skipped_families", list);
  }
  try {
    register_families(be, plan(), {}, true);
  } catch (const std::exception& e) {
    die(std::string("while registering the plan: ") + e.what());
  }
  for (const auto& family : untaken_extra_families())
    die(o.extra + ": '" + family + "' requests are taken by no family registered on " + be.name() +
        " (nothing would run them)");

  // With --memhier_defer the plan runs without those families first (they run while serving).
  const std::string first = deferral_filter(o.defer);
  std::unique_ptr<benchmark::BenchmarkReporter> display, file;
  if (!o.progress.empty())
    display = std::make_unique<ProgressReporter>(o.progress == "auto" ? expected_runs(first.empty() ? o.filter : first)
                                                                      : std::atol(o.progress.c_str()));
  else if (o.format == "csv") display = std::make_unique<UnionCsvReporter>(false);
  if (!o.out.empty() && o.out_format == "csv") file = std::make_unique<UnionCsvReporter>(true);
  const std::size_t ran = first.empty() ? benchmark::RunSpecifiedBenchmarks(display.get(), file.get())
                                        : benchmark::RunSpecifiedBenchmarks(display.get(), file.get(), first);
  if (ran == 0) die("no benchmark of this plan matches the filter; nothing written");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::string> end = end_of_run(be);
  // The families this process runs later (--memhier_defer), named before they are merged: the
  // analyzer of the rounds knows what is still to come (e.g. the L2's eviction sets).
  if (!o.serve.empty() && !o.defer.empty()) {
    std::string names;
    for (const auto& f : o.defer) names += (names.empty() ? "" : ",") + f;
    end["memhier_deferred"] = names;
  }
  if (!o.out.empty() && o.out_format == "json") {
    record_wall_time(o.temp, wall, end);
  }
  if (!o.out.empty()) {
    try {
      commit_atomic_output();
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  if (end.count("measurement_contended") && end["measurement_contended"] == "true")
    std::fprintf(stderr, "memhier-bench: warning: another process shared the GPU (%s): the run is marked contended\n",
                 end["measurement_evidence"].c_str());
  else if (end.count("measurement_throttled") && end["measurement_throttled"] == "true")
    std::fprintf(stderr, "memhier-bench: warning: the clocks were throttled (%s): the run is marked throttled\n",
                 end["measurement_evidence"].c_str());
  else if (end.count("sm_clock_throttled") && end["sm_clock_throttled"] == "true")
    std::fprintf(stderr, "memhier-bench: warning: the SM clock was below 90%% of nominal (throttling?)\n");
  std::fprintf(stderr, "memhier-bench: plan finished in %.1f s%s\n", wall, out_file.empty() ? "" : (", wrote " + out_file).c_str());
  int status = fault_log().device_fault.empty() ? 0 : 3;
  if (!o.serve.empty() && status == 0) status = serve_after_plan(o, be, out_file);
  benchmark::Shutdown();
  return status;
}
