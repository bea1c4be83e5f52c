// The L2's slices from the per-SM latency of many lines (analysis/l2/l2_slices.hpp).
// docs/methodology.md, section l2_slices.
#include "analysis/l2/l2_slices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "analysis/core/field.hpp"
#include "analysis/core/stats.hpp"
#include "analysis/l2/l2_partitions.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

constexpr double kGroupCorrelation = 0.8;  // SMs whose line vectors correlate this well see one pattern
constexpr double kLinkNoises = 3;          // lines closer than 3 x the noise distance are one class
constexpr double kTrim = 0.9;              // the distance keeps the smallest 90 % of per-SM differences

struct UnionFind {
  std::vector<std::size_t> p;
  explicit UnionFind(std::size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  std::size_t find(std::size_t x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void join(std::size_t a, std::size_t b) { p[find(a)] = find(b); }
};

// Dense labels 0..k-1 of the union-find roots (in first-seen order); -1 where `valid` is false.
std::vector<int> labels(UnionFind& u, const std::vector<bool>& valid, int* count) {
  std::map<std::size_t, int> id;
  std::vector<int> out(valid.size(), -1);
  for (std::size_t i = 0; i < valid.size(); ++i)
    if (valid[i]) out[i] = id.emplace(u.find(i), static_cast<int>(id.size())).first->second;
  *count = static_cast<int>(id.size());
  return out;
}

// Mean of the smallest kTrim share of |a - b| over the finite pairs (NaN when none).
double trimmed_distance(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& buf) {
  buf.clear();
  for (std::size_t j = 0; j < a.size(); ++j)
    if (std::isfinite(a[j]) && std::isfinite(b[j])) buf.push_back(std::fabs(a[j] - b[j]));
  if (buf.empty()) return NAN;
  const std::size_t keep = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(kTrim * buf.size())));
  std::nth_element(buf.begin(), buf.begin() + (keep - 1), buf.end());
  double s = 0;
  for (std::size_t i = 0; i < keep; ++i) s += buf[i];
  std::sort(buf.begin(), buf.begin() + keep);  // nth_element leaves the first `keep` unsorted but smallest
  return s / keep;
}

// Per line, per slot of `slots`: the median over passes.
std::vector<std::vector<double>> line_vectors(const SliceData& d, const std::vector<std::size_t>& slots) {
  const std::size_t n = d.offsets.size();
  std::vector<std::vector<double>> v(n, std::vector<double>(slots.size(), NAN));
  std::vector<double> xs;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < slots.size(); ++j) {
      xs.clear();
      for (const auto& pass : d.lat)
        if (std::isfinite(pass[slots[j]][k])) xs.push_back(pass[slots[j]][k]);
      if (!xs.empty()) v[k][j] = median(xs);
    }
  return v;
}

}  // namespace

bool load_slice_data(const Dataset& data, SliceData* out, std::string* benchmark) {
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("l2_slices")) {
      if (e->params.get_or("op", "fingerprint") != "fingerprint") continue;
      const Trace* t = data.trace(*e, r);
      if (!t || t->label.size() != t->index.size()) continue;
      SliceData d;
      try {
        for (const auto& s : trace_list(*t, "sm_ids"))
          d.sm_ids.push_back(static_cast<unsigned>(std::stoul(s)));
        for (const auto& s : trace_list(*t, "line_offsets"))
          d.offsets.push_back(std::stoull(s));
        if (t->meta.count("page_bytes")) d.page_bytes = std::stoull(t->meta.at("page_bytes"));
        if (t->meta.count("repeats")) d.repeats = std::max(1, std::stoi(t->meta.at("repeats")));
      } catch (const std::exception&) {
        continue;  // a header that is not numbers: not a fingerprint this analysis reads
      }
      const std::size_t n = d.offsets.size();
      if (n == 0 || d.sm_ids.empty() || d.page_bytes == 0) continue;
      int passes = 0;
      for (auto l : t->label) passes = std::max(passes, l + 1);
      d.lat.assign(passes, std::vector<std::vector<double>>(d.sm_ids.size(), std::vector<double>(n, NAN)));
      for (std::size_t k = 0; k < t->index.size(); ++k) {
        const std::size_t slot = t->index[k] / n, line = t->index[k] % n;
        if (slot < d.sm_ids.size()) d.lat[t->label[k]][slot][line] = static_cast<double>(t->latency[k]) / d.repeats;
      }
      *out = std::move(d);
      *benchmark = e->params.str();
      return true;
    }
  return false;
}

