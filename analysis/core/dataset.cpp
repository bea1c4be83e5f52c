#include "analysis/core/dataset.hpp"

#include "common/archive_files.hpp"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "analysis/core/validate.hpp"

namespace memhier::analysis {

const std::vector<std::string>& device_identity_keys() {
  static const std::vector<std::string> k = {"device_backend", "gpu_name", "compute_capability", "sm_count",
                                             "l2_cache_bytes", "smem_per_sm_bytes", "gpu_uuid"};
  return k;
}

std::vector<std::string> trace_list(const Trace& t, const std::string& key) {
  std::vector<std::string> out;
  const auto it = t.meta.find(key);
  if (it == t.meta.end()) return out;
  std::stringstream in(it->second);
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

Dataset Dataset::from_runs(std::vector<BenchRun> runs) {
  if (runs.empty()) throw std::runtime_error("no input files");
  Dataset d;
  d.runs_ = std::move(runs);
  d.index();
  return d;
}

Dataset Dataset::load(const std::vector<std::string>& paths, bool allow_errors) {
  if (paths.empty()) throw std::runtime_error("no input files");
  std::vector<BenchRun> runs;
  for (const auto& p : paths) runs.push_back(load_bench_json(p));
  const BenchRun& first = runs.front();
  for (std::size_t i = 1; i < runs.size(); ++i)
    for (const auto& k : device_identity_keys()) {
      auto a = first.context.find(k);
      auto b = runs[i].context.find(k);
      if (a == first.context.end() || b == runs[i].context.end()) continue;
      if (a->second != b->second)
        throw std::runtime_error(runs[i].path + " is from another device than " + first.path + " (" + k +
                                 " '" + b->second + "' vs '" + a->second +
                                 "'); give files of one device only");
    }
  Dataset d;
  for (const auto& r : runs)
    for (const auto& e : r.entries)
      if (e.error) {
        if (!allow_errors)
          throw std::runtime_error(r.path + ": benchmark '" + e.name + "' failed: " + e.error_message +
                                   " (pass --allow-errors to analyze the rest)");
        d.skipped_.push_back(e.name + ": " + e.error_message);
      }
  screen_runs(runs, allow_errors, &d.skipped_);  // what cannot be (analysis/core/validate.hpp)
  d.warnings_ = unknown_family_warnings(runs);
  d.runs_ = std::move(runs);
  d.index();
  return d;
}

void Dataset::index() {
  chases_.clear();
  for (std::size_t r = 0; r < runs_.size(); ++r)
    for (const auto& e : runs_[r].entries) {
      if (e.error || e.run_type == "aggregate") continue;
      const std::string fam = e.params.family();
      if (fam != "pchase" && fam != "tlb") continue;
      Chase c;
      c.family = fam;
      c.path = fam == "tlb" ? "global_cg" : e.params.get_or("path", "");
      c.mode = fam == "tlb" ? "count" : e.params.get_or("mode", "");
      c.bytes = static_cast<std::uint64_t>(e.params.get_int_or("bytes", 0));
      c.stride = static_cast<std::uint64_t>(e.params.get_int_or("stride", 0));
      c.iters = static_cast<std::uint64_t>(e.params.get_int_or("iters", 0));
      if (c.iters == 0) c.iters = static_cast<std::uint64_t>(e.counter("accesses", 0));
      if (c.iters == 0) c.iters = c.chain();
      c.warm = e.params.get_int_or("warm", 1) != 0;
      c.carveout = static_cast<int>(e.params.get_int_or("carveout", -1));
      if (c.bytes == 0 || c.stride == 0) continue;
      c.entry = &e;
      c.run = r;
      chases_.push_back(c);
    }
}

std::vector<const BenchEntry*> Dataset::family(const std::string& fam) const {
  std::vector<const BenchEntry*> out;
  for (const auto& r : runs_) {
    auto f = r.family(fam);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

void Dataset::add_trace(const std::string& bench_name, Trace t) {
  traces_[bench_name] = std::make_shared<Trace>(std::move(t));
  memo_.slots.clear();  // what was computed without this trace
}

const Trace* Dataset::trace(const BenchEntry& e, std::size_t run) const {
  const std::string name = e.params.str();
  auto it = traces_.find(name);
  if (it != traces_.end()) return it->second.get();
  std::shared_ptr<Trace> t;
  const std::string dir = runs_[run].trace_dir();
  if (!dir.empty()) {
    const std::string file = dir + "/" + sanitize_for_file(name) + ".trace";
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
      t = std::make_shared<Trace>(read_trace(file));
    } else if (auto text = read_archived_file(dir, sanitize_for_file(name) + ".trace")) {
      std::istringstream in(*text);  // compressed or packed (docs/formats.md, "Archive files")
      t = std::make_shared<Trace>(read_trace(in, file));
    }
  }
  traces_[name] = t;
  return t.get();
}

const Trace* Dataset::trace(const Chase& c) const { return c.entry ? trace(*c.entry, c.run) : nullptr; }

}  // namespace memhier::analysis
