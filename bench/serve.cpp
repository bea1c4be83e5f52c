#include "bench/serve.hpp"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "bench/guard.hpp"
#include "bench/output_file.hpp"

namespace memhier {

namespace fs = std::filesystem;

std::string deferral_filter(const std::vector<std::string>& families) {
  if (families.empty()) return "";
  std::string s = "-^(";
  for (std::size_t i = 0; i < families.size(); ++i) s += (i ? "|" : "") + families[i];
  return s + ")/";
}

namespace {

double number_in(const nlohmann::json& ctx, const char* key) {
  if (!ctx.contains(key)) return 0;
  const auto& v = ctx[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return std::strtod(v.get<std::string>().c_str(), nullptr);
  return 0;
}

std::vector<std::string> all_families() {
  std::vector<std::string> v;
  for (const auto& f : family_registry()) v.push_back(f.name);
  return v;
}

bool has_registered(const std::string& family) {
  for (const auto& n : registered_names())
    if (n.rfind(family + "/", 0) == 0) return true;
  return false;
}

class Server {
 public:
  Server(const ServeConfig& c, const ServeHooks& h) : c_(c), h_(h) {}

  bool deferred_left() const { return next_ < c_.deferred.size(); }
  int round() const { return round_; }

  // The next deferred family into memory (nothing when this device registered none of it).
  void run_deferred() {
    const std::string family = c_.deferred[next_++];
    if (!has_registered(family)) return;
    const fs::path part = c_.out_dir / (".deferred-" + family + ".json");
    if (h_.run("^" + family + "/", part.string(), {}) > 0) parts_.push_back(read_whole_file(part));
    std::error_code ec;
    fs::remove(part, ec);
  }

  // One round: its requests registered alone (as --plan=none --memhier_extra would), run into
  // refine-N.json; then the deferred families not run yet registered again.
  void run_round(const fs::path& requests) {
    set_extra_requests(load_extra_requests(requests.string()));
    h_.register_families(Plan::none, all_families());
    for (const auto& family : untaken_extra_families())
      throw std::runtime_error(requests.string() + ": '" + family + "' requests are taken by no registered family");
    const fs::path out = c_.out_dir / ("refine-" + std::to_string(round_) + ".json");
    const std::size_t n =
        h_.run(".", out.string(), {{"memhier_plan", "none"}, {"memhier_extra", requests.filename().string()}});
    if (n == 0) throw std::runtime_error(requests.string() + " selects no benchmark");
    set_extra_requests({});
    h_.register_families(c_.plan, std::vector<std::string>(c_.deferred.begin() + static_cast<std::ptrdiff_t>(next_),
                                                           c_.deferred.end()));
    ++round_;
  }

  void merge() {
    std::string names;
    for (const auto& f : c_.deferred) names += (names.empty() ? "" : ",") + f;
    merge_benchmark_json(c_.plan_json, parts_, {{"memhier_deferred", names}});
  }

 private:
  const ServeConfig& c_;
  const ServeHooks& h_;
  std::vector<std::string> parts_;  // the deferred families' runs (JSON texts)
  std::size_t next_ = 0;
  int round_ = 1;
};

}  // namespace

void merge_benchmark_json(const fs::path& path, const std::vector<std::string>& parts,
                          const std::map<std::string, std::string>& context) {
  nlohmann::json j = parse_benchmark_json(read_whole_file(path), path.string());
  auto& ctx = j["context"];
  double failed = number_in(ctx, "memhier_failed_benchmarks"), deferred_wall = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const nlohmann::json p = parse_benchmark_json(parts[i], "a deferred family's output");
    for (const auto& b : p.value("benchmarks", nlohmann::json::array())) j["benchmarks"].push_back(b);
    const auto& pc = p.value("context", nlohmann::json::object());
    failed += number_in(pc, "memhier_failed_benchmarks");
    deferred_wall += number_in(pc, "plan_wall_seconds");
    if (pc.value("memhier_device_fault", "") != "" && ctx.value("memhier_device_fault", "") == "")
      ctx["memhier_device_fault"] = pc["memhier_device_fault"];
    if (pc.value("sm_clock_throttled", "") == "true") ctx["sm_clock_throttled"] = "true";
    if (pc.contains("sm_clock_measured_mhz_end")) ctx["sm_clock_measured_mhz_end"] = pc["sm_clock_measured_mhz_end"];
  }
  ctx["memhier_failed_benchmarks"] = std::to_string(static_cast<long long>(failed));
  ctx["deferred_wall_seconds"] = deferred_wall;
  for (const auto& [k, v] : context) ctx[k] = v;
  replace_whole_file(path, j.dump() + "\n");
}

int serve(const ServeConfig& c, const ServeHooks& h) {
  Server s(c, h);
  auto last = std::chrono::steady_clock::now();
  try {
    while (fault_log().device_fault.empty()) {
      const fs::path requests = c.dir / ("requests-" + std::to_string(s.round()) + ".json");
      if (fs::exists(requests)) {
        s.run_round(requests);
      } else if (s.deferred_left()) {
        s.run_deferred();
      } else if (fs::exists(c.dir / "stop")) {
        break;
      } else {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() > c.idle_seconds)
          throw std::runtime_error("neither " + requests.filename().string() + " nor stop appeared in " + c.dir.string() +
                                   " for " + std::to_string(static_cast<int>(c.idle_seconds)) + " s");
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      last = std::chrono::steady_clock::now();
    }
    // After a device fault the guard marks the rest not run (quickly): the plan's JSON names them.
    while (s.deferred_left()) s.run_deferred();
    s.merge();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memhier-bench: serving stopped: %s\n", e.what());
    try {
      s.merge();  // what the deferred families measured so far is kept
    } catch (const std::exception& e2) {
      std::fprintf(stderr, "memhier-bench: %s\n", e2.what());
    }
    return 2;
  }
  return fault_log().device_fault.empty() ? 0 : 3;
}

}  // namespace memhier
