#include "analysis/compare.hpp"

#include "analysis/topology_fields.hpp"
#include "common/archive_files.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace memhier::analysis {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same: return "SAME";
    case Verdict::better: return "BETTER";
    case Verdict::worse: return "WORSE";
    case Verdict::changed: return "CHANGED";
    case Verdict::info: return "INFO";
  }
  return "?";
}

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::lower: return "lower_is_better";
    case Direction::higher: return "higher_is_better";
    case Direction::structure: return "structure";
    case Direction::unknown: return "unknown";
    case Direction::ignore: return "ignored";
  }
  return "?";
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Rates in [0, 1] are compared by their absolute difference (0 -> 0.02 is not "infinitely worse").
bool is_fraction(const std::string& leaf) {
  return ends_with(leaf, "miss_rate") || leaf == "hit_rate" || contains(leaf, "miss_rate_") || contains(leaf, "probabilit");
}

// Leaves that state the hardware's structure.
const std::set<std::string> kStructuralLeaves = {
    "present",    "size_bytes",   "line_bytes",       "sector_bytes",    "sets",         "ways",
    "replacement", "index_bits",  "page_bytes",       "entries",         "banks",        "bank_width_bytes",
    "broadcasts", "serves_parallel", "needs_alignment", "needs_contiguity", "partitioned", "detected",
    "per_sm",     "shared_with",  "size_carveout",    "size_bracket_bytes", "size_bytes_by_carveout",
    "size_bracket_bytes_by_carveout", "prefetched",
    // sections of the outstanding-request, sharing and L2-partition analyses
    "slices_per_sm", "design", "entries_per_sm", "merge_capacity", "request_unit",
    "max_outstanding_requests_per_sm", "partitions", "interleave_bytes",
    // address translation (issue 11)
    "reach_per_entry_bytes", "pages_per_entry",
    // cache inference (issue 10): the minimal eviction set's size, the index matrix (reduced row
    // echelon form: one matrix, one text). Where misses begin (onset_size_bytes and its bracket) is a
    // measured figure, not structure: with a hashed index the first set overflows at a footprint that
    // depends on where the allocation lies physically (five back-to-back H100 runs of 2026-11-23:
    // 20.5-22.5 MiB, intervals that do not overlap), while the capacity (size_bytes) is gated.
    "ways_one_set", "index_matrix"};
// Path components under which everything is bookkeeping.
const std::set<std::string> kBookkeepingParts = {
    "provenance", "evidence",  "inputs",   "refinement_pending", "measurement", "skipped", "skipped_benchmarks",
    "curve",      "plateaus",  "steps",    "inner_steps",        "configuration", "peak_configuration",
    "departures", "device",    "notes",    "note",               "reason",      "reasons",
    // address_translation: the per-stride detail behind the TLB levels (caches.*_tlb compare them)
    "rises",      "coverage",  "unconfirmed_rises", "smallest_step", "levels_vmm_gap", "levels_vmm",
    // cache inference bookkeeping (issue 10)
    "refinement", "eviction_set"};
// Leaves that are bookkeeping wherever they are.
const std::set<std::string> kBookkeepingLeaves = {
    "benchmark", "peak_benchmark", "confidence", "ambiguity", "accesses", "min", "max", "samples", "bytes",
    "stride", "threshold_pct_of_peak", "cache_bytes", "tolerance", "schema", "rule", "model",
    "readers_per_line", "peak_readers_per_line", "warps_per_sm", "bytes_in_flight_per_sm",
    "size_bytes_lower_bound", "replacements_observed", "theoretical_bytes_per_second",
    "theoretical_bytes_per_clock_per_sm", "reach_bracket_bytes", "full_height_from_stride", "lines_per_run",
    "z_crit", "miss_penalty_lower_bound_cycles",  // a TLB level not saturated: a bound, not its penalty
    "partitions_lower_bound",  // every probed SM in one L2 partition: a bound, not the count
    // cache inference (issue 10): the 50 % point beside a capacity the structure or a fit gives (the
    // curve's feature, kept for comparison: size_bytes carries the capacity), the address bits the
    // index matrix is decided over (the measurement's reach, not the hardware)
    "half_point_bytes", "half_point_bracket_bytes", "index_matrix_bits"};

}  // namespace

