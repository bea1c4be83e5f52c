// memhier-compare <base> <new>: did the memory hierarchy or its speed change between two memhier
// runs (two archive directories or two bench.json files)? Both archives are analyzed again by this
// build's analyzer when their raw measurements are there (--as-archived: the stored topology.json
// files; topologies of different analyzers then make a structural difference ANALYZER-CHANGED, not
// a failure: analysis/gate/analyzer.hpp). By default the headline: every structural
// field and the headline figures, judged beyond the threshold of their kind and the runs' own
// spread (analysis/gate/gate.hpp); --detail adds the per-benchmark rows. Exit status (docs/ci.md):
// 0 pass, 1 a figure got worse, 2 bad input, 3 a structural field changed, 4 different GPUs
// without --ignore-device, 5 no verdict (two bench.json files whose differences rest on single
// samples: no noise model). --fleet ARCHIVE|DIR...: the boards of one GPU model against their
// median (analysis/gate/fleet.hpp), exit 6 when a board is outside; --baseline FLEET.json: a
// difference within the fleet's board-to-board spread is SAME.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/gate/fleet.hpp"
#include "analysis/gate/analyzer.hpp"
#include "analysis/gate/gate.hpp"

using namespace memhier::analysis;

namespace {

const char* kUsage =
    "usage: memhier-compare [options] <base> <new>\n"
    "       memhier-compare --fleet [options] ARCHIVE|DIR...\n"
    "  <base>, <new>            two archive directories (bench.json[.gz], topology.json) or bench.json files;\n"
    "                           archives with their raw data (bench.json, refine-N.json, traces) are\n"
    "                           analyzed again by this build's analyzer (one line says so)\n"
    "  --as-archived            compare the archived topology.json files; a structural difference between\n"
    "                           topologies of different analyzer versions is ANALYZER-CHANGED (no failure)\n"
    "  --fleet                  the archives of one GPU model (a directory: every archive below it), one per\n"
    "                           board: per figure the median and the boards outside it; exit 6 when one is\n"
    "  --z=F                    --fleet: robust z-score beyond which a board is outside (default 3.5)\n"
    "  --baseline=FILE          a fleet report (--fleet --format=json -o FILE): a difference within the\n"
    "                           fleet's board-to-board spread is SAME\n"
    "  --format=console|markdown|json   output format (default console; markdown for a CI job summary)\n"
    "  -o FILE                  write the output to FILE instead of stdout\n"
    "  --detail                 add the per-benchmark rows (those that differ)\n"
    "  --all                    SAME rows too (the headline's; with --detail the per-benchmark ones too)\n"
    "  --bandwidth-threshold=F  relative change of a bandwidth that counts (default 0.05)\n"
    "  --latency-threshold=F    relative change of a latency that counts (default 0.05) ...\n"
    "  --latency-floor=C        ... and at least C cycles (default 10)\n"
    "  --threshold=F            both relative thresholds at once\n"
    "  --size-tolerance=F       structural sizes closer than this fraction are SAME (default 0.05)\n"
    "  --min-samples=N          a figure resting on fewer samples never decides alone (default 16)\n"
    "  --alpha=P                U-test level of the per-benchmark rows with repetitions (default 0.05)\n"
    "  --common-only            per-benchmark rows: benchmarks of one run only are counted, not listed\n"
    "  --ignore-device          different GPUs side by side, with ratios; no verdicts, exit 0\n"
    "  --allow-contended        verdicts even on a run marked contended (another process shared the GPU)\n"
    "                           or throttled (memhier-bench's NVML looks); without it: exit 7\n"
    "  --fail-on=LIST           what fails the gate: worse,structure (default), worse, structure, none\n"
    "  --survey                 the same as --fail-on=none (driver surveys: report, never fail)\n"
    "exit status: 0 pass, 1 a figure worse, 2 bad input, 3 a structural field changed,\n"
    "             4 different GPUs without --ignore-device, 5 no verdict (bench.json files without\n"
    "             topology.json whose differences rest on one sample a side: no noise model),\n"
    "             6 (--fleet) a board outside the fleet: a figure outlier or a structural disagreement,\n"
    "             7 a run marked contended or throttled (without --allow-contended)\n";

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "memhier-compare: %s\n", msg.c_str());
  std::exit(2);
}

