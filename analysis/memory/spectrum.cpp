#include "analysis/memory/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace memhier::analysis {

namespace {

const std::map<std::string, std::string>& pattern_what() {
  static const std::map<std::string, std::string> w = {
      {"first_far", "first touch of a far page after the translations were flushed: page-table walk, DRAM"},
      {"cold_far", "first touch of a far page: TLB miss at every level, cache miss (DRAM)"},
      {"cold_near", "new line of a page just used: TLB hit, cache miss (DRAM)"},
      {"near_hit", "same sector as a cold_near access: cache hit, TLB hit"},
      {"far_revisit", "same sector as a cold_far access, pages later: cache hit, TLB miss"},
      {"far_new_line", "new line of a far page touched long ago: cache miss, TLB miss, page visited before"},
      {"same_line", "next element of the line just loaded: L1 hit (L2 hit when L1 is bypassed)"}};
  return w;
}

bool ends_with(const std::string& k, const std::string& suf) {
  return k.size() > suf.size() && k.compare(k.size() - suf.size(), suf.size(), suf) == 0;
}
bool is_pattern_counter(const std::string& k) {
  return ends_with(k, "_cycles") && k.find("_paired") == std::string::npos && k != "latency_cycles" &&
         k != "clock_overhead_cycles";
}

// Revisit groups by their steps over the group before on the same lines (the difference of
// `revisit_<g>_paired_cycles` and `_paired_before_cycles`: placement cancelled): the smallest
// group is P1 (every GPU measured keeps at least 4 translations in its first level), a step of
// kMargin and three of its standard errors or more starts P2, a second one P3. False when the
// steps are not all there (older runs): the medians decide then.
struct Step {
  double cycles = 0, se = 0;  // the step; its standard error (spread of the differences / sqrt(pages))
};
bool label_by_steps(std::vector<std::pair<int, nlohmann::json*>> revisits, const std::map<int, Step>& steps,
                    double margin) {
  std::sort(revisits.begin(), revisits.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < revisits.size(); ++i)
    if (!steps.count(revisits[i].first)) return false;
  int level = 1;
  double over = 0;
  for (std::size_t i = 0; i < revisits.size(); ++i) {
    nlohmann::json& e = *revisits[i].second;
    if (i) {
      const Step& st = steps.at(revisits[i].first);
      over += st.cycles;
      e["step_cycles"] = st.cycles;
      e["step_se_cycles"] = st.se;
      if (st.cycles >= std::max(margin, 3 * st.se) && level < 3) ++level;  // a step the pairs' noise cannot make
    }
    e["over_smallest_group_cycles"] = over;
    e["p"] = level == 1 ? "P1" : level == 2 ? "P2" : "P3";
  }
  return true;
}

// P labels of 001 Table 3 by construction (and, for the revisit groups, by their steps on the
// same lines, else by their medians).
void label_patterns(nlohmann::json& list, const std::map<int, Step>& steps) {
  std::map<std::string, nlohmann::json*> by;
  std::vector<std::pair<int, nlohmann::json*>> revisits;  // (far pages, entry)
  for (auto& e : list) {
    const std::string p = e["pattern"];
    by[p] = &e;
    if (p.rfind("revisit_", 0) == 0) revisits.push_back({std::stoi(p.substr(8)), &e});
  }
  auto put = [&](const char* pat, const char* label) {
    if (by.count(pat)) (*by[pat])["p"] = label;
  };
  put("near_hit", "P1");
  put("cold_near", "P4");
  put("far_new_line", "P5");
  put("first_far", "P6");
  put("cold_far", "P6");
  put("far_revisit", "P3");
  constexpr double kMargin = 2.5;  // cycles: medians of integer latencies
  if (!revisits.empty() && label_by_steps(revisits, steps, kMargin)) return;
  if (revisits.empty() || !by.count("near_hit")) return;
  // Revisit groups slower than P1 by a margin miss a TLB level: P2; when they spread over two
  // levels (a gap of twice the margin), the upper ones miss the next level too: P3. Groups of
  // fewer than 8 far pages (medians of < 8 accesses) are not labelled.
  const double p1 = (*by["near_hit"])["cycles"];
  std::vector<std::pair<double, nlohmann::json*>> slow;
  for (auto& [g, e] : revisits)
    if (g >= 8 && (*e)["cycles"].get<double>() >= p1 + kMargin) slow.push_back({(*e)["cycles"].get<double>(), e});
  std::sort(slow.begin(), slow.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::size_t cut = slow.size();
  double gap = 2 * kMargin;
  for (std::size_t i = 1; i < slow.size(); ++i)
    if (slow[i].first - slow[i - 1].first >= gap) gap = slow[i].first - slow[i - 1].first, cut = i;
  for (std::size_t i = 0; i < slow.size(); ++i) (*slow[i].second)["p"] = i < cut ? "P2" : "P3";
}

}  // namespace

nlohmann::json spectrum_of(const Dataset& data, Evidence* ev, double* dram) {
  nlohmann::json spec = nlohmann::json::object();
  for (auto* e : data.family("latency_spectrum")) {
    const std::string path = e->params.get_or("path", "?");
    nlohmann::json list = nlohmann::json::array();
    std::map<int, Step> steps;  // revisit group (far pages) -> step over the group before
    for (const auto& [k, v] : e->counters)
      if (k.rfind("revisit_", 0) == 0 && ends_with(k, "_paired_cycles")) {
        const std::string stem = k.substr(0, k.size() - 7);
        const double n = e->counter(stem + "_pages", 0);
        try {
          if (e->has(stem + "_before_cycles") && n > 0)
            steps[std::stoi(k.substr(8))] = {v - e->counter(stem + "_before_cycles"),
                                              e->counter(stem + "_sd_cycles", 0) / std::sqrt(n)};
        } catch (...) {
        }
      }
    for (const auto& [k, v] : e->counters) {
      if (!is_pattern_counter(k)) continue;
      const std::string pn = k.substr(0, k.size() - 7);
      auto w = pattern_what().find(pn);
      std::string what = w != pattern_what().end() ? w->second : "";
      if (pn.rfind("revisit_", 0) == 0)
        what = "cache hit, the last " + pn.substr(8) + " far pages revisited in turn (second round)";
      list.push_back({{"pattern", pn}, {"cycles", v}, {"what", what}, {"p", nullptr}});
      if (pn == "cold_near" && path == "global_cg") *dram = v;
    }
    label_patterns(list, steps);
    spec[path] = list;
    ev->add(e->params.str());
  }
  return spec;
}

}  // namespace memhier::analysis
