// memhier-infer: reads memhier-bench JSON files of one device (the plan and refinement passes) and
// their traces, and writes the topology (topology.json, report.md) and, on request, the chases it
// still needs (--next-requests, docs/formats.md "Extra requests").
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "analysis/cache/streams.hpp"
#include "analysis/core/dataset.hpp"
#include "analysis/report/gpgpusim.hpp"
#include "analysis/report/topology.hpp"
#include "analysis/report/twin.hpp"
#include "analysis/core/validate.hpp"
#include "analysis/gate/analyzer.hpp"
#include "common/archive_files.hpp"

namespace {
const char* kUsage =
    "usage: memhier-infer <bench.json | archive-dir> [more.json ...] [-o topology.json] [--report report.md]\n"
    "                     [--next-requests requests.json] [--allow-errors]\n"
    "  an archive directory stands for its bench.json(.gz) and refine-N.json(.gz), in order\n"
    "  -o FILE            topology JSON (schema memhier-topology/2; default: stdout)\n"
    "  --report FILE      the same for people (markdown)\n"
    "  --next-requests F  write the chases that would decide undetermined values (memhier-requests/1;\n"
    "                     an empty list when nothing more is needed); run them with\n"
    "                     memhier-bench --plan=none --memhier_extra=F\n"
    "  --allow-errors     analyze files that contain failed or invalid benchmarks (they are left out\n"
    "                     and listed in the topology and the report)\n"
    "  --skip-streams     no random-stream judgement of the replacement policies (characterize.sh's\n"
    "                     request rounds: it decides no request; the early and last analyses make it)\n"
    "  --streams-cache F  each cache's random-stream judgement kept in F by its inputs and reused by\n"
    "                     an analysis of the same stream data (characterize.sh: computed once per run)\n"
    "  --sections-cache F the early sections (caches, address translation, refinement) from F when F\n"
    "                     holds them for these inputs' early families, else computed and written to F;\n"
    "                     the output is the same either way (characterize.sh: the last analysis after\n"
    "                     the GPU is done computes only the late sections; docs/methodology.md)\n"
    "  --budget-round-seconds S, --budget-total-seconds S, --budget-round-chases N, --max-rounds N\n"
    "                     the refinement budget (default 3 s and 400 chases per round, 8 s and 4 rounds in\n"
    "                     all): --next-requests holds what fits, by priority (docs/methodology.md)\n"
    "  --from-topology T  no analysis: read topology T (written by memhier-infer) and write -o/--report\n"
    "                     from it (characterize.sh renders report.md so once the plots exist; a\n"
    "                     memhier-topology/1 T is written in the /2 shape)\n"
    "  --context KEY=VAL  set device.KEY to VAL in the topology written, typed as every device value\n"
    "                     (a number, true/false, or text; repeatable)\n"
    "  --version          the analyzer's version and source revision (topology.json's \"analyzer\")\n"
    "  --twin-config A    no analysis: write (-o, default stdout) a simulated twin of archive A (its\n"
    "                     topology.json, or a topology file): a memhier-sim-config/1 for --device sim:\n"
    "                     (docs/simulator.md); undetermined values defaulted and listed in 'defaulted'\n"
    "  --gpgpusim-config A  no analysis: write a GPGPU-Sim / Accel-Sim configuration of archive A's\n"
    "                     memory hierarchy, each option with its evidence (docs/gpgpusim.md)\n"
    "Every input is checked first (docs/methodology.md, reliability); outputs are written whole or\n"
    "not at all. Exit status: 0 a topology was written; 1 bad input, or nothing could be determined\n";

int fail(const std::string& m) {
  std::fprintf(stderr, "memhier-infer: %s\n", m.c_str());
  return 1;
}

// Whole or not at all: a temporary file beside the target, renamed onto it when complete.
bool write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".incomplete-" + std::to_string(getpid());
  {
    std::ofstream f(tmp);
    f << text;
    if (!f.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// An output must not overwrite an input or another output.
std::string check_paths(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  namespace fs = std::filesystem;
  auto canon = [](const std::string& p) {
    std::error_code ec;
    auto c = fs::weakly_canonical(p, ec);
    return ec ? p : c.string();
  };
  std::set<std::string> seen;
  for (const auto& i : inputs)
    if (!seen.insert(canon(i)).second) return "input " + i + " given twice";
  for (const auto& o : outputs) {
    if (o.empty()) continue;
    if (!seen.insert(canon(o)).second) return "output " + o + " would overwrite an input or another output";
    if (fs::is_directory(o)) return "output " + o + " is a directory";
  }
  return {};
}
}  // namespace

// A topology file written by memhier-infer into *topo, memhier-topology/1 (archives before
// 2026-12-02) read in the /2 shape; the error line ("" when it was read).
std::string read_topology(const std::string& path, const std::string& unreadable, nlohmann::json* topo) {
  try {
    std::ifstream in(path);
    if (!in) return path + ": " + unreadable;
    *topo = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    return path + ": not JSON (" + e.what() + ")";
  }
  if (!topo->is_object() || !topo->contains("device") || !memhier::analysis::upgrade_topology(*topo))
    return path + ": not a memhier topology (schema " + std::string(memhier::analysis::kTopologySchema) + " or " +
           memhier::analysis::kTopologySchemaV1 + ")";
  return "";
}

// --twin-config / --gpgpusim-config ARCHIVE [-o FILE]: an export of the topology alone; -1 when
// neither is asked for (the ordinary analysis runs).
int export_mode(int argc, char** argv) {
  std::string kind, src, out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--twin-config" || a == "--gpgpusim-config") && i + 1 < argc) kind = a, src = argv[++i];
    else if ((a == "-o" || a == "--output") && i + 1 < argc) out = argv[++i];
    else if (a == "--twin-config" || a == "--gpgpusim-config") return fail(a + " needs an archive; see --help");
    else if (a == "-h" || a == "--help") return -1;
    else if (!kind.empty() || a.rfind("--twin", 0) == 0 || a.rfind("--gpgpusim", 0) == 0)
      return fail(a + ": " + (kind.empty() ? "unknown option" : kind + " takes only -o") + "; see --help");
  }
  if (kind.empty()) return -1;
  namespace fs = std::filesystem;
  const std::string topo_path = fs::is_directory(src) ? (fs::path(src) / "topology.json").string() : src;
  nlohmann::json topo;
  if (const std::string e = read_topology(topo_path, "cannot read (an archive directory holds topology.json)", &topo);
      !e.empty())
    return fail(e);
  std::string text;
  try {
    if (kind == "--twin-config") {
      std::string name = "twin_" + topo["device"].value("gpu_slug", std::string("gpu"));
      for (char& ch : name)
        if (ch == ' ' || ch == '/' || ch == ':' || ch == '\t') ch = '_';
      text = memhier::analysis::twin_config(topo, name).dump(1) + "\n";
    } else {
      text = memhier::analysis::gpgpusim_config(topo);
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (out.empty()) std::cout << text;
  else if (!write_file(out, text)) return fail(out + ": cannot write");
  return 0;
}

// --from-topology: the topology as memhier-infer wrote it, with --context keys set, written again
// and rendered (no data are read, so no analysis can change).
int rewrite_topology(const std::string& from, const std::vector<std::string>& inputs,
                     const std::vector<std::pair<std::string, std::string>>& context, const std::string& out,
                     const std::string& report, const std::string& next) {
  if (!inputs.empty()) return fail("--from-topology takes no inputs (it analyzes nothing); see --help");
  if (!next.empty()) return fail("--from-topology cannot write --next-requests (it analyzes nothing)");
  if (out.empty() && report.empty()) return fail("--from-topology needs -o or --report; see --help");
  nlohmann::json topo;  // a memhier-topology/1 document is written again in the /2 shape
  if (const std::string e = read_topology(from, "cannot read", &topo); !e.empty()) return fail(e);
  for (const auto& [k, v] : context) topo["device"][k] = memhier::analysis::device_value(k, v);
  try {
    if (!out.empty() && !write_file(out, topo.dump(2) + "\n")) return fail(out + ": cannot write");
    if (!report.empty()) {
      std::string dir = report.find('/') == std::string::npos ? "." : report.substr(0, report.find_last_of('/'));
      if (!write_file(report, memhier::analysis::render_report(topo, dir))) return fail(report + ": cannot write");
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}

// One analysis of the inputs: topology (-o), report, next requests.
static int analyze(const std::vector<std::string>& inputs, bool allow_errors, const memhier::analysis::RefinementBudget& budget,
            const std::string& sections_cache, const std::vector<std::pair<std::string, std::string>>& context,
            const std::string& out, const std::string& report, const std::string& next) {
  try {
    auto data = memhier::analysis::Dataset::load(memhier::expand_archive_inputs(inputs), allow_errors);
    for (const auto& w : data.warnings()) std::cerr << "memhier-infer: warning: " << w << "\n";
    memhier::analysis::Requests req;
    std::string cache_note;
    nlohmann::json topo = memhier::analysis::build_topology(data, req, budget, sections_cache, &cache_note);
    if (!cache_note.empty()) std::cerr << "memhier-infer: " << cache_note << "\n";
    topo["analyzer"] = memhier::analysis::analyzer_stamp();  // version and source revision (docs/formats.md)
    for (const auto& [k, v] : context) topo["device"][k] = memhier::analysis::device_value(k, v);
    // Never an all-null topology with exit 0 (a refinement step that asks for more is not a result)
    if (memhier::analysis::count_determined_values(topo) == 0 && (next.empty() || req.empty())) {
      std::string why = "nothing could be determined from " + std::to_string(inputs.size()) + " input file(s)";
      if (!data.skipped().empty())
        why += ": " + std::to_string(data.skipped().size()) + " entries left out, the first: " + data.skipped().front();
      return fail(why + "; no topology written");
    }
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

int main(int argc, char** argv) {
  if (const int rc = export_mode(argc, argv); rc >= 0) return rc;
  std::vector<std::string> inputs;
  std::string out, report, next, from_topology, sections_cache;
  std::vector<std::pair<std::string, std::string>> context;
  bool allow_errors = false;
  memhier::analysis::RefinementBudget budget;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* dst) {
      if (i + 1 >= argc) return false;
      *dst = argv[++i];
      return true;
    };
    if (a == "-h" || a == "--help" || a == "--version") {  // --version: the stamp topology.json carries
      if (a == "--version") std::printf("memhier-infer %s\n", memhier::analysis::analyzer_text(memhier::analysis::analyzer_stamp()).c_str());
      else std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-o" || a == "--output") {
      if (!value(&out)) return fail(a + " needs a file name; see --help");
    } else if (a == "--report") {
      if (!value(&report)) return fail(a + " needs a file name; see --help");
    } else if (a == "--next-requests") {
      if (!value(&next)) return fail(a + " needs a file name; see --help");
    } else if (a == "--allow-errors") {
      allow_errors = true;
    } else if (a == "--skip-streams") {
      memhier::analysis::set_stream_judgement(false);
    } else if (a == "--streams-cache") {
      std::string f;
      if (!value(&f)) return fail(a + " needs a file name; see --help");
      memhier::analysis::set_stream_memo(f);
    } else if (a == "--sections-cache") {
      if (!value(&sections_cache)) return fail(a + " needs a file name; see --help");
    } else if (a == "--from-topology") {
      if (!value(&from_topology)) return fail(a + " needs a file name; see --help");
    } else if (a == "--context") {
      std::string kv;
      if (!value(&kv) || kv.find('=') == std::string::npos || kv.find('=') == 0)
        return fail(a + " needs KEY=VALUE; see --help");
      context.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
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
  if (!from_topology.empty()) return rewrite_topology(from_topology, inputs, context, out, report, next);
  if (inputs.empty()) return fail("no input: give one or more memhier-bench JSON files; see --help");
  if (std::string why = check_paths(inputs, {out, report, next, sections_cache}); !why.empty()) return fail(why);
  return analyze(inputs, allow_errors, budget, sections_cache, context, out, report, next);
}