std::vector<std::vector<std::size_t>> sm_groups(const SliceData& d) {
  const std::size_t sms = d.sm_ids.size();
  std::vector<std::size_t> all(sms);
  std::iota(all.begin(), all.end(), 0);
  const auto v = line_vectors(d, all);  // [line][slot]
  const std::size_t n = v.size();
  std::vector<std::vector<double>> z(sms, std::vector<double>(n, 0));
  std::vector<bool> usable(sms, false);
  for (std::size_t s = 0; s < sms; ++s) {
    double sum = 0, cnt = 0;
    for (std::size_t k = 0; k < n; ++k)
      if (std::isfinite(v[k][s])) sum += v[k][s], ++cnt;
    if (cnt < 3) continue;
    const double mean = sum / cnt;
    double ss = 0;
    for (std::size_t k = 0; k < n; ++k) {
      z[s][k] = std::isfinite(v[k][s]) ? v[k][s] - mean : 0;
      ss += z[s][k] * z[s][k];
    }
    if (ss <= 0) continue;
    for (auto& x : z[s]) x /= std::sqrt(ss);
    usable[s] = true;
  }
  UnionFind u(sms);
  for (std::size_t a = 0; a < sms; ++a)
    for (std::size_t b = a + 1; b < sms; ++b)
      if (usable[a] && usable[b] && std::inner_product(z[a].begin(), z[a].end(), z[b].begin(), 0.0) >= kGroupCorrelation)
        u.join(a, b);
  int count = 0;
  const auto lab = labels(u, usable, &count);
  std::vector<std::vector<std::size_t>> groups(count);
  for (std::size_t s = 0; s < sms; ++s)
    if (lab[s] >= 0) groups[lab[s]].push_back(s);
  return groups;
}

LineClasses classify_lines(const SliceData& d, const std::vector<std::size_t>& slots) {
  LineClasses c;
  const std::size_t n = d.offsets.size();
  if (d.lat.size() < 2) {
    c.reason = "one pass: no line measured twice, so no noise to tell classes apart by";
    return c;
  }
  const auto v = line_vectors(d, slots);
  std::vector<double> buf, self;
  std::vector<double> a(slots.size()), b(slots.size());
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < slots.size(); ++j) a[j] = d.lat[0][slots[j]][k], b[j] = d.lat[1][slots[j]][k];
    const double x = trimmed_distance(a, b, buf);
    if (std::isfinite(x)) self.push_back(x);
  }
  if (self.empty()) {
    c.reason = "no line measured in two passes by these SMs";
    return c;
  }
  c.noise_cycles = median(self);
  c.threshold_cycles = kLinkNoises * c.noise_cycles + 1.0 / d.repeats;
  std::vector<bool> valid(n, false);
  for (std::size_t k = 0; k < n; ++k)
    valid[k] = std::any_of(v[k].begin(), v[k].end(), [](double x) { return std::isfinite(x); });
  std::vector<float> dist(n * n, NAN);
  UnionFind u(n);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t q = p + 1; q < n; ++q) {
      if (!valid[p] || !valid[q]) continue;
      const double x = trimmed_distance(v[p], v[q], buf);
      dist[p * n + q] = static_cast<float>(x);
      if (x <= c.threshold_cycles) u.join(p, q);
    }
  c.line_class = labels(u, valid, &c.classes);
  c.within_max_cycles = 0;
  c.between_min_cycles = INFINITY;
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t q = p + 1; q < n; ++q) {
      const float x = dist[p * n + q];
      if (!std::isfinite(x)) continue;
      if (c.line_class[p] == c.line_class[q]) c.within_max_cycles = std::max<double>(c.within_max_cycles, x);
      else c.between_min_cycles = std::min<double>(c.between_min_cycles, x);
    }
  const double t = c.threshold_cycles;
  std::ostringstream why;
  if (c.within_max_cycles > 2 * t)
    why << "a class is wider than two link distances (" << c.within_max_cycles << " cycles against " << t
        << "): lines chained through intermediates, the classes are not separated";
  else if (std::isfinite(c.between_min_cycles) && c.between_min_cycles < 2 * t)
    why << "two classes lie " << c.between_min_cycles << " cycles apart, within two link distances (" << t
        << "): no clear gap between one slice and the next";
  c.reason = why.str();
  c.ok = c.reason.empty() && c.classes > 0;
  return c;
}

namespace {

// Classes joined over several classifications of the same lines: a line's tuple of classes.
std::vector<int> join_classes(const std::vector<const LineClasses*>& cs, std::size_t n, int* count) {
  std::map<std::vector<int>, int> id;
  std::vector<int> out(n, -1);
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<int> key;
    bool ok = true;
    for (const auto* c : cs) {
      ok = ok && c->line_class[k] >= 0;
      key.push_back(c->line_class[k]);
    }
    if (ok) out[k] = id.emplace(key, static_cast<int>(id.size())).first->second;
  }
  *count = static_cast<int>(id.size());
  return out;
}

