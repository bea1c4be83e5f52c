#include "bench/cli/serve.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "bench/core/guard.hpp"
#include "bench/cli/output_file.hpp"

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

std::string family_of_name(const std::string& name) { return name.substr(0, name.find('/')); }

// A benchmark name as an extended regular expression matching itself.
std::string regex_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) out += '\\';
    out += ch;
  }
  return out;
}

// The filter that selects exactly these registered benchmarks: their names, then only the
// suffixes Google Benchmark itself appends (iterations, repetitions, time kind), so that a name is
// never taken for the beginning of a longer one (".../ilp:4" and ".../ilp:4/op:na").
std::string exact_filter(const std::vector<std::string>& names) {
  std::string alt;
  for (const auto& n : names) alt += (alt.empty() ? "" : "|") + regex_escape(n);
  return "^(" + alt + ")(/(iterations|repeats|threads|min_time|min_warmup_time):[^/]*|/manual_time|/real_time|/process_time)*$";
}

// Between the analyzer's rounds the deferred families run a few benchmarks at a time (a chunk of
// about kChunkSeconds at the pace each family has shown so far), so that a round's requests wait
// for one chunk, not for a whole family (the H200's l2_throughput: 551 benchmarks, 4.6 s, made
// round 2 wait 3.1 s on 2026-12-02).
constexpr double kChunkSeconds = 0.25;
constexpr std::size_t kFirstChunk = 4, kMaxChunk = 48;

class Server {
 public:
  Server(const ServeConfig& c, const ServeHooks& h) : c_(c), h_(h) { refill(); }

  bool deferred_left() const { return !queue_.empty(); }
  int round() const { return round_; }

  // The next chunk of the deferred benchmarks, all of one family, into memory.
  void run_deferred() {
    const std::string family = family_of_name(queue_.front());
    std::size_t n = kFirstChunk;
    if (auto it = pace_.find(family); it != pace_.end() && it->second > 0)
      n = static_cast<std::size_t>(std::clamp(kChunkSeconds / it->second, 1.0, static_cast<double>(kMaxChunk)));
    std::vector<std::string> chunk;
    while (!queue_.empty() && chunk.size() < n && family_of_name(queue_.front()) == family) {
      chunk.push_back(queue_.front());
      queue_.erase(queue_.begin());
    }
    for (const auto& name : chunk) done_.insert(name);
    const fs::path part = c_.out_dir / (".deferred-" + std::to_string(parts_.size()) + ".json");
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t ran = h_.run(exact_filter(chunk), part.string(), {}, true);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ran > 0) {
      parts_.push_back(read_whole_file(part));
      pace_[family] = took / static_cast<double>(ran);
    }
    auto& [count, seconds] = family_done_[family];
    count += ran;
    seconds += took;
    const bool last = queue_.empty() || family_of_name(queue_.front()) != family;
    if (last && c_.progress && count > 0)  // as the progress lines of the plan print a family
      std::fprintf(stderr, "  %-22s %5zu/%zu benchmarks  %6.1f s (deferred)\n", family.c_str(), count, count, seconds);
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
        h_.run(".", out.string(), {{"memhier_plan", "none"}, {"memhier_extra", requests.filename().string()}}, false);
    if (n == 0) throw std::runtime_error(requests.string() + " selects no benchmark");
    set_extra_requests({});
    std::vector<std::string> left;
    for (const auto& f : c_.deferred)
      for (const auto& name : queue_)
        if (family_of_name(name) == f) {
          left.push_back(f);
          break;
        }
    h_.register_families(c_.plan, left);
    refill();
    ++round_;
  }

  void merge() {
    std::string names;
    for (const auto& f : c_.deferred) names += (names.empty() ? "" : ",") + f;
    merge_benchmark_json(c_.plan_json, parts_, {{"memhier_deferred", names}});
  }

 private:
  // The registered benchmarks of the deferred families not run yet, family by family in the order
  // of --memhier_defer, each family's in registration order.
  void refill() {
    queue_.clear();
    for (const auto& f : c_.deferred)
      for (const auto& name : registered_names())
        if (family_of_name(name) == f && !done_.count(name)) queue_.push_back(name);
  }

  const ServeConfig& c_;
  const ServeHooks& h_;
  std::vector<std::string> parts_;  // the deferred chunks' runs (JSON texts)
  std::vector<std::string> queue_;  // deferred benchmarks still to run
  std::set<std::string> done_;
  std::map<std::string, double> pace_;  // family -> seconds per benchmark so far
  std::map<std::string, std::pair<std::size_t, double>> family_done_;  // family -> benchmarks, seconds
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
