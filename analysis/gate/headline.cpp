#include "analysis/gate/headline.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/gate/compare.hpp"
#include "common/archive_files.hpp"
#include "common/chase.hpp"
#include "common/trace.hpp"
#include "common/two_class.hpp"

namespace memhier::analysis {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Spread of a sample: twice its median absolute deviation (the interquartile range of a symmetric
// distribution, yet not widened by a minority of samples from another level, e.g. far-partition
// L2 hits among a path's chases); the range for 2 or 3 values.
double spread_of(std::vector<double> v) {
  if (v.size() < 2) return 0;
  auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const std::size_t n = x.size();
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  };
  if (v.size() < 4) return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
  const double m = median(v);
  for (double& x : v) x = std::fabs(x - m);
  return 2 * median(v);
}

// The levels beyond one SM (analysis/memory/levels.hpp): DSMEM remote latency and read bandwidth,
// copies from the L2 by cp.async, bulk and tensor copies, the host's latency, read bandwidth and
// copies, each peer's latency, read bandwidth and copies. A slower NVLink, PCIe or TMA path moves
// one of these.
bool level_headline_kind(const std::string& id, Figure::Kind* kind) {
  // A peer's cold latency adds the peer's DRAM and moves by ~5 % between runs of one board (H200
  // pair, 2026-11-27: 3480-3678 cycles); a line in the owner's L2 is the link itself (±0.5 cycle).
  static const std::set<std::string> latency = {"distributed_shared_memory.latency_cycles", "host_memory.latency_cycles",
                                                "peers.latency_by_state.owner"};
  static const std::set<std::string> bandwidth = {
      "distributed_shared_memory.bandwidth.read.remote_bytes_per_second", "async_copies.methods.cp_async.l2_bytes_per_second",
      "async_copies.methods.bulk.l2_bytes_per_second", "async_copies.methods.tensor.l2_bytes_per_second",
      "host_memory.read.bytes_per_second", "host_memory.copy.h2d.bytes_per_second", "host_memory.copy.d2h.bytes_per_second",
      "peers.read.bytes_per_second", "peers.copy.uni.bytes_per_second", "peers.copy.bidir.bytes_per_second",
      // bytes a persisting L2 set-aside keeps against a streaming co-runner: more is better, judged
      // against a relative threshold as a bandwidth is (docs/methodology.md, section l2_persist)
      "l2_persisting.largest_kept_bytes"};
  std::string plain;  // peers[0].read.bytes_per_second -> peers.read.bytes_per_second
  for (const auto& p : path_parts(id)) plain += (plain.empty() ? "" : ".") + p;
  if (latency.count(plain)) *kind = Figure::Kind::latency;
  else if (bandwidth.count(plain)) *kind = Figure::Kind::bandwidth;
  else return false;
  return true;
}

// Which measured leaves are headline figures, and of which kind.
bool headline_kind(const std::string& id, Figure::Kind* kind) {
  const auto parts = path_parts(id);
  const std::string& leaf = parts.back();
  for (const auto& p : parts)
    if (p == "saturation" || p == "curve" || p == "plateaus" || p == "throughput" || p == "provenance") return false;
  if (starts_with(id, "caches.") && (leaf == "hit_latency_cycles" || leaf == "miss_penalty_cycles")) {
    *kind = Figure::Kind::latency;
    return true;
  }
  if (id == "global_memory.dram_latency_cycles" || id == "shared_memory.latency_cycles" ||
      id == "shared_memory.conflict_law.cycles_per_wavefront" || id == "shared_memory.conflict_law.base_cycles") {
    *kind = Figure::Kind::latency;
    return true;
  }
  if (starts_with(leaf, "peak_") && (ends_with(leaf, "bytes_per_second") || leaf == "peak_bytes_per_clock_per_sm")) {
    *kind = Figure::Kind::bandwidth;
    return true;
  }
  return level_headline_kind(id, kind);
}

// Values of one counter over the repetitions of one benchmark (iteration runs).
std::vector<double> repetition_values(const BenchRun& bench, const std::string& benchmark, const std::string& counter) {
  auto want = BenchName::parse(benchmark);
  std::vector<double> v;
  if (!want) return v;
  const std::string key = want->str();
  for (const auto& e : bench.entries)
    if (e.run_type != "aggregate" && !e.error && e.params.str() == key && e.has(counter)) v.push_back(e.counter(counter));
  return v;
}

// The benchmark a bandwidth figure was read from: its parent's `peak_benchmark` / `benchmark`, or
// global_memory.throughput.<kind>.benchmark for global_memory.peak_<kind>_bytes_per_second.
std::string figure_benchmark(const FlatTopology& f, const std::string& id) {
  const auto dot = id.rfind('.');
  const std::string parent = id.substr(0, dot), leaf = id.substr(dot + 1);
  if (ends_with(leaf, "_bytes_per_second") && !starts_with(leaf, "peak_")) {  // l2_bytes_per_second -> l2_benchmark
    auto it = f.find(parent + "." + leaf.substr(0, leaf.size() - std::string("_bytes_per_second").size()) + "_benchmark");
    if (it != f.end() && it->second.is_string()) return it->second.get<std::string>();
  }
  for (const char* k : {".peak_benchmark", ".benchmark"}) {
    auto it = f.find(parent + k);
    if (it != f.end() && it->second.is_string()) return it->second.get<std::string>();
  }
  if (parent == "global_memory" && starts_with(leaf, "peak_") && ends_with(leaf, "_bytes_per_second")) {
    const std::string kind = leaf.substr(5, leaf.size() - 5 - std::string("_bytes_per_second").size());
    auto it = f.find("global_memory.throughput." + kind + ".benchmark");
    if (it != f.end() && it->second.is_string()) return it->second.get<std::string>();
  }
  return "";
}

void add_repetition_spread(const BenchRun& bench, const FlatTopology& f, Figure& fig) {
  const std::string b = figure_benchmark(f, fig.id);
  if (b.empty()) return;
  const auto v = repetition_values(bench, b, ends_with(fig.id, "per_sm") ? "bytes_per_clock_per_sm" : "bytes_per_second");
  if (v.size() < 2) return;
  fig.spread = spread_of(v);
  fig.spread_samples = static_cast<int>(v.size());
  fig.spread_source = "repetitions";
}

// Merged latency histogram (latency -> accesses) of a load path's counting chases, from their
// traces (directory or pack); empty when the run kept none.
using Histo = std::map<double, double>;
const Histo& path_histogram(const BenchRun& bench, const std::string& path, std::map<std::string, Histo>& cache) {
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  Histo& h = cache[path];
  if (bench.trace_dir().empty()) return h;
  for (const auto* e : bench.family("pchase")) {
    if (e->params.get_or("path", "") != path || e->params.get_or("mode", "") != "count") continue;
    auto text = read_archived_file(bench.trace_dir(), sanitize_for_file(e->params.str()) + ".trace");
    if (!text) continue;
    std::istringstream in(*text);
    const Trace t = read_trace(in, e->params.str());
    if (t.kind != Trace::Kind::histogram) continue;
    const double w = t.hist.bin_width;
    for (std::size_t i = 0; i < t.hist.counts.size(); ++i)
      if (t.hist.counts[i]) h[(i + 0.5) * w] += static_cast<double>(t.hist.counts[i]);
  }
  return h;
}

// Standard deviation of the histogram's accesses within [lo, hi] (a latency level): the figure
// read from a level is its mean, which a few slow accesses inside the level move, so its spread is
// the level's standard deviation rather than a robust one; 0 when fewer than 2 accesses.
double level_spread(const Histo& h, double lo, double hi, double* n) {
  double sum = 0, sq = 0;
  *n = 0;
  for (auto it = h.lower_bound(lo); it != h.end() && it->first <= hi; ++it) {
    *n += it->second;
    sum += it->first * it->second;
    sq += it->first * it->first * it->second;
  }
  if (*n < 2) return 0;
  const double mean = sum / *n;
  return std::sqrt(std::max(0.0, sq / *n - mean * mean));
}

// The latency level of the path (latency_levels_<path>) a cache's hit latency was read from, or
// the next one for its miss penalty; -1 when none.
int level_index(const nlohmann::json& c, const std::string& key, bool miss) {
  const auto& levels = c[key];
  if (!levels.is_array() || levels.empty()) return -1;
  const double hit = c["hit_latency_cycles"].get<double>();
  std::size_t best = 0;
  for (std::size_t i = 1; i < levels.size(); ++i)
    if (std::fabs(levels[i].value("mean_cycles", 0.0) - hit) < std::fabs(levels[best].value("mean_cycles", 0.0) - hit)) best = i;
  const std::size_t at = miss ? best + 1 : best;
  return at < levels.size() ? static_cast<int>(at) : -1;
}

// The hit latency and miss penalty of a cache rest on the accesses of one latency level of its
// path (the level of the hit, or the next one); their spread is that of those accesses (the
// path's counting histograms), else the spread of the path's chases' own hit or miss latencies.
void add_level_spread(const BenchRun& bench, const nlohmann::json& caches, const std::string& name, Figure& fig,
                      std::map<std::string, Histo>& histos) {
  const auto& c = caches.at(name);
  const bool miss = ends_with(fig.id, "miss_penalty_cycles");
  std::string key;
  for (auto& [k, v] : c.items())
    if (starts_with(k, "latency_levels_")) key = k;
  if (key.empty() || !c.contains("hit_latency_cycles") || !c["hit_latency_cycles"].is_number()) return;
  const int at = level_index(c, key, miss);
  const std::string path = key.substr(std::string("latency_levels_").size());
  if (at >= 0) {
    const auto& level = c[key][at];
    fig.samples = static_cast<int>(std::min(level.value("accesses", 0.0), 1e9));
    double n = 0;
    const double s = level_spread(path_histogram(bench, path, histos), level.value("min", 0.0), level.value("max", 0.0), &n);
    if (n >= 2) {
      fig.spread = s;
      fig.spread_samples = static_cast<int>(std::min(n, 1e9));
      fig.spread_source = "level accesses";
      return;
    }
  }
  const std::string counter = miss ? "miss_latency_cycles" : "hit_latency_cycles";
  std::vector<double> v;
  for (const auto* e : bench.family("pchase"))
    if (e->params.get_or("path", "") == path && e->has(counter)) {
      const double misses = e->counter("misses", -1), accesses = e->counter("accesses", -1);
      if ((misses < 0 || accesses < 0 ? 1e9 : miss ? misses : accesses - misses) >= kMinSamples)
        v.push_back(e->counter(counter));
    }
  if (v.size() < 2) return;
  fig.spread = spread_of(v);
  fig.spread_samples = static_cast<int>(v.size());
  fig.spread_source = "family samples";
}

// The bytes a persisting set-aside kept: their spread is the range over the benchmark's trials and
// repetitions (l2_persisting.largest_kept_bytes_range).
void add_kept_spread(const FlatTopology& f, Figure& fig) {
  auto it = f.find("l2_persisting.largest_kept_bytes_range");
  if (it == f.end() || !it->second.is_array() || it->second.size() != 2 || !it->second[0].is_number() ||
      !it->second[1].is_number())
    return;
  fig.spread = it->second[1].get<double>() - it->second[0].get<double>();
  fig.spread_samples = 2;
  fig.spread_source = "range over trials";
}

// Width of the ~95 % interval of a sample's median (the order statistics n/2 ± 0.98·√n, no
// assumption on the distribution): what a spectrum figure, a median of its pattern's accesses, may
// move by from run to run. Twice the MAD is the accesses' own spread and says nothing of that: the
// H100's DRAM accesses are bimodal (~540 and ~730 cycles, near half each), and the median of the
// 32 cold_near accesses read 575 and 730 in runs of two calls (20:49Z, 21:00Z), a false alarm.
double median_interval(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  if (v.size() < 4) return v.empty() ? 0 : v.back() - v.front();
  const double k = 0.98 * std::sqrt(n);
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2 - k)));
  const auto hi = static_cast<std::size_t>(std::min(n - 1, std::ceil(n / 2 + k)));
  return v[hi] - v[lo];
}