// Labels the classes by the translations across offset bits (class 0 gets 0; a bit's column is the
// label difference it makes, a new unit vector the first time it reaches an unlabelled class) and
// checks every single-bit pair against them: true when the classes are GF(2)^bits, 2^bits of them.
bool xor_columns(const std::vector<std::tuple<int, int, int>>& edges, int classes, std::map<int, std::uint64_t>* column,
                 int* bits) {
  std::map<int, std::uint64_t> label = {{0, 0}};
  int next = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto [k, a, b] : edges)
      for (auto [x, y] : {std::pair<int, int>{a, b}, {b, a}}) {
        if (!label.count(x)) continue;
        if (!column->count(k)) {
          (*column)[k] = label.count(y) ? label[x] ^ label[y] : x == y ? 0 : (next < 63 ? (1ull << next++) : 0);
          changed = true;
        }
        if (!label.count(y)) {
          label[y] = label[x] ^ (*column)[k];
          changed = true;
        }
      }
  }
  bool linear = static_cast<int>(label.size()) == classes;
  for (auto [k, a, b] : edges)
    if (!label.count(a) || !label.count(b) || !column->count(k) || (label[a] ^ label[b]) != (*column)[k]) linear = false;
  std::set<std::uint64_t> distinct;
  for (auto& [c, l] : label) distinct.insert(l);
  *bits = next;
  return linear && static_cast<int>(distinct.size()) == classes && (1 << next) == classes;
}

// The slice function over the page-offset bits: per bit the share of single-bit pairs whose class
// changes; an XOR matrix when every bit moves every class to one fixed class (a translation) and the
// translations label the classes consistently.
json hash_json(const SliceData& d, const std::vector<int>& cls, int classes) {
  json h = json::object();
  const std::size_t n = d.offsets.size();
  std::map<std::uint64_t, std::size_t> at;
  for (std::size_t k = 0; k < n; ++k) at[d.offsets[k]] = k;
  int low = 64, high = -1;
  for (std::uint64_t b = 1; b < d.page_bytes; b <<= 1) {
    const int k = __builtin_ctzll(b);
    if (k >= 7) low = std::min(low, k), high = std::max(high, k);
  }
  json influence = json::object();
  std::map<int, std::map<int, int>> trans;  // bit -> class -> class across the bit (-2: inconsistent)
  std::vector<std::tuple<int, int, int>> edges;  // (bit, from, to)
  bool consistent = true;
  for (int k = low; k <= high; ++k) {
    std::size_t pairs = 0, moved = 0;
    for (std::size_t p = 0; p < n; ++p) {
      const std::uint64_t o = d.offsets[p];
      if (o & (1ull << k)) continue;
      auto it = at.find(o | (1ull << k));
      if (it == at.end() || (o / d.page_bytes) != (it->first / d.page_bytes)) continue;
      const int a = cls[p], b = cls[it->second];
      if (a < 0 || b < 0) continue;
      ++pairs;
      moved += a != b;
      edges.emplace_back(k, a, b);
      for (auto [x, y] : {std::pair<int, int>{a, b}, {b, a}}) {
        auto f = trans[k].find(x);
        if (f == trans[k].end()) trans[k][x] = y;
        else if (f->second != y) consistent = false;
      }
    }
    if (pairs) influence[std::to_string(k)] = {{"pairs", pairs}, {"class_changes", static_cast<double>(moved) / pairs}};
  }
  h["bits"] = influence;
  std::vector<int> in_hash;
  for (auto it = influence.begin(); it != influence.end(); ++it)
    if (it.value()["class_changes"].get<double>() > 0) in_hash.push_back(std::stoi(it.key()));
  std::sort(in_hash.begin(), in_hash.end());
  h["bits_that_change_the_slice"] = in_hash;
  const bool pow2 = classes > 0 && (classes & (classes - 1)) == 0;
  if (!consistent) {
    h["xor_of_offset_bits"] = false;
    h["reason"] = "flipping one offset bit takes lines of one class to several classes: the slice is not an XOR of offset bits "
                  "(with the bits above the page as a constant)";
    return h;
  }
  std::map<int, std::uint64_t> column;
  int next = 0;
  const bool linear = pow2 && xor_columns(edges, classes, &column, &next);
  h["xor_of_offset_bits"] = linear;
  if (!linear) {
    h["reason"] = pow2 ? "the translations across offset bits do not label the classes as an XOR function would"
                       : std::to_string(classes) + " classes: not a power of two, so not an XOR of address bits";
    return h;
  }
  json masks = json::array();  // per index bit: the offset bits whose parity it takes
  for (int i = 0; i < next; ++i) {
    std::uint64_t m = 0;
    for (auto [k, col] : column)
      if ((col >> i) & 1) m |= 1ull << k;
    masks.push_back(m);
  }
  h["index_bits"] = next;
  h["offset_masks"] = masks;
  return h;
}