Direction counter_direction(const std::string& c) {
  // Where the benchmark ran and how it was set up: not a result.
  if (c == "sm_id" || c == "clock_overhead_cycles") return Direction::ignore;
  if (c == "carveout" || c == "accesses") return Direction::structure;
  if (c == "hit_rate") return Direction::higher;
  if (ends_with(c, "miss_rate") || c == "misses" || ends_with(c, "_misses")) return Direction::lower;
  if (contains(c, "latency") || ends_with(c, "_cycles")) return Direction::lower;
  if (contains(c, "bytes_per_second") || contains(c, "pct_of_peak") || contains(c, "bytes_per_clock") ||
      ends_with(c, "_per_second"))
    return Direction::higher;
  return Direction::unknown;
}

Direction topology_direction(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string p;
  while (std::getline(ss, p, '.')) parts.push_back(p);
  if (parts.empty()) return Direction::unknown;
  std::string leaf = parts.back();
  auto bracket = leaf.find('[');
  if (bracket != std::string::npos) leaf = leaf.substr(0, bracket);
  if (leaf == "confidence") return Direction::unknown;
  if (contains(leaf, "bytes_per_second") || contains(leaf, "pct_of") || contains(leaf, "bytes_per_clock"))
    return Direction::higher;
  if (contains(leaf, "latency") || contains(leaf, "penalty") || ends_with(leaf, "_cycles") ||
      ends_with(leaf, "miss_rate"))
    return Direction::lower;
  // A generic leaf under a measured parent, e.g. shared_memory.latency_by_stride.128
  for (const auto& q : parts) {
    if (contains(q, "latency")) return Direction::lower;
    if (contains(q, "bytes_per_second") || contains(q, "bandwidth")) return Direction::higher;
  }
  return Direction::structure;
}

const char* field_class_name(FieldClass c) {
  switch (c) {
    case FieldClass::structural: return "structural";
    case FieldClass::measured: return "measured";
    case FieldClass::bookkeeping: return "bookkeeping";
  }
  return "?";
}

FieldClass topology_class(const std::string& path, bool is_string) {
  const auto parts = path_parts(path);
  if (parts.empty()) return FieldClass::bookkeeping;
  for (const auto& q : parts)
    if (kBookkeepingParts.count(q)) return FieldClass::bookkeeping;
  // The leaf, or the map it belongs to (size_bytes_by_carveout.0).
  const std::string& leaf = parts.back();
  const std::string parent = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  if (kStructuralLeaves.count(leaf) || ends_with(parent, "_by_carveout")) return FieldClass::structural;
  if (kBookkeepingLeaves.count(leaf) || ends_with(leaf, "_reason") || ends_with(leaf, "_source") ||
      leaf.rfind("theoretical", 0) == 0)
    return FieldClass::bookkeeping;
  if (is_string) return FieldClass::bookkeeping;
  return FieldClass::measured;
}

int CompareResult::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const CompareRow& r) { return r.verdict == v; }));
}

int CompareResult::structural_rows() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) {
    return r.kind == "topology" && r.field_class == "structural";
  }));
}

std::string CompareResult::structure() const {
  if (structural_rows() == 0) return "";
  for (const auto& r : rows)
    if (r.kind == "topology" && r.field_class == "structural" && r.verdict == Verdict::changed) return "CHANGED";
  return "SAME";
}

// ---------------------------------------------------------------------------------------------
// Loading

