// memhier-infer: reads memhier-bench JSON files of one device (the plan and refinement passes) and
// their traces, and writes the topology (topology.json, report.md) and, on request, the chases it
// still needs (--next-requests, docs/formats.md "Extra requests").
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/dataset.hpp"
#include "analysis/topology.hpp"

namespace {
const char* kUsage =
    "usage: memhier-infer <bench.json> [more.json ...] [-o topology.json] [--report report.md]\n"
    "                     [--next-requests requests.json] [--allow-errors]\n"
    "  -o FILE            topology JSON (schema memhier-topology/1; default: stdout)\n"
    "  --report FILE      the same for people (markdown)\n"
    "  --next-requests F  write the chases that would decide undetermined values (memhier-requests/1;\n"
    "                     an empty list when nothing more is needed); run them with\n"
    "                     memhier-bench --plan=none --memhier_extra=F\n"
    "  --allow-errors     analyze files that contain failed benchmarks (they are listed and skipped)\n"
    "  --budget-round-seconds S, --budget-total-seconds S, --budget-round-chases N, --max-rounds N\n"
    "                     the refinement budget (default 3 s and 400 chases per round, 8 s and 4 rounds in\n"
    "                     all): --next-requests holds what fits, by priority (docs/methodology.md)\n";

int fail(const std::string& m) {
  std::fprintf(stderr, "memhier-infer: %s\n", m.c_str());
  return 1;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return static_cast<bool>(f);
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string out, report, next;
  bool allow_errors = false;
  memhier::analysis::RefinementBudget budget;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* dst) {
      if (i + 1 >= argc) return false;
      *dst = argv[++i];
      return true;
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-o" || a == "--output") {
      if (!value(&out)) return fail(a + " needs a file name; see --help");
    } else if (a == "--report") {
      if (!value(&report)) return fail(a + " needs a file name; see --help");
    } else if (a == "--next-requests") {
      if (!value(&next)) return fail(a + " needs a file name; see --help");
    } else if (a == "--allow-errors") {
      allow_errors = true;
    } else if (a == "--budget-round-seconds" || a == "--budget-total-seconds" || a == "--budget-round-chases" ||
               a == "--max-rounds") {
      std::string v;
      if (!value(&v)) return fail(a + " needs a number; see --help");
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != 0 || !(x >= 0)) return fail("bad value '" + v + "' for " + a + "; see --help");
      if (a == "--budget-round-seconds") budget.round_seconds = x;
      if (a == "--budget-total-seconds") budget.total_seconds = x;
      if (a == "--budget-round-chases") budget.round_benchmarks = static_cast<std::size_t>(x);
      if (a == "--max-rounds") budget.max_rounds = static_cast<int>(x);
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("unknown option '" + a + "'; see --help");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) return fail("no input: give one or more memhier-bench JSON files; see --help");
  try {
    auto data = memhier::analysis::Dataset::load(inputs, allow_errors);
    memhier::analysis::Requests req;
    nlohmann::json topo = memhier::analysis::build_topology(data, req, budget);
    const std::string js = topo.dump(2) + "\n";
    if (out.empty()) std::cout << js;
    else if (!write_file(out, js)) return fail(out + ": cannot write");
    if (!report.empty()) {
      std::string dir = report.find('/') == std::string::npos ? "." : report.substr(0, report.find_last_of('/'));
      if (!write_file(report, memhier::analysis::render_report(topo, dir))) return fail(report + ": cannot write");
    }
    if (!next.empty() && !write_file(next, req.selected.dump(2) + "\n")) return fail(next + ": cannot write");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