double parse_fraction(const std::string& flag, const std::string& v, double lo, double hi) {
  try {
    std::size_t pos = 0;
    double x = std::stod(v, &pos);
    if (pos != v.size() || !(x >= lo && x <= hi)) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    die("bad value '" + v + "' for " + flag + ": a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

struct Args {
  GateOptions opt;
  double alpha = 0.05, z = 3.5;
  bool fleet = false;
  std::string baseline;
  std::string format = "console", out;
  bool detail = false, all_rows = false, fail_worse = true, fail_structure = true, as_archived = false;
  std::vector<std::string> inputs;
};

void parse_fail_on(const std::string& v, Args& a) {
  a.fail_worse = a.fail_structure = false;
  std::stringstream ss(v);
  for (std::string w; std::getline(ss, w, ',');) {
    if (w == "worse") a.fail_worse = true;
    else if (w == "structure") a.fail_structure = true;
    else if (w != "none") die("bad value '" + w + "' for --fail-on: worse, structure or none");
  }
}

Args parse_args(int argc, char** argv) {
  Args r;
  GateOptions& opt = r.opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag, std::string* v) {
      if (a.rfind(flag + "=", 0) == 0) {
        *v = a.substr(flag.size() + 1);
        return true;
      }
      if (a == flag) {
        if (i + 1 >= argc) die(flag + " needs a value; see --help");
        *v = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (value("--threshold", &v)) {
      opt.bandwidth_threshold = opt.latency_threshold = parse_fraction("--threshold", v, 0.0, 10.0);
    } else if (value("--bandwidth-threshold", &v)) {
      opt.bandwidth_threshold = parse_fraction("--bandwidth-threshold", v, 0.0, 10.0);
    } else if (value("--latency-threshold", &v)) {
      opt.latency_threshold = parse_fraction("--latency-threshold", v, 0.0, 10.0);
    } else if (value("--latency-floor", &v)) {
      opt.latency_floor_cycles = parse_fraction("--latency-floor", v, 0.0, 1e6);
    } else if (value("--size-tolerance", &v)) {
      opt.size_tolerance = parse_fraction("--size-tolerance", v, 0.0, 1.0);
    } else if (value("--min-samples", &v)) {
      opt.min_samples = static_cast<int>(parse_fraction("--min-samples", v, 0.0, 1e9));
    } else if (value("--alpha", &v)) {
      r.alpha = parse_fraction("--alpha", v, 0.0, 1.0);
    } else if (a == "--fleet") {
      r.fleet = true;
    } else if (value("--z", &v)) {
      r.z = parse_fraction("--z", v, 0.0, 1e6);
    } else if (value("--baseline", &v)) {
      r.baseline = v;
    } else if (value("--format", &v)) {
      if (v != "console" && v != "markdown" && v != "json") die("unknown format '" + v + "': use console, markdown or json");
      r.format = v;
    } else if (value("-o", &v) || value("--output", &v)) {
      r.out = v;
    } else if (a == "--detail") {
      r.detail = true;
    } else if (a == "--all") {
      r.all_rows = true;
    } else if (a == "--as-archived") {
      r.as_archived = true;
    } else if (a == "--common-only") {
      opt.common_only = true;
    } else if (a == "--allow-contended") {
      opt.allow_contended = true;
    } else if (a == "--ignore-device") {
      opt.ignore_device = true;
    } else if (value("--fail-on", &v)) {
      parse_fail_on(v, r);
    } else if (a == "--survey") {
      r.fail_worse = r.fail_structure = false;
    } else if (a == "--fail-on-structure" || a == "--fail-on-changed") {
      r.fail_structure = true;  // the default now; kept for older CI jobs
    } else if (a.size() > 1 && a[0] == '-') {
      die("unknown flag '" + a + "'; see --help");
    } else {
      r.inputs.push_back(a);
    }
  }
  if (r.fleet && !r.baseline.empty()) die("--baseline is for two archives, not with --fleet; see --help");
  if (r.fleet && r.inputs.empty()) die("--fleet needs archives or a directory of archives; see --help");
  if (!r.fleet && r.inputs.size() != 2) die("needs exactly two inputs, <base> and <new>; see --help");
  return r;
}

void write_output(const Args& args, const std::string& text) {
  if (args.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream f(args.out);
    if (!(f << text)) die("cannot write " + args.out);
  }
}

// --fleet: exit 0 every board inside, 4 different GPU models, 6 a board outside.
int run_fleet(const Args& args) {
  FleetOptions fo;
  fo.gate = args.opt;
  fo.z_threshold = args.z;
  FleetResult r;
  try {
    std::vector<CompareInput> runs;
    for (const auto& a : fleet_archives(args.inputs)) runs.push_back(load_compare_input(a));
    if (runs.size() < 2) die("a fleet needs at least two archives; found " + std::to_string(runs.size()));
    r = fleet_compare(runs, fo);
  } catch (const std::exception& e) {
    die(e.what());
  }
  if (args.format == "json") write_output(args, render_fleet_json(r).dump(2) + "\n");
  else if (args.format == "markdown") write_output(args, render_fleet_markdown(r));
  else write_output(args, render_fleet_console(r));
  const bool said = args.format == "console" && args.out.empty();  // the console's first line said it
  if (!r.refusal.empty() && !said) std::fprintf(stderr, "memhier-compare: %s\n", r.refusal.c_str());
  return fleet_exit_code(r);
}

// --baseline: the fleet's spreads into the gate's options; a fleet of another GPU is refused (4).
void use_baseline(const Args& args, const CompareInput& base, GateOptions& opt) {
  if (args.baseline.empty()) return;
  FleetBaseline b;
  try {
    b = load_fleet_baseline(args.baseline);
  } catch (const std::exception& e) {
    die(e.what());
  }
  const std::string gpu = base.bench.context_or("gpu_name", "?");
  if (b.gpu != gpu && !opt.ignore_device) {
    std::fprintf(stderr, "memhier-compare: the baseline %s is a fleet of %s, not of %s (the base's GPU)\n",
                 args.baseline.c_str(), b.gpu.c_str(), gpu.c_str());
    std::exit(4);
  }
  use_fleet_baseline(b, opt);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  if (args.fleet) return run_fleet(args);
  GateResult r;
  try {
    CompareInput base = load_compare_input(args.inputs[0]);
    CompareInput now = load_compare_input(args.inputs[1]);
    GateOptions opt = args.opt;
    use_baseline(args, base, opt);
    const PairAnalysis pa = prepare_pair(base, now, args.as_archived);
    r = gate_compare(base, now, opt, pa);
    if (!opt.fleet_baseline.empty())
      r.notes.push_back("baseline: a difference within the fleet's board-to-board spread is SAME (" + opt.fleet_baseline + ")");
    if (args.alpha != 0.05) {  // the detail with the user's U-test level
      CompareOptions co = r.detail.options;
      co.alpha = args.alpha;
      r.detail = compare_runs(base, now, co);
    }
    r.detail_all = args.all_rows;
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::string text;
  if (args.format == "json")
    text = render_gate_json(r, args.detail).dump(2) + "\n";
  else if (args.format == "markdown")
    text = render_gate_markdown(r, args.detail);
  else
    text = render_gate_console(r, args.detail);
  write_output(args, text);
  const bool said = args.format == "console" && args.out.empty();  // the console's first line said it
  if (!said && r.refused()) {
    std::string keys;
    for (const auto& k : r.identity_keys_differing) keys += (keys.empty() ? "" : ", ") + k;
    std::fprintf(stderr, "memhier-compare: refusing to compare different GPUs (%s differ); use --ignore-device to "
                         "see them side by side\n", keys.c_str());
  } else if (!said && r.refused_conditions()) {
    std::fprintf(stderr, "memhier-compare: refusing verdicts: %s; use --allow-contended to compare anyway\n",
                 r.untrusted.front().c_str());
  }
  return gate_exit_code(r, args.fail_worse, args.fail_structure);
}