CompareInput load_compare_input(const std::string& path) {
  CompareInput in;
  in.label = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::runtime_error(path + ": no such file or directory");
  std::string bench_path = path, topo_path;
  if (fs::is_directory(path, ec)) {
    bench_path = existing_maybe_gz((fs::path(path) / "bench.json").string());  // plain or .gz
    if (bench_path.empty())
      throw std::runtime_error(path + ": a directory without bench.json (not a memhier archive)");
    topo_path = (fs::path(path) / "topology.json").string();
    if (!fs::exists(topo_path, ec)) topo_path.clear();
  }
  in.bench = load_bench_json(bench_path);
  if (!topo_path.empty()) {
    std::ifstream f(topo_path);
    if (!f) throw std::runtime_error(topo_path + ": cannot open");
    try {
      nlohmann::json t = nlohmann::json::parse(f);
      if (!t.is_object() || !t.contains("schema") || !t["schema"].is_string() ||
          t["schema"].get<std::string>().rfind("memhier-topology/", 0) != 0)
        throw std::runtime_error(topo_path + ": not a memhier topology report (no schema memhier-topology/N)");
      in.topology = std::move(t);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(topo_path + ": not valid JSON (" + std::string(e.what()) + ")");
    }
  }
  return in;
}

// ---------------------------------------------------------------------------------------------
// Statistics