// Pattern names of a spectrum trace's labels: its header key `labels` ("0=first_far 1=cold_near
// ..."), or the five patterns of the 32-bit spectrum in archives older than that key.
std::map<int, std::string> spectrum_label_names(const Trace& t) {
  std::map<int, std::string> out;
  auto it = t.meta.find("labels");
  if (it == t.meta.end()) {
    const char* old[] = {"cold_far", "cold_near", "near_hit", "far_revisit", "same_line"};
    for (int i = 0; i < 5; ++i) out[i] = old[i];
    return out;
  }
  std::istringstream in(it->second);
  std::string kv;
  while (in >> kv) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    try {
      out[std::stoi(kv.substr(0, eq))] = kv.substr(eq + 1);
    } catch (const std::exception&) {
    }
  }
  return out;
}

// A pattern whose accesses form two modes (common/two_class; on a Hopper the DRAM accesses of
// first_far, far_new_line, cold_near: through the reader's L2 partition or the other): the median
// moves between the modes with their shares, which the physical placement sets and which change
// from process to process (an H200's far_new_line read 658 and 710 cycles on two boards, its lower
// mode holding 46 % and 43 % of the accesses), so the median's spread is at least the distance
// between the modes, and each mode's median is a figure of its own (`<id>.lower`, `<id>.upper`),
// judged by the interval of its median and from 10 %. At least 64 accesses (32-access patterns stay
// as they are).
void add_spectrum_modes(const std::vector<double>& s, Figure& fig, Headline& h) {
  const TwoClasses c = two_classes(s, 0.1, 3.5, 64);
  if (!c.split) return;
  if (c.high_median - c.low_median > fig.spread) {
    fig.spread = c.high_median - c.low_median;
    fig.spread_source = "two modes of the pattern samples: the medians of both apart";
  }
  std::vector<double> lo, hi;
  for (double x : s) (x < c.cut ? lo : hi).push_back(x);
  for (const auto& [suffix, v, med] : {std::tuple<const char*, const std::vector<double>&, double>{".lower", lo, c.low_median},
                                       {".upper", hi, c.high_median}}) {
    Figure m;
    m.id = fig.id + suffix;
    m.kind = Figure::Kind::latency;
    m.value = med;
    m.spread = median_interval(v);
    m.samples = m.spread_samples = static_cast<int>(v.size());
    m.spread_source = "95 % interval of the median of the mode's samples";
    // A mode's DRAM latency moves with the board and the GPU's state more than a cache's: on H200s
    // (2026-12-03) far_new_line's lower mode read 528-540 cycles in eight runs of one board and 561
    // in a check run on a freshly started one, its upper mode 715-735 and 760 (6 %), so a mode
    // counts from 10 %.
    m.relative_threshold = 0.10;
    h.figures[m.id] = m;
  }
}

