#include "analysis/memory/levels_common.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/core/stats.hpp"

namespace memhier::analysis::levels {

namespace {
std::string fmt(double v) { return significant(v, 4); }
}  // namespace

std::string significant(double v, int digits) {
  std::ostringstream s;
  s.precision(digits);
  s << v;
  return s.str();
}

double median_or_nan(std::vector<double> v) { return v.empty() ? NAN : median(std::move(v)); }

double Point::med(const std::string& c) const {
  auto it = samples.find(c);
  return it == samples.end() ? NAN : median_or_nan(it->second);
}
double Point::lo(const std::string& c) const {
  auto it = samples.find(c);
  return it == samples.end() || it->second.empty() ? NAN : *std::min_element(it->second.begin(), it->second.end());
}
double Point::hi(const std::string& c) const {
  auto it = samples.find(c);
  return it == samples.end() || it->second.empty() ? NAN : *std::max_element(it->second.begin(), it->second.end());
}
double Point::spread(const std::string& c) const {
  double s = std::isfinite(lo(c)) ? hi(c) - lo(c) : 0;
  if (c == "latency_cycles" && std::isfinite(med("latency_min_cycles")) && std::isfinite(med("latency_max_cycles")))
    s = std::max(s, hi("latency_max_cycles") - lo("latency_min_cycles"));
  return s;
}

std::vector<Point> points(const std::vector<BenchRun>& runs, const std::string& family) {
  std::vector<Point> out;
  std::map<std::string, std::size_t> at;
  for (const auto& r : runs)
    for (const BenchEntry* e : r.family(family)) {
      const std::string key = e->params.str();
      auto it = at.find(key);
      if (it == at.end()) {
        it = at.emplace(key, out.size()).first;
        out.push_back(Point{key, e->params, {}});
      }
      for (const auto& [k, v] : e->counters) out[it->second].samples[k].push_back(v);
    }
  return out;
}

std::vector<const Point*> select(const std::vector<Point>& ps, const std::map<std::string, std::string>& want) {
  std::vector<const Point*> out;
  for (const auto& p : ps) {
    bool ok = true;
    for (const auto& [k, v] : want) ok = ok && p.params.get_or(k, "\x01") == v;
    if (ok) out.push_back(&p);
  }
  return out;
}

const Point* best(const std::vector<const Point*>& ps, const std::string& counter) {
  const Point* b = nullptr;
  for (const Point* p : ps)
    if (std::isfinite(p->med(counter)) && (!b || p->med(counter) > b->med(counter))) b = p;
  return b;
}

std::string context_text(const std::vector<BenchRun>& runs, const std::string& key) {
  for (const auto& r : runs)
    if (!r.context_or(key).empty()) return r.context_or(key);
  return "";
}

double context_number(const std::vector<BenchRun>& runs, const std::string& key) {
  const std::string v = context_text(runs, key);
  if (v.empty()) return NAN;
  try {
    return std::stod(v);
  } catch (...) {
    return NAN;
  }
}

double topology_number(const nlohmann::json& t, const std::string& dotted) {
  const nlohmann::json* j = &t;
  std::stringstream ss(dotted);
  std::string part;
  while (std::getline(ss, part, '.')) {
    if (!j->is_object() || !j->contains(part)) return NAN;
    j = &(*j)[part];
  }
  return j->is_number() ? j->get<double>() : NAN;
}

double round_to(double v, int decimals) {
  if (!std::isfinite(v)) return v;
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

nlohmann::json number_or_null(double v, int decimals) {
  return std::isfinite(v) ? nlohmann::json(round_to(v, decimals)) : nlohmann::json();
}

nlohmann::json params_json(const BenchName& b) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : b.params()) {
    if (k == "op") continue;
    try {
      std::size_t used = 0;
      const long long x = std::stoll(v, &used);
      if (used == v.size()) {
        j[k] = x;
        continue;
      }
    } catch (...) {
    }
    j[k] = v;
  }
  return j;
}

nlohmann::json decide_effect(const std::vector<Labelled>& values, const std::string& depends, const std::string& what) {
  nlohmann::json j;
  if (values.size() < 2) {
    j = {{"cycles", nullptr}, {"decided", nullptr},
         {"reason", "only " + std::to_string(values.size()) + " " + what + " measured: nothing to compare"}};
    return j;
  }
  auto [lo, hi] = std::minmax_element(values.begin(), values.end(),
                                      [](const Labelled& a, const Labelled& b) { return a.value < b.value; });
  double noise = kResolutionCycles;
  for (const auto& v : values) noise = std::max(noise, v.spread);
  const double effect = hi->value - lo->value;
  const bool differs = effect > noise;
  std::ostringstream why;
  why << what << ": " << lo->label << " " << fmt(lo->value) << " to " << hi->label << " " << fmt(hi->value)
      << " cycles, a difference of " << fmt(effect) << (differs ? " beyond" : " within")
      << " the noise of " << fmt(noise) << " cycles (the largest spread of one measurement over its clusters and "
      << "repetitions, at least the clock's resolution)";
  j = {{"cycles", round_to(effect, 1)}, {"decided", differs ? depends : std::string("none")},
       {"noise_cycles", round_to(noise, 1)}, {"reason", why.str()}};
  return j;
}

Evidence evidence_of(const std::vector<const Point*>& ps) {
  Evidence e;
  for (const Point* p : ps) e.add(p->name);
  return e;
}

namespace {
nlohmann::json link_figure(const Point* p, double link, double directions) {
  nlohmann::json j;
  const double v = p->med("bytes_per_second");
  j["bytes_per_second"] = number_or_null(v, 0);
  j["pct_of_link"] = std::isfinite(link) && link > 0 ? number_or_null(v / (link * directions) * 100, 1) : nlohmann::json();
  j["benchmark"] = p->name;
  return j;
}
}  // namespace

nlohmann::json link_stream(const std::vector<Point>& ps, Params base, const std::string& op, double link,
                           const std::string& what) {
  base["op"] = op;
  const Point* b = best(select(ps, base), "bytes_per_second");
  if (!b) return nlohmann::json{{"bytes_per_second", nullptr}, {"reason", "no " + what + " " + op + " measured"}};
  nlohmann::json j = link_figure(b, link, 1);
  j["configuration"] = params_json(b->params);
  return j;
}

nlohmann::json link_copies(const std::vector<Point>& ps, const Params& base, const std::vector<std::string>& dirs,
                           double link) {
  nlohmann::json c = nlohmann::json::object();
  for (const auto& d : dirs) {
    Params want = base;
    want["op"] = "copy";
    want["dir"] = d;
    const Point* big = nullptr;
    for (const Point* p : select(ps, want))
      if (!big || p->num("bytes") > big->num("bytes")) big = p;
    if (!big) continue;
    nlohmann::json j = link_figure(big, link, d == "bidir" ? 2 : 1);
    j["bytes"] = big->num("bytes");
    c[d] = j;
  }
  return c;
}

}  // namespace memhier::analysis::levels