// Lines classed by each partition's SMs: the count per partition is its slices (when every
// partition's classes are separated and agree); their join must be the all-SM classes.
void per_partition(const SliceData& d, const LineClasses& all, bool enough, const std::vector<std::vector<unsigned>>& partitions,
                   const Evidence& ev, json& j) {
  if (partitions.empty()) {
    set_null(j, "slices_per_partition",
             "no partition map (l2_partitions): classes over every SM count the combinations of one slice per partition", ev);
    set_null(j, "slices", "needs the slices per partition", ev);
    return;
  }
  std::map<unsigned, std::size_t> slot_of;
  for (std::size_t s = 0; s < d.sm_ids.size(); ++s) slot_of[d.sm_ids[s]] = s;
  std::vector<LineClasses> per;
  json pj = json::array();
  std::string bad;
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    std::vector<std::size_t> slots;
    for (unsigned id : partitions[p])
      if (slot_of.count(id)) slots.push_back(slot_of[id]);
    if (slots.empty()) {
      bad = "partition " + std::to_string(p) + " has no SM in the fingerprint";
      break;
    }
    per.push_back(classify_lines(d, slots));
    const LineClasses& c = per.back();
    pj.push_back({{"sms", slots.size()}, {"line_classes", c.ok ? json(c.classes) : json(nullptr)},
                  {"between_classes_min_cycles", std::isfinite(c.between_min_cycles) ? json(c.between_min_cycles) : json(nullptr)},
                  {"within_class_max_cycles", c.within_max_cycles}, {"reason", c.reason}});
    if (!c.ok && bad.empty()) bad = "partition " + std::to_string(p) + ": " + c.reason;
  }
  j["by_partition"] = pj;
  if (bad.empty())
    for (const auto& c : per)
      if (c.classes != per.front().classes)
        bad = "the partitions' SMs tell " + std::to_string(per.front().classes) + " and " + std::to_string(c.classes) +
              " classes apart";
  if (bad.empty()) {
    std::vector<const LineClasses*> ptrs;
    for (const auto& c : per) ptrs.push_back(&c);
    int joined = 0;
    join_classes(ptrs, d.offsets.size(), &joined);
    j["joined_partition_classes"] = joined;
    if (joined != all.classes)
      bad = "the partitions' classes joined give " + std::to_string(joined) + " classes, every SM together " +
            std::to_string(all.classes);
  }
  if (!bad.empty()) {
    set_null(j, "slices_per_partition", bad, ev);
    set_null(j, "slices", "needs the slices per partition", ev);
    return;
  }
  const int s = per.front().classes;
  const std::string note = "lines told apart by the latencies each partition's SMs see, the same count in all " +
                           std::to_string(per.size()) + " partitions; slices reached in the same time from every SM "
                           "of a partition would be counted as one";
  set_value(j, "slices_per_partition", s, enough ? 0.6 : 0.4, ev, note);
  set_value(j, "slices", s * static_cast<int>(per.size()), enough ? 0.6 : 0.4, ev,
            "slices per partition x the partitions of the map");
}

}  // namespace

namespace {

// The split of one reference's slowdowns at their largest gap, however few lines lie above it (a
// slice holds a few per cent of the lines): a split when the gap is at least 4 robust deviations
// of either class (at least the resolution `floor`).
TwoClass slow_class_split(std::vector<double> v, double floor) {
  TwoClass c;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.size() < 3) return c;
  std::sort(v.begin(), v.end());
  std::size_t cut = 0;
  for (std::size_t i = 0; i + 1 < v.size(); ++i)
    if (v[i + 1] - v[i] > v[cut + 1] - v[cut]) cut = i;
  const std::vector<double> fast(v.begin(), v.begin() + cut + 1), slow(v.begin() + cut + 1, v.end());
  const double spread = std::max({floor, fast.size() > 2 ? robust_sigma(fast) : floor, slow.size() > 2 ? robust_sigma(slow) : floor});
  c.fast = median(fast);
  c.slow = median(slow);
  c.threshold = 0.5 * (v[cut] + v[cut + 1]);
  c.split = v[cut + 1] - v[cut] >= 4 * spread;
  return c;
}

}  // namespace