// Latency spectrum: median of each pattern's accesses, spread the interval of that median (from
// the family's trace when the run kept it).
void add_spectrum(const BenchRun& bench, const nlohmann::json& topology, Headline& h) {
  const auto& spec = topology.contains("global_memory") && topology["global_memory"].is_object() ? topology["global_memory"].value("latency_spectrum", nlohmann::json())
                                                        : nlohmann::json();
  if (!spec.is_object()) return;
  for (auto& [path, list] : spec.items()) {
    std::map<std::string, std::vector<double>> samples;
    for (const auto* e : bench.family("latency_spectrum")) {
      if (e->params.get_or("path", "") != path || bench.trace_dir().empty()) continue;
      auto text = read_archived_file(bench.trace_dir(), sanitize_for_file(e->params.str()) + ".trace");
      if (!text) continue;
      std::istringstream in(*text);
      const Trace t = read_trace(in, e->params.str());
      const std::map<int, std::string> names = spectrum_label_names(t);
      for (std::size_t i = 0; i < t.label.size() && i < t.latency.size(); ++i) {
        auto n = names.find(t.label[i]);
        if (n != names.end()) samples[n->second].push_back(t.latency[i]);
      }
    }
    for (const auto& p : list) {
      Figure fig;
      fig.id = "spectrum." + path + "." + p.value("pattern", "?");
      fig.kind = Figure::Kind::latency;
      fig.value = p.contains("cycles") ? p["cycles"] : nlohmann::json();
      const auto& s = samples[p.value("pattern", "?")];
      if (!s.empty()) {
        fig.spread = median_interval(s);
        fig.samples = fig.spread_samples = static_cast<int>(s.size());
        fig.spread_source = "95 % interval of the median of the pattern samples";
        add_spectrum_modes(s, fig, h);
      }
      h.figures[fig.id] = fig;
    }
  }
}

}  // namespace