namespace {

// Exact count of rank arrangements with U <= u for sample sizes n, m (no ties).
double exact_cdf(int n, int m, int u) {
  // f[i][j][k]: ways with i from a, j from b giving U = k (U counts b-before-a pairs).
  const int umax = n * m;
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(umax + 1, 0.0)), cur = prev;
  // Iterative over i (size of a); f(0, j, 0) = 1.
  for (int j = 0; j <= m; ++j) prev[j][0] = 1;
  for (int i = 1; i <= n; ++i) {
    for (auto& row : cur) std::fill(row.begin(), row.end(), 0.0);
    cur[0][0] = 1;
    for (int j = 1; j <= m; ++j)
      for (int k = 0; k <= i * j; ++k) {
        // Largest element is from a (adds j to U) or from b (adds 0).
        double v = cur[j - 1][k];
        if (k >= j) v += prev[j][k - j];
        cur[j][k] = v;
      }
    std::swap(prev, cur);
  }
  double total = 0, below = 0;
  for (int k = 0; k <= umax; ++k) {
    total += prev[m][k];
    if (k <= u) below += prev[m][k];
  }
  return below / total;
}

}  // namespace

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n == 0 || m == 0) return 1.0;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  const int N = n + m;
  std::vector<double> rank(N);
  bool ties = false;
  double tie_term = 0;
  for (int i = 0; i < N;) {
    int j = i;
    while (j + 1 < N && all[j + 1].first == all[i].first) ++j;
    const double r = (i + j) / 2.0 + 1.0;
    for (int k = i; k <= j; ++k) rank[k] = r;
    const double t = j - i + 1;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j + 1;
  }
  double ra = 0;
  for (int i = 0; i < N; ++i)
    if (all[i].second == 0) ra += rank[i];
  const double u1 = ra - n * (n + 1) / 2.0;  // pairs where a > b
  const double mu = n * m / 2.0;
  if (!ties && n <= 20 && m <= 20) {
    const int u = static_cast<int>(std::lround(std::min(u1, n * m - u1)));
    return std::min(1.0, 2.0 * exact_cdf(n, m, u));
  }
  const double var = n * m / 12.0 * ((N + 1) - tie_term / (static_cast<double>(N) * (N - 1)));
  if (var <= 0) return 1.0;  // every value equal
  const double z = std::max(0.0, std::fabs(u1 - mu) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// The smallest test that decides a counter: U test from 4 repetitions a side (the exact two-sided
// p of 4 against 4 can reach 0.029), non-overlapping ranges for 2-3, the threshold alone for 1.
void judge(CompareRow& row, const std::vector<double>& a, const std::vector<double>& b, const CompareOptions& o,
           bool fraction) {
  row.n_base = static_cast<int>(a.size());
  row.n_now = static_cast<int>(b.size());
  const double ma = median(a), mb = median(b);
  row.base = ma;
  row.now = mb;
  double change;
  if (fraction) {
    change = mb - ma;
  } else if (ma == mb) {
    change = 0;
  } else if (std::fabs(ma) < 1e-300) {
    change = mb > 0 ? HUGE_VAL : -HUGE_VAL;
  } else {
    change = (mb - ma) / std::fabs(ma);
  }
  if (std::isfinite(change)) row.change = change;
  // Latencies in cycles: max(floor, threshold x base) cycles (10 cycles, 5 % by default).
  const bool cycles = row.direction == Direction::lower && !fraction &&
                      (ends_with(row.field.empty() ? row.name : row.field, "_cycles") ||
                       contains(row.field.empty() ? row.name : row.field, "latency"));
  const bool beyond = cycles ? std::fabs(mb - ma) >= std::max(o.latency_floor_cycles, o.threshold * std::fabs(ma))
                             : std::fabs(change) > o.threshold;
  bool significant = beyond;
  if (a.size() >= 4 && b.size() >= 4) {
    row.test = "utest";
    row.p_value = mann_whitney_p(a, b);
    significant = beyond && *row.p_value < o.alpha;
  } else if (a.size() >= 2 && b.size() >= 2) {
    row.test = "spread";
    auto [alo, ahi] = std::minmax_element(a.begin(), a.end());
    auto [blo, bhi] = std::minmax_element(b.begin(), b.end());
    const bool overlap = !(*ahi < *blo || *bhi < *alo);
    significant = beyond && !overlap;
    if (beyond && overlap) row.note = "difference within the spread of the repetitions";
  } else {
    row.test = "threshold";
  }
  if (!significant) {
    row.verdict = Verdict::same;
    return;
  }
  const bool up = change > 0;
  switch (row.direction) {
    case Direction::lower: row.verdict = up ? Verdict::worse : Verdict::better; break;
    case Direction::higher: row.verdict = up ? Verdict::better : Verdict::worse; break;
    default: row.verdict = Verdict::changed; break;
  }
}

struct Samples {
  std::map<std::string, std::vector<double>> counters;
  std::string error;  // every run of it failed
  bool present = false;
};

std::string key_of(const BenchEntry& e) {
  return e.params.family().empty() ? e.run_name : e.params.str();
}

// Per benchmark: the counters of every repetition; aggregates (median, else mean) only where a
// benchmark has no iteration run (--benchmark_report_aggregates_only).
std::map<std::string, Samples> collect(const BenchRun& run) {
  std::map<std::string, Samples> out;
  std::map<std::string, std::map<std::string, const BenchEntry*>> aggregates;
  for (const auto& e : run.entries) {
    const std::string k = key_of(e);
    if (e.run_type == "aggregate") {
      aggregates[k][e.aggregate_name] = &e;
      continue;
    }
    Samples& s = out[k];
    if (e.error) {
      if (!s.present) s.error = e.error_message.empty() ? "failed" : e.error_message;
      continue;
    }
    s.present = true;
    s.error.clear();
    for (const auto& [c, v] : e.counters) s.counters[c].push_back(v);
  }
  for (const auto& [k, aggs] : aggregates) {
    if (out.count(k) && (out[k].present || !out[k].error.empty())) continue;
    const BenchEntry* pick = aggs.count("median") ? aggs.at("median") : aggs.count("mean") ? aggs.at("mean") : nullptr;
    if (!pick) continue;
    Samples& s = out[k];
    s.present = true;
    for (const auto& [c, v] : pick->counters) s.counters[c].push_back(v);
  }
  return out;
}

// A latency of the hits or of the misses of a chase rests on that many accesses: fewer than
// kMinSamples on either side never decide alone (INFO).
void few_samples(CompareRow& row, const Samples& a, const Samples& b) {
  if (row.verdict != Verdict::worse && row.verdict != Verdict::better) return;
  if (row.field != "miss_latency_cycles" && row.field != "hit_latency_cycles") return;
  auto count = [&](const Samples& s) {
    auto acc = s.counters.find("accesses"), mis = s.counters.find("misses");
    if (acc == s.counters.end() || mis == s.counters.end()) return -1.0;
    const double m = median(mis->second);
    return row.field == "miss_latency_cycles" ? m : median(acc->second) - m;
  };
  const double na = count(a), nb = count(b);
  if ((na >= 0 && na < kMinSamples) || (nb >= 0 && nb < kMinSamples)) {
    row.verdict = Verdict::info;
    std::ostringstream n;
    n << "rests on " << na << "/" << nb << " accesses: not decisive alone";
    row.note = n.str();
  }
}

// ---------------------------------------------------------------------------------------------
// Topology

void compare_topology(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& o,
                      std::vector<CompareRow>& rows) {
  const FlatTopology fa = flatten(a), fb = flatten(b);
  std::set<std::string> keys;
  for (auto& [k, v] : fa) keys.insert(k);
  for (auto& [k, v] : fb) keys.insert(k);
  for (const auto& k : keys) {
    CompareRow row;
    row.kind = "topology";
    row.name = k;
    const bool ina = fa.count(k), inb = fb.count(k);
    row.base = ina ? fa.at(k) : nlohmann::json();
    row.now = inb ? fb.at(k) : nlohmann::json();
    row.n_base = ina;
    row.n_now = inb;
    const nlohmann::json va = row.base;
    const nlohmann::json vb = row.now;
    const FieldClass cls = topology_class(k, va.is_string() || vb.is_string());
    row.field_class = field_class_name(cls);
    row.direction = cls == FieldClass::structural ? Direction::structure
                    : cls == FieldClass::bookkeeping ? Direction::ignore
                                                     : topology_direction(k);
    if (row.direction == Direction::structure && cls == FieldClass::measured) row.direction = Direction::unknown;
    const bool equal = va == vb || (va.is_number() && vb.is_number() && va.get<double>() == vb.get<double>());
    if (va.is_number() && vb.is_number() && !equal && va.get<double>() != 0)
      row.change = (vb.get<double>() - va.get<double>()) / std::fabs(va.get<double>());
    if (cls == FieldClass::measured && va.is_number() && vb.is_number()) {
      judge(row, {va.get<double>()}, {vb.get<double>()}, o, is_fraction(k));
      row.base = va;  // keep integers as integers
      row.now = vb;
      if (row.verdict == Verdict::changed) {  // no better/worse direction: not a verdict
        row.verdict = Verdict::info;
        row.note = "measured, no better direction";
      }
      rows.push_back(std::move(row));
      continue;
    }
    row.test = "exact";
    if (equal) {
      row.verdict = Verdict::same;
      rows.push_back(std::move(row));
      continue;
    }
    if (cls == FieldClass::bookkeeping) {
      row.verdict = Verdict::info;
      row.note = "bookkeeping";
    } else if (cls == FieldClass::measured) {
      row.verdict = Verdict::info;
      row.note = !ina || va.is_null() ? "measured in new only" : !inb || vb.is_null() ? "measured in base only" : "measured";
    } else if (!ina || !inb || va.is_null() || vb.is_null()) {
      // Determined in one run only: not a contradiction of the other run.
      row.verdict = Verdict::info;
      row.note = !ina ? "only in new" : !inb ? "only in base" : va.is_null() ? "now determined" : "no longer determined";
    } else {
      const StructuralJudgement sj = judge_structural(fa, fb, k, o.size_tolerance);
      row.test = sj.test;
      row.verdict = sj.changed ? Verdict::changed : sj.low_confidence ? Verdict::info : Verdict::same;
      row.note = sj.note;
    }
    rows.push_back(std::move(row));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------

CompareResult compare_runs(const CompareInput& base, const CompareInput& now, const CompareOptions& o) {
  CompareResult r;
  r.base_label = base.label;
  r.now_label = now.label;
  r.options = o;
  const BenchRun &A = base.bench, &B = now.bench;

  // The device: the same GPU model on the same backend (a simulated device is never a real one).
  for (const char* k : {"device_backend", "gpu_name", "compute_capability"})
    if (A.context_or(k, "?") != B.context_or(k, "?")) r.identity_keys_differing.push_back(k);
  r.same_device = r.identity_keys_differing.empty();
  for (const char* k : {"driver_version", "cuda_driver_api", "cuda_runtime", "sm_clock_khz", "mem_clock_khz",
                        "mem_bus_width_bits", "sm_count", "l2_cache_bytes", "smem_per_sm_bytes",
                        "smem_per_block_optin_bytes", "global_mem_bytes", "theoretical_dram_bytes_per_second",
                        "memhier_version", "memhier_plan", "host_name", "library_build_type"}) {
    const std::string va = A.context_or(k, "(absent)"), vb = B.context_or(k, "(absent)");
    if (va != vb) r.context_diffs.push_back({k, va, vb});
  }
  if (!r.same_device && !o.ignore_device) return r;
  if (!r.same_device) r.notes.push_back("different devices compared on request (--ignore-device)");

  auto sa = collect(A), sb = collect(B);
  std::set<std::string> names;
  for (auto& [k, v] : sa) names.insert(k);
  for (auto& [k, v] : sb) names.insert(k);
  for (const auto& name : names) {
    const bool ina = sa.count(name) && (sa[name].present || !sa[name].error.empty());
    const bool inb = sb.count(name) && (sb[name].present || !sb[name].error.empty());
    if (ina != inb) {
      (ina ? r.only_base : r.only_now)++;
      if (o.common_only) continue;
      CompareRow row;
      row.kind = "counter";
      row.name = name;
      row.verdict = Verdict::changed;
      row.test = "exact";
      row.note = ina ? "benchmark only in base" : "benchmark only in new";
      r.rows.push_back(row);
      continue;
    }
    const Samples &a = sa[name], &b = sb[name];
    if (!a.error.empty() || !b.error.empty()) {
      CompareRow row;
      row.kind = "counter";
      row.name = name;
      row.test = "exact";
      if (!b.error.empty() && a.error.empty()) {
        row.verdict = Verdict::worse;
        row.note = "fails now: " + b.error;
      } else if (!a.error.empty() && b.error.empty()) {
        row.verdict = Verdict::better;
        row.note = "failed in base (" + a.error + "), runs now";
      } else {
        row.verdict = Verdict::same;
        row.note = "fails in both: " + b.error;
      }
      r.rows.push_back(row);
      continue;
    }
    std::set<std::string> counters;
    for (auto& [c, v] : a.counters) counters.insert(c);
    for (auto& [c, v] : b.counters) counters.insert(c);
    for (const auto& c : counters) {
      CompareRow row;
      row.kind = "counter";
      row.name = name;
      row.field = c;
      row.direction = counter_direction(c);
      if (row.direction == Direction::ignore) continue;
      // misses duplicates miss_rate where both exist
      if (c == "misses" && counters.count("miss_rate")) continue;
      auto ia = a.counters.find(c), ib = b.counters.find(c);
      if (ia == a.counters.end() || ib == b.counters.end()) {
        // A measured counter a run writes only when it saw such accesses (miss_latency_cycles without
        // misses) bears no verdict; a missing structure counter does.
        const bool measured = row.direction == Direction::lower || row.direction == Direction::higher;
        row.verdict = measured ? Verdict::info : Verdict::changed;
        row.test = "exact";
        row.note = ia == a.counters.end() ? "counter only in new" : "counter only in base";
        if (ia != a.counters.end()) row.base = median(ia->second);
        if (ib != b.counters.end()) row.now = median(ib->second);
        r.rows.push_back(row);
        continue;
      }
      if (row.direction == Direction::structure) {
        CompareOptions exact = o;
        exact.threshold = 0.0;
        judge(row, ia->second, ib->second, exact, false);
        row.test = "exact";
        row.verdict = row.base == row.now ? Verdict::same : Verdict::changed;
        row.p_value.reset();
        row.note.clear();
      } else {
        judge(row, ia->second, ib->second, o, is_fraction(c));
        few_samples(row, a, b);
      }
      r.rows.push_back(row);
    }
  }
  if (o.common_only && (r.only_base || r.only_now))
    r.notes.push_back(std::to_string(r.only_base) + " benchmark(s) only in base and " + std::to_string(r.only_now) +
                      " only in new were not compared (--common-only)");

  if (base.topology && now.topology)
    compare_topology(*base.topology, *now.topology, o, r.rows);
  else if (base.topology || now.topology)
    r.notes.push_back(std::string("topology.json only in ") + (base.topology ? "base" : "new") + ": not compared");
  return r;
}

// ---------------------------------------------------------------------------------------------
// Rendering

namespace {

std::string pct(const CompareRow& row) {
  if (!row.change) {
    if (row.base.is_number() && row.now.is_number() && row.base != row.now) return "new";
    return "";
  }
  std::ostringstream s;
  if (is_fraction(row.kind == "topology" ? row.name : row.field))
    s << std::showpos << std::fixed << std::setprecision(3) << *row.change << " abs";
  else
    s << std::showpos << std::fixed << std::setprecision(1) << 100.0 * *row.change << "%";
  return s.str();
}

std::string test_text(const CompareRow& row) {
  std::ostringstream s;
  s << row.test;
  if (row.p_value) s << " p=" << std::setprecision(3) << *row.p_value;
  if (row.n_base > 1 || row.n_now > 1) s << " n=" << row.n_base << "/" << row.n_now;
  return s.str();
}

std::string what(const CompareRow& row) { return row.field.empty() ? row.name : row.name + " " + row.field; }

std::vector<const CompareRow*> shown(const CompareResult& r, bool all_rows) {
  std::vector<const CompareRow*> v;
  for (const auto& row : r.rows)
    if (all_rows || row.verdict != Verdict::same) v.push_back(&row);
  // Worst first, then changed, better, same.
  auto rank = [](Verdict x) {
    return x == Verdict::worse ? 0 : x == Verdict::changed ? 1 : x == Verdict::better ? 2 : x == Verdict::info ? 3 : 4;
  };
  std::stable_sort(v.begin(), v.end(), [&](const CompareRow* a, const CompareRow* b) { return rank(a->verdict) < rank(b->verdict); });
  return v;
}

std::string summary_line(const CompareResult& r) {
  std::ostringstream s;
  s << r.count(Verdict::worse) << " worse, " << r.count(Verdict::better) << " better, " << r.count(Verdict::changed)
    << " changed, " << r.count(Verdict::same) << " same, " << r.count(Verdict::info) << " info (threshold "
    << 100.0 * r.options.threshold << " %, U-test alpha " << r.options.alpha << ")";
  if (!r.structure().empty()) {
    int changed = 0;
    for (const auto& row : r.rows)
      if (row.kind == "topology" && row.field_class == "structural" && row.verdict == Verdict::changed) ++changed;
    s << "; structure " << r.structure() << " (" << r.structural_rows() << " structural fields, " << changed
      << " changed)";
  }
  return s.str();
}

std::string refusal(const CompareResult& r) {
  std::string s = "different GPUs (";
  for (std::size_t i = 0; i < r.identity_keys_differing.size(); ++i) s += (i ? ", " : "") + r.identity_keys_differing[i];
  return s + " differ); compare anyway with --ignore-device";
}

}  // namespace

std::string render_console(const CompareResult& r, bool all_rows) {
  std::ostringstream o;
  o << "base: " << r.base_label << "\nnew:  " << r.now_label << "\n";
  for (const auto& d : r.context_diffs) o << "context " << d.key << ": " << d.base << " -> " << d.now << "\n";
  if (!r.same_device && !r.options.ignore_device) {
    o << "refused: " << refusal(r) << "\n";
    return o.str();
  }
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  auto v = shown(r, all_rows);
  std::size_t w = 20;
  for (auto* row : v) w = std::max(w, what(*row).size());
  w = std::min<std::size_t>(w, 90);
  if (!v.empty()) {
    o << std::left << std::setw(8) << "verdict" << "  " << std::setw(static_cast<int>(w)) << "benchmark / field" << "  "
      << std::right << std::setw(14) << "base" << "  " << std::setw(14) << "new" << "  " << std::setw(10) << "change"
      << "  test\n";
    for (auto* row : v) {
      o << std::left << std::setw(8) << verdict_name(row->verdict) << "  " << std::setw(static_cast<int>(w)) << what(*row)
        << "  " << std::right << std::setw(14) << show(row->base) << "  " << std::setw(14) << show(row->now) << "  "
        << std::setw(10) << pct(*row) << "  " << test_text(*row);
      if (!row->note.empty()) o << "  (" << row->note << ")";
      o << "\n";
    }
  }
  o << summary_line(r) << "\n";
  return o.str();
}

std::string render_markdown(const CompareResult& r, bool all_rows) {
  std::ostringstream o;
  const bool refused = !r.same_device && !r.options.ignore_device;
  o << "### memhier-compare: " << (refused ? "refused" : r.worse() ? "regression" : "no regression") << "\n\n";
  o << "base `" << r.base_label << "` → new `" << r.now_label << "`\n\n";
  if (!r.context_diffs.empty()) {
    o << "| context | base | new |\n|---|---|---|\n";
    for (const auto& d : r.context_diffs) o << "| " << d.key << " | " << d.base << " | " << d.now << " |\n";
    o << "\n";
  }
  if (refused) {
    o << "**Refused:** " << refusal(r) << "\n";
    return o.str();
  }
  for (const auto& n : r.notes) o << "> " << n << "\n";
  if (!r.notes.empty()) o << "\n";
  o << "**" << summary_line(r) << "**\n\n";
  auto v = shown(r, all_rows);
  if (!v.empty()) {
    o << "| verdict | benchmark / field | base | new | change | test | note |\n|---|---|---:|---:|---:|---|---|\n";
    for (auto* row : v)
      o << "| " << verdict_name(row->verdict) << " | `" << what(*row) << "` | " << show(row->base) << " | "
        << show(row->now) << " | " << pct(*row) << " | " << test_text(*row) << " | " << row->note << " |\n";
  }
  return o.str();
}

nlohmann::json render_json(const CompareResult& r) {
  nlohmann::json j;
  j["format"] = "memhier-compare/1";
  j["base"] = r.base_label;
  j["new"] = r.now_label;
  j["options"] = {{"threshold", r.options.threshold}, {"alpha", r.options.alpha},
                  {"ignore_device", r.options.ignore_device}, {"common_only", r.options.common_only}};
  j["same_device"] = r.same_device;
  j["refused"] = !r.same_device && !r.options.ignore_device;
  j["identity_keys_differing"] = r.identity_keys_differing;
  j["context_differences"] = nlohmann::json::array();
  for (const auto& d : r.context_diffs) j["context_differences"].push_back({{"key", d.key}, {"base", d.base}, {"new", d.now}});
  j["notes"] = r.notes;
  j["only_in_base"] = r.only_base;
  j["only_in_new"] = r.only_now;
  j["summary"] = {{"worse", r.count(Verdict::worse)}, {"better", r.count(Verdict::better)},
                  {"changed", r.count(Verdict::changed)}, {"same", r.count(Verdict::same)},
                  {"info", r.count(Verdict::info)}};
  j["structure"] = r.structure().empty() ? nlohmann::json() : nlohmann::json(r.structure());
  j["worse"] = r.worse();
  j["rows"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json x = {{"kind", row.kind},
                        {"name", row.name},
                        {"field", row.field},
                        {"base", row.base},
                        {"new", row.now},
                        {"change", row.change ? nlohmann::json(*row.change) : nlohmann::json()},
                        {"direction", direction_name(row.direction)},
                        {"class", row.field_class.empty() ? nlohmann::json() : nlohmann::json(row.field_class)},
                        {"test", row.test},
                        {"p_value", row.p_value ? nlohmann::json(*row.p_value) : nlohmann::json()},
                        {"n_base", row.n_base},
                        {"n_new", row.n_now},
                        {"verdict", verdict_name(row.verdict)},
                        {"note", row.note}};
    j["rows"].push_back(std::move(x));
  }
  return j;
}

}  // namespace memhier::analysis