bool load_contention_data(const Dataset& data, ContentionData* out, std::string* benchmark) {
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("l2_slices")) {
      if (e->params.get_or("op", "") != "contention") continue;
      const Trace* t = data.trace(*e, r);
      if (!t || t->label.size() != t->index.size()) continue;
      ContentionData c;
      try {
        for (const auto& x : trace_list(*t, "line_offsets"))
          c.offsets.push_back(std::stoull(x));
        for (const auto& x : trace_list(*t, "refs"))
          c.refs.push_back(static_cast<std::uint32_t>(std::stoul(x)));
        for (const auto& x : trace_list(*t, "probe_sms"))
          c.probe_sm.push_back(static_cast<unsigned>(std::stoul(x)));
        if (t->meta.count("page_bytes")) c.page_bytes = std::stoull(t->meta.at("page_bytes"));
        if (t->meta.count("repeats")) c.repeats = std::max(1, std::stoi(t->meta.at("repeats")));
        if (t->meta.count("copies")) c.copies = static_cast<std::uint32_t>(std::max(1, std::stoi(t->meta.at("copies"))));
      } catch (const std::exception&) {
        continue;
      }
      const std::size_t n = c.offsets.size(), block = n * c.copies, refs = c.refs.size();
      if (n == 0 || refs == 0 || c.probe_sm.size() != block || c.page_bytes == 0) continue;
      std::vector<std::vector<double>> loaded(refs, std::vector<double>(block, NAN));
      std::vector<double> quiet(block, NAN);
      bool fits = true;
      for (std::size_t k = 0; k < t->index.size(); ++k) {
        const std::size_t ref = t->index[k] / block, lc = t->index[k] % block;
        const double v = t->latency[k] > 0 ? static_cast<double>(t->latency[k]) : NAN;  // 0: the probe did not run
        if (t->label[k] == 1 && ref < refs) loaded[ref][lc] = v;
        else if (t->label[k] == 0 && ref == refs) quiet[lc] = v;
        else fits = false;
      }
      if (!fits) continue;
      c.slowdown.assign(refs, std::vector<double>(block, NAN));
      for (std::size_t k = 0; k < refs; ++k)
        for (std::size_t lc = 0; lc < block; ++lc) c.slowdown[k][lc] = (loaded[k][lc] - quiet[lc]) / c.repeats;
      *out = std::move(c);
      *benchmark = e->params.str();
      return true;
    }
  return false;
}

ContentionClasses contention_classes(const ContentionData& c, const std::vector<unsigned>& sms) {
  ContentionClasses r;
  const std::size_t n = c.offsets.size();
  const std::set<unsigned> mine(sms.begin(), sms.end());
  auto on_mine = [&](std::size_t lc) { return sms.empty() || mine.count(c.probe_sm[lc]) > 0; };
  std::vector<std::vector<int>> member_of(n);  // the references whose slow class holds the line
  std::vector<double> slow_all, fast_all;
  std::vector<bool> measured(n, false);
  std::vector<std::vector<std::uint32_t>> sets;
  r.threshold.assign(c.refs.size(), NAN);
  r.ref_class.assign(c.refs.size(), -1);
  for (std::size_t k = 0; k < c.refs.size(); ++k) {
    std::vector<double> per(n, NAN), xs;
    for (std::size_t l = 0; l < n; ++l) {
      xs.clear();
      for (std::uint32_t cp = 0; cp < c.copies; ++cp)
        if (on_mine(l * c.copies + cp) && std::isfinite(c.slowdown[k][l * c.copies + cp])) xs.push_back(c.slowdown[k][l * c.copies + cp]);
      if (!xs.empty()) per[l] = median(xs), measured[l] = true;
    }
    const TwoClass split = slow_class_split(per, 1.0 / c.repeats);
    const std::uint32_t ref = c.refs[k];
    if (!split.split || (std::isfinite(per[ref]) && per[ref] <= split.threshold)) {
      ++r.refs_without_split;  // no slow class, or the reference itself (where these SMs timed it) not in it
      continue;
    }
    std::vector<std::uint32_t> set;
    for (std::size_t l = 0; l < n; ++l) {
      if (!std::isfinite(per[l])) continue;
      if (per[l] > split.threshold) set.push_back(static_cast<std::uint32_t>(l)), slow_all.push_back(per[l]);
      else fast_all.push_back(per[l]);
    }
    r.threshold[k] = split.threshold;
    const auto same = std::find(sets.begin(), sets.end(), set);
    r.ref_class[k] = static_cast<int>(same - sets.begin());
    if (same != sets.end()) continue;  // the same slice again (another partition's refs)
    for (auto l : set) member_of[l].push_back(static_cast<int>(sets.size()));
    sets.push_back(set);
  }
  r.line_class.assign(n, -1);
  for (std::size_t l = 0; l < n; ++l) {
    if (!measured[l]) continue;
    if (member_of[l].empty()) ++r.uncovered;
    else if (member_of[l].size() > 1) ++r.conflicts;
    else r.line_class[l] = member_of[l][0];
  }
  r.classes = static_cast<int>(sets.size());
  if (!slow_all.empty()) r.slow_median_cycles = median(slow_all);
  if (!fast_all.empty()) r.fast_median_cycles = median(fast_all);
  std::ostringstream why;
  if (r.classes == 0) why << "no reference's hammering split the lines into a slow and a fast class";
  else if (r.conflicts) why << r.conflicts << " lines slowed down with the references of two different classes";
  else if (r.uncovered) why << r.uncovered << " lines slowed down with no reference (the run stopped before covering them)";
  r.reason = why.str();
  r.ok = r.reason.empty();
  return r;
}