Headline extract_headline(const nlohmann::json& topology, const BenchRun& bench) {
  Headline h;
  h.flat = flatten(topology);
  std::map<std::string, Histo> histos;  // per load path, read once
  for (const auto& [id, v] : h.flat) {
    Figure fig;
    fig.id = id;
    fig.value = v;
    const FieldClass cls = topology_class(id, v.is_string());
    if (cls == FieldClass::structural) {
      if (id.find("size_bracket_bytes") != std::string::npos) continue;  // the range of its sibling
      fig.kind = Figure::Kind::structure;
    } else if (cls != FieldClass::measured || !headline_kind(id, &fig.kind)) {
      continue;
    }
    if (id.find("runs[") != std::string::npos) continue;  // per-run lists (prefetch runs): detail only
    // A bandwidth per clock per SM beside the same bandwidth per second says it twice.
    if (ends_with(id, "peak_bytes_per_clock_per_sm") &&
        h.flat.count(id.substr(0, id.size() - std::string("peak_bytes_per_clock_per_sm").size()) + "peak_bytes_per_second"))
      continue;
    if (fig.kind == Figure::Kind::bandwidth) add_repetition_spread(bench, h.flat, fig);
    if (id == "l2_persisting.largest_kept_bytes") add_kept_spread(h.flat, fig);
    // The host link's latency passes the root complex and the host's memory, whose state the GPU
    // does not set: the lowest of 3 chases of five back-to-back H100 processes spanned 2363 - 2589
    // cycles (9.6 %, 2026-11-27 19:55Z; 2700 in an earlier session), so it counts from 15 %.
    if (id == "host_memory.latency_cycles") fig.relative_threshold = 0.15;
    // The same holds for the copies across the link (cudaMemcpy of pinned host memory): host to
    // device 50.3 - 55.1 GB/s over six back-to-back H100 processes (8.7 %, 2026-11-27 22:03Z),
    // device to host 52.0 - 55.2 GB/s over eleven, so they too count from 15 %.
    if (id == "host_memory.copy.h2d.bytes_per_second" || id == "host_memory.copy.d2h.bytes_per_second")
      fig.relative_threshold = 0.15;
    const auto parts = path_parts(id);
    if (parts.size() == 3 && parts[0] == "caches" && (parts[2] == "hit_latency_cycles" || parts[2] == "miss_penalty_cycles"))
      add_level_spread(bench, topology.at("caches"), parts[1], fig, histos);
    h.figures[id] = fig;
  }
  add_spectrum(bench, topology, h);
  // The DRAM latency is the spectrum's cold_near pattern on the L2-only path when that was measured.
  auto d = h.figures.find("global_memory.dram_latency_cycles");
  auto s = h.figures.find("spectrum.global_cg.cold_near");
  if (d != h.figures.end() && s != h.figures.end() && d->second.value == s->second.value) {
    d->second.spread = s->second.spread;
    d->second.samples = s->second.samples;
    d->second.spread_samples = s->second.spread_samples;
    d->second.spread_source = s->second.spread_source;
  }
  return h;
}

