// memhier-compare <base> <new>: regression tracking between two memhier runs (two bench.json files
// or two archive directories). Exit 0: nothing got worse; 1: something got worse (or changed, with
// --fail-on-changed; structure changed, with --fail-on-structure); 2: bad input, or different GPUs
// without --ignore-device.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/compare.hpp"

using namespace memhier::analysis;

namespace {

const char* kUsage =
    "usage: memhier-compare [options] <base> <new>\n"
    "  <base>, <new>        two bench.json files or two archive directories (bench.json, topology.json)\n"
    "  --threshold=F        relative change that counts, as a fraction (default 0.10 = 10 %)\n"
    "  --size-tolerance=F   structural sizes closer than this fraction compare SAME (default 0.05)\n"
    "  --alpha=P            significance level of the U test with repetitions (default 0.05)\n"
    "  --format=console|markdown|json   output format (default console)\n"
    "  -o FILE              write the output to FILE instead of stdout\n"
    "  --all                list SAME rows too (console, markdown)\n"
    "  --common-only        do not list benchmarks present in one run only (e.g. quick vs full plan)\n"
    "  --ignore-device      compare runs of different GPUs\n"
    "  --fail-on-changed    exit 1 on CHANGED rows too (structure, counters of unknown direction)\n"
    "  --fail-on-structure  exit 1 when a structural topology field CHANGED (stated ranges disjoint)\n"
    "exit status: 0 nothing worse, 1 something worse, 2 bad input or different GPUs\n";

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

}  // namespace

int main(int argc, char** argv) {
  CompareOptions opt;
  std::string format = "console", out;
  bool all_rows = false, fail_on_changed = false, fail_on_structure = false;
  std::vector<std::string> inputs;
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
      return 0;
    } else if (value("--threshold", &v)) {
      opt.threshold = parse_fraction("--threshold", v, 0.0, 10.0);
    } else if (value("--size-tolerance", &v)) {
      opt.size_tolerance = parse_fraction("--size-tolerance", v, 0.0, 1.0);
    } else if (value("--alpha", &v)) {
      opt.alpha = parse_fraction("--alpha", v, 0.0, 1.0);
    } else if (value("--format", &v)) {
      if (v != "console" && v != "markdown" && v != "json") die("unknown format '" + v + "': use console, markdown or json");
      format = v;
    } else if (value("-o", &v) || value("--output", &v)) {
      out = v;
    } else if (a == "--all") {
      all_rows = true;
    } else if (a == "--common-only") {
      opt.common_only = true;
    } else if (a == "--ignore-device") {
      opt.ignore_device = true;
    } else if (a == "--fail-on-changed") {
      fail_on_changed = true;
    } else if (a == "--fail-on-structure") {
      fail_on_structure = true;
    } else if (a.size() > 1 && a[0] == '-') {
      die("unknown flag '" + a + "'; see --help");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.size() != 2) die("needs exactly two inputs, <base> and <new>; see --help");

  CompareResult r;
  try {
    CompareInput base = load_compare_input(inputs[0]);
    CompareInput now = load_compare_input(inputs[1]);
    r = compare_runs(base, now, opt);
  } catch (const std::exception& e) {
    die(e.what());
  }

  std::string text;
  if (format == "json")
    text = render_json(r).dump(2) + "\n";
  else if (format == "markdown")
    text = render_markdown(r, all_rows);
  else
    text = render_console(r, all_rows);
  if (out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream f(out);
    if (!(f << text)) die("cannot write " + out);
  }

  if (!r.same_device && !opt.ignore_device) {
    std::string keys;
    for (const auto& k : r.identity_keys_differing) keys += (keys.empty() ? "" : ", ") + k;
    std::string ctx;
    for (const auto& d : r.context_diffs) ctx += (ctx.empty() ? "" : ", ") + d.key;
    die("refusing to compare different GPUs (" + keys + " differ" + (ctx.empty() ? "" : "; also " + ctx) +
        "); use --ignore-device to compare anyway");
  }
  if (r.worse()) return 1;
  if (fail_on_changed && r.count(Verdict::changed) > 0) return 1;
  if (fail_on_structure && r.structure() == "CHANGED") return 1;
  return 0;
}