std::size_t probe_disagreements(const ContentionData& c, const ContentionClasses& r, std::size_t* records) {
  std::size_t bad = 0;
  *records = 0;
  for (std::size_t k = 0; k < c.refs.size() && k < r.threshold.size(); ++k) {
    if (!std::isfinite(r.threshold[k]) || r.ref_class[k] < 0) continue;
    for (std::size_t lc = 0; lc < c.slowdown[k].size(); ++lc) {
      const double x = c.slowdown[k][lc];
      const int cls = r.line_class[lc / c.copies];
      if (!std::isfinite(x) || cls < 0) continue;
      ++*records;
      bad += (x > r.threshold[k]) != (cls == r.ref_class[k]);
    }
  }
  return bad;
}

namespace {

// Per offset bit, the fingerprint distance between the two lines of each single-bit pair: bits
// whose pairs are as close as a line to itself leave the slice alone; the others move it.
json bit_distances(const SliceData& d, double near_cycles) {
  std::vector<std::size_t> all(d.sm_ids.size());
  std::iota(all.begin(), all.end(), 0);
  const auto v = line_vectors(d, all);
  std::map<std::uint64_t, std::size_t> at;
  for (std::size_t k = 0; k < d.offsets.size(); ++k) at[d.offsets[k]] = k;
  json out = json::object();
  std::vector<double> buf;
  for (int b = 7; (1ull << b) < d.page_bytes; ++b) {
    std::vector<double> ds;
    for (std::size_t p = 0; p < d.offsets.size(); ++p) {
      const std::uint64_t o = d.offsets[p];
      if (o & (1ull << b)) continue;
      auto it = at.find(o | (1ull << b));
      if (it == at.end()) continue;
      const double x = trimmed_distance(v[p], v[it->second], buf);
      if (std::isfinite(x)) ds.push_back(x);
    }
    if (ds.empty()) continue;
    const double near = static_cast<double>(std::count_if(ds.begin(), ds.end(), [&](double x) { return x <= near_cycles; })) / ds.size();
    out[std::to_string(b)] = {{"pairs", ds.size()}, {"median_distance_cycles", median(ds)}, {"near_share", near}};
  }
  return out;
}

// The fingerprint's part of the section (its keys at the top level of `l2_slices`).
void fingerprint_section(const SliceData& d, const std::string& bench, const std::vector<std::vector<unsigned>>& partitions, json& j) {
  Evidence ev;
  ev.add(bench);
  j["benchmark"] = bench;
  j["sms"] = d.sm_ids.size();
  j["lines"] = d.offsets.size();
  j["passes"] = d.lat.size();
  j["repeats"] = d.repeats;
  std::vector<double> all;  // hit latency over every SM and line
  for (const auto& pass : d.lat)
    for (const auto& sm : pass)
      for (double x : sm)
        if (std::isfinite(x)) all.push_back(x);
  if (!all.empty()) {
    std::sort(all.begin(), all.end());
    j["hit_latency_cycles"] = {{"median", median(all)}, {"p05", all[all.size() / 20]}, {"p95", all[all.size() * 19 / 20]}};
  }
  json gj = json::array();  // SM groups by correlation: who sees the lines alike
  for (const auto& g : sm_groups(d)) {
    json ids = json::array();
    for (auto s : g) ids.push_back(d.sm_ids[s]);
    gj.push_back(ids);
  }
  j["sm_groups_by_correlation"] = gj;
  std::vector<std::size_t> all_slots(d.sm_ids.size());
  std::iota(all_slots.begin(), all_slots.end(), 0);
  const LineClasses lc = classify_lines(d, all_slots);
  j["noise_cycles"] = lc.noise_cycles;
  j["link_threshold_cycles"] = lc.threshold_cycles;
  if (lc.threshold_cycles > 0) j["bit_distances"] = bit_distances(d, lc.threshold_cycles);
  if (!lc.ok) {
    set_null(j, "line_classes", lc.reason.empty() ? "no class found" : lc.reason, ev);
    set_null(j, "slices_per_partition", "the fingerprint's lines fall into no separated classes: " + lc.reason, ev);
    set_null(j, "slices", "needs the slices per partition", ev);
    return;
  }
  j["within_class_max_cycles"] = lc.within_max_cycles;
  j["between_classes_min_cycles"] = std::isfinite(lc.between_min_cycles) ? json(lc.between_min_cycles) : json(nullptr);
  std::vector<int> sizes(lc.classes, 0);
  for (int c : lc.line_class)
    if (c >= 0) ++sizes[c];
  const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
  const double lines = static_cast<double>(std::accumulate(sizes.begin(), sizes.end(), 0));
  const double unseen = lc.classes * std::pow(1 - 1.0 / lc.classes, lines);
  j["lines_per_class"] = {{"min", *lo}, {"max", *hi}};
  j["expected_unseen_classes"] = unseen;  // if lines spread evenly over this many classes
  std::ostringstream note;
  note << "classes of lines whose latency vectors over " << d.sm_ids.size() << " SMs agree within " << lc.threshold_cycles
       << " cycles (3 x the pass-to-pass noise " << lc.noise_cycles << " + 1/repeats); the closest two classes "
       << lc.between_min_cycles << " cycles apart, the widest class " << lc.within_max_cycles
       << "; slices that every SM reaches in the same time would be one class";
  const bool enough = *lo >= 3 && unseen < 0.5;
  set_value(j, "line_classes", lc.classes, enough ? 0.7 : 0.5, ev, note.str());
  j["hash"] = hash_json(d, lc.line_class, lc.classes);
  per_partition(d, lc, enough, partitions, ev, j);
}

// A SliceData view of the contention lines (offsets and page only), for hash_json.
SliceData offsets_only(const ContentionData& c) {
  SliceData d;
  d.offsets = c.offsets;
  d.page_bytes = c.page_bytes;
  return d;
}

json contention_group_json(std::size_t sms, const ContentionClasses& r) {
  auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  return {{"sms", sms}, {"classes", r.classes}, {"uncovered_lines", r.uncovered}, {"conflicting_lines", r.conflicts},
          {"references_without_split", r.refs_without_split}, {"slow_class_median_cycles", num(r.slow_median_cycles)},
          {"fast_class_median_cycles", num(r.fast_median_cycles)}, {"reason", r.reason}};
}

// True when the groups class every line that two of them timed alike (a one-to-one map of classes).
bool groups_agree(const std::vector<ContentionClasses>& per) {
  for (std::size_t a = 0; a < per.size(); ++a)
    for (std::size_t b = a + 1; b < per.size(); ++b) {
      std::map<int, int> ab, ba;
      for (std::size_t l = 0; l < per[a].line_class.size(); ++l) {
        const int x = per[a].line_class[l], y = per[b].line_class[l];
        if (x < 0 || y < 0) continue;
        const auto fa = ab.emplace(x, y).first, fb = ba.emplace(y, x).first;
        if (fa->second != y || fb->second != x) return false;
      }
    }
  return true;
}

// The count from the contention classes `use`: its lines per slice, the slices the lines may have
// missed (lines differing only in bits that never move a line are one draw), and whether the L2's
// lines (in units of the test lines' spacing) divide among the slices; a count they do not divide
// is a lower bound, not a value.
void decide_count(const ContentionData& c, const ContentionClasses& use, const std::string& how, std::size_t partitions,
                  const std::map<std::string, std::string>& context, const Evidence& ev, json& cj) {
  const int k = use.classes;
  std::vector<int> sizes(k, 0);
  for (int x : use.line_class)
    if (x >= 0) ++sizes[x];
  cj["lines_per_slice"] = {{"min", *std::min_element(sizes.begin(), sizes.end())}, {"max", *std::max_element(sizes.begin(), sizes.end())}};
  cj["hash"] = hash_json(offsets_only(c), use.line_class, k);
  std::uint64_t still = 0, unit = 0;  // offset bits that never move a line; the offsets' common unit
  for (auto it = cj["hash"]["bits"].begin(); it != cj["hash"]["bits"].end(); ++it)
    if (it.value()["class_changes"].get<double>() == 0) still |= 1ull << std::stoi(it.key());
  std::set<std::uint64_t> draws;
  for (std::size_t l = 0; l < c.offsets.size(); ++l) {
    unit = std::gcd(unit, c.offsets[l] % c.page_bytes);
    if (use.line_class[l] >= 0) draws.insert(c.offsets[l] & ~still);
  }
  const double unseen = k * std::pow(1 - 1.0 / k, static_cast<double>(draws.size()));
  cj["independent_lines"] = draws.size();
  cj["expected_unseen_slices"] = unseen;
  const std::string note = "lines that slow down while other SMs hammer one reference line share its slice, every line in "
                           "exactly one reference's slow class; " + how;
  const auto l2 = context.find("l2_cache_bytes");
  const double total = static_cast<double>(k) * static_cast<double>(std::max<std::size_t>(partitions, 1));
  if (l2 != context.end() && unit > 0) {
    const double lines = std::strtod(l2->second.c_str(), nullptr) / static_cast<double>(unit);
    cj["l2_units_per_slice"] = lines / total;
    if (std::fabs(lines / total - std::round(lines / total)) > 1e-9) {
      std::ostringstream why;
      why << "the L2's " << l2->second << " bytes (" << lines << " units of " << unit << " bytes) do not divide among "
          << total << " slices: slices of unequal size, or a slice none of the " << draws.size()
          << " independent test lines reached (" << unseen << " expected if they spread evenly)";
      set_null(cj, "slices_per_partition", why.str(), ev);
      cj["slices_per_partition_at_least"] = k;
      return;
    }
  }
  set_value(cj, "slices_per_partition", k, unseen < 0.5 ? 0.8 : 0.5, ev, note);
}

void contention_section(const Dataset& data, const std::vector<std::vector<unsigned>>& partitions, json& j) {
  ContentionData c;
  std::string bench;
  if (!load_contention_data(data, &c, &bench)) return;
  Evidence ev;
  ev.add(bench);
  json cj = {{"benchmark", bench}, {"lines", c.offsets.size()}, {"copies", c.copies}, {"references", c.refs.size()},
             {"hits", c.repeats}};
  const ContentionClasses all = contention_classes(c, {});
  cj["every_probe"] = contention_group_json(c.probe_sm.size(), all);
  std::vector<ContentionClasses> per;
  json pj = json::array();
  std::string bad;
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    per.push_back(contention_classes(c, partitions[p]));
    pj.push_back(contention_group_json(partitions[p].size(), per.back()));
    if (!per.back().ok && bad.empty()) bad = "partition " + std::to_string(p) + ": " + per.back().reason;
  }
  cj["by_partition"] = pj;
  const ContentionClasses* use = nullptr;
  std::string how;
  std::size_t records = 0;
  const std::size_t disagree = all.ok ? probe_disagreements(c, all, &records) : 0;
  cj["every_probe"]["disagreeing_records"] = disagree;
  cj["every_probe"]["records"] = records;
  if (partitions.empty() && all.ok && records > 0 && disagree * 1000 <= records) {
    use = &all;
    how = "no partition map, but every probe SM, whatever its partition, saw the same lines slow under each reference (" +
          std::to_string(disagree) + " of " + std::to_string(records) + " records disagree): one slice function for every SM";
  } else if (partitions.empty()) {
    bad = all.ok ? "no partition map (l2_partitions), and " + std::to_string(disagree) + " of " + std::to_string(records) +
                       " probe records disagree with the classes over every probe: they may be combinations of one slice per partition"
                 : "every probe: " + all.reason;
  } else if (all.ok && groups_agree(per)) {
    use = &all, bad.clear();
    how = "the partitions' probes class every line both timed alike (one slice function for both): counted over every probe";
  } else if (bad.empty()) {
    for (const auto& r : per)
      if (r.classes != per.front().classes)
        bad = "the partitions' probes count " + std::to_string(per.front().classes) + " and " + std::to_string(r.classes) + " slices";
    if (bad.empty()) use = &per.front(), how = "the same count in every partition";
  }
  if (!use) {
    set_null(cj, "slices_per_partition", bad, ev);
  } else {
    decide_count(c, *use, how, partitions.size(), data.context(), ev, cj);
  }
  j["contention"] = cj;
  // The decision: contention where it decided, else what the fingerprint gave.
  if (has_value(cj, "slices_per_partition") && !cj["slices_per_partition"].is_null()) {
    if (j.contains("slices_per_partition")) j["fingerprint_slices_per_partition"] = j["slices_per_partition"];
    const int k = cj["slices_per_partition"].get<int>();
    set_value(j, "slices_per_partition", k, cj["provenance"]["slices_per_partition"]["confidence"].get<double>(), ev,
              "from the contention run (l2_slices/op:contention)");
    if (partitions.empty())
      set_null(j, "slices", "slices per partition decided, the number of partitions not: the l2_partitions map is undecided", ev);
    else
      set_value(j, "slices", k * static_cast<int>(partitions.size()), cj["provenance"]["slices_per_partition"]["confidence"].get<double>(),
                ev, "slices per partition x the partitions of the map");
    j["slices_from"] = "contention";
    j["hash"] = cj["hash"];
  } else if (cj.contains("slices_per_partition_at_least")) {
    const int k = cj["slices_per_partition_at_least"].get<int>();
    if (j.contains("slices_per_partition") && !j["slices_per_partition"].is_null())
      j["fingerprint_slices_per_partition"] = j["slices_per_partition"];
    set_null(j, "slices_per_partition", cj["provenance"]["slices_per_partition"]["reason"].get<std::string>(), ev);
    set_null(j, "slices", "needs the slices per partition", ev);
    j["slices_per_partition_at_least"] = k;
    j["slices_at_least"] = k * static_cast<int>(std::max<std::size_t>(partitions.size(), 1));
    j["slices_from"] = "contention (a lower bound)";
    j["hash"] = cj["hash"];
  }
}

}  // namespace

json l2_slices_section(const Dataset& data, const std::vector<std::vector<unsigned>>& partitions) {
  SliceData d;
  std::string bench;
  json j = json::object();
  if (load_slice_data(data, &d, &bench)) fingerprint_section(d, bench, partitions, j);
  contention_section(data, partitions, j);
  if (j.empty()) return nullptr;
  if (!j.contains("slices_from") && j.contains("slices_per_partition") && !j["slices_per_partition"].is_null())
    j["slices_from"] = "fingerprint";
  return j;
}

}  // namespace memhier::analysis