std::string figure_label(const std::string& id) {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"global_memory.peak_read_bytes_per_second", "DRAM read bandwidth"},
      {"global_memory.peak_write_bytes_per_second", "DRAM write bandwidth"},
      {"global_memory.peak_copy_bytes_per_second", "DRAM copy bandwidth"},
      {"global_memory.dram_latency_cycles", "DRAM latency"},
      {"l1_bandwidth.peak_bytes_per_second", "L1 bandwidth"},
      {"l1_bandwidth.peak_bytes_per_clock_per_sm", "L1 bandwidth per SM"},
      {"l2_bandwidth.peak_bytes_per_second", "L2 bandwidth"},
      {"l2_bandwidth.peak_bytes_per_clock_per_sm", "L2 bandwidth per SM"},
      {"l2_bandwidth.shared_lines.peak_bytes_per_second", "L2 bandwidth, shared lines"},
      {"l2_bandwidth.shared_lines.peak_bytes_per_clock_per_sm", "L2 bw per SM, shared lines"},
      {"shared_memory.latency_cycles", "shared memory latency"},
      {"shared_memory.peak_bytes_per_clock_per_sm", "shared memory bandwidth"},
      {"shared_memory.conflict_law.cycles_per_wavefront", "bank law: cycles per wavefront"},
      {"shared_memory.conflict_law.base_cycles", "bank law: base latency"},
      {"shared_memory.banks", "shared memory banks"},
      {"shared_memory.bank_width_bytes", "shared memory bank width"},
      {"distributed_shared_memory.latency_cycles", "DSMEM remote latency"},
      {"distributed_shared_memory.bandwidth.read.remote_bytes_per_second", "DSMEM remote read bandwidth"},
      {"distributed_shared_memory.rank_effect.decided", "DSMEM latency by rank"},
      {"distributed_shared_memory.cluster_effect.decided", "DSMEM latency by cluster size"},
      {"distributed_shared_memory.sm_pair_effect.decided", "DSMEM latency by SM pair"},
      {"async_copies.methods.cp_async.l2_bytes_per_second", "cp.async copy from L2"},
      {"async_copies.methods.bulk.l2_bytes_per_second", "bulk (TMA) copy from L2"},
      {"async_copies.methods.tensor.l2_bytes_per_second", "tensor (TMA) copy from L2"},
      {"host_memory.latency_cycles", "host latency"},
      {"host_memory.cached_in_l2", "host lines cached in L2"},
      {"host_memory.read.bytes_per_second", "host read bandwidth"},
      {"host_memory.copy.h2d.bytes_per_second", "host-to-device copy"},
      {"host_memory.copy.d2h.bytes_per_second", "device-to-host copy"},
      {"l2_persisting.largest_kept_bytes", "persisting L2 bytes kept"}};
  for (const auto& [k, v] : names)
    if (id == k) return v;
  if (starts_with(id, "peers[")) {  // peers[0].read.bytes_per_second -> "peer 0 read bandwidth"
    static const std::vector<std::pair<std::string, std::string>> peer = {
        {".latency_cycles", " latency"}, {".latency_by_state.owner", " latency, line in its L2"},
        {".read.bytes_per_second", " read bandwidth"},
        {".copy.uni.bytes_per_second", " copy"}, {".copy.bidir.bytes_per_second", " copy, both ways"},
        {".cached_in", " lines cached in"}};
    const auto close = id.find(']');
    for (const auto& [k, v] : peer)
      if (id.compare(close + 1, std::string::npos, k) == 0) return "peer " + id.substr(6, close - 6) + v;
  }
  std::string s = starts_with(id, "caches.") ? id.substr(7) : id;
  // A TLB's "size" is its total reach and its "line" the reach of one entry (DESIGN.md keeps the
  // cache keys); capacities per carveout are the 50 % points of the miss-rate curve.
  static const std::vector<std::pair<std::string, std::string>> tlb_words = {
      {".size_bytes", " total reach"}, {".line_bytes", " reach per entry (line)"},
      {".reach_per_entry_bytes", " reach per entry"}, {".ways_one_set", " ways"}};
  if (s.find("_tlb.") != std::string::npos)
    for (const auto& [from, to] : tlb_words)
      if (auto p = s.find(from); p != std::string::npos && p + from.size() == s.size()) s.replace(p, from.size(), to);
  static const std::vector<std::pair<std::string, std::string>> words = {
      {".onset_size_bytes_by_carveout.", " misses begin, carveout "},
      {".ways_one_set", " ways (minimal eviction set)"}, {".slices_per_sm", " slices per SM"},
      {".hit_latency_cycles", " hit latency"}, {".miss_penalty_cycles", " miss penalty"},
      {".size_bytes_by_carveout.", " 50 % point, carveout "}, {".size_bytes", " size"}, {".line_bytes", " line"},
      {".sector_bytes", " fill granularity"}, {".page_bytes", " page"}, {".size_carveout", " size: carveout"},
      {"spectrum.", "spectrum "}, {".", " "}};
  for (const auto& [from, to] : words)
    for (std::size_t p; (p = s.find(from)) != std::string::npos;) s.replace(p, from.size(), to);
  return s;  // never cut: the renderings make room (a long name on a line of its own)
}

std::string figure_order(const std::string& id, Figure::Kind kind) {
  static const std::vector<std::string> sections = {"caches.l1.", "caches.readonly.", "caches.texture.",
                                                    "caches.constant_l1.", "caches.constant_l15.", "caches.l2.",
                                                    "caches.l1_tlb.", "caches.l2_tlb.", "caches.",
                                                    "global_memory.", "l1_bandwidth.", "l2_bandwidth.",
                                                    "shared_memory.", "warp_access.", "spectrum.",
                                                    "distributed_shared_memory.", "async_copies.", "host_memory.", "peers",
                                                    "l2_persisting."};
  std::size_t rank = sections.size();
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (starts_with(id, sections[i])) {
      rank = i;
      break;
    }
  char buf[8];
  std::snprintf(buf, sizeof buf, "%d%02zu", kind == Figure::Kind::structure ? 0 : 1, rank);
  return buf + id;
}

}  // namespace memhier::analysis
