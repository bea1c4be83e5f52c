// Ramps of the Thread-Latency series. docs/methodology.md, section requests_sharing_partitions.
#include "analysis/memory/outstanding_ramp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "analysis/memory/throughput_fit.hpp"

namespace memhier::analysis {
namespace {

constexpr double kUnitRms = 0.15;         // a unit model must explain the slopes within 15 % rms
constexpr double kRunnerUpFactor = 2;     // and every other model must be at least 2 x worse
constexpr double kMinLatencyRatio = 1.3;  // DRAM must be this much slower than the L2 to compare

// Solves the n x n system a x = b (Gaussian elimination with partial pivoting); false if singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>* x) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (std::fabs(a[p][c]) < 1e-12) return false;
    std::swap(a[p], a[c]);
    std::swap(b[p], b[c]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x->assign(n, 0);
  for (std::size_t r = n; r-- > 0;) {
    double s = b[r];
    for (std::size_t k = r + 1; k < n; ++k) s -= a[r][k] * (*x)[k];
    (*x)[r] = s / a[r][r];
  }
  return true;
}

// Least squares of y on the columns of `rows` (each row one observation).
bool least_squares(const std::vector<std::vector<double>>& rows, const std::vector<double>& y, std::vector<double>* coef) {
  const std::size_t m = rows.empty() ? 0 : rows[0].size();
  std::vector<std::vector<double>> ata(m, std::vector<double>(m, 0));
  std::vector<double> aty(m, 0);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < m; ++j) {
      aty[j] += rows[i][j] * y[i];
      for (std::size_t k = 0; k < m; ++k) ata[j][k] += rows[i][j] * rows[i][k];
    }
  return rows.size() >= m && solve(ata, aty, coef);
}

UnitModel fit_unit(const std::vector<SeriesRamp>& rs, const std::string& unit) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const auto& r : rs) {
    std::vector<double> row = {1, r.loads / 32.0};
    if (unit != "instruction") row.push_back(r.loads / (unit == "line" ? r.threads_per_line : r.threads_per_sector));
    rows.push_back(row);
    y.push_back(r.slope);
  }
  UnitModel m;
  m.unit = unit;
  std::vector<double> c;
  if (!least_squares(rows, y, &c)) {
    m.rms_relative = m.worst_relative = INFINITY;
    return m;
  }
  m.per_thread = c[0];
  m.per_instruction = c[1];
  m.per_unit = c.size() > 2 ? c[2] : 0;
  double ss = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double fit = 0;
    for (std::size_t k = 0; k < c.size(); ++k) fit += c[k] * rows[i][k];
    const double rel = (fit - y[i]) / std::max(std::fabs(y[i]), 1e-9);
    ss += rel * rel;
    m.worst_relative = std::max(m.worst_relative, std::fabs(rel));
  }
  m.rms_relative = std::sqrt(ss / rows.size());
  return m;
}

}  // namespace

void pattern_units(const std::string& pattern, double* per_line, double* per_sector) {
  *per_line = *per_sector = 1;
  if (pattern == "unique32") {
    *per_line = 4;
  } else if (pattern.rfind("merge", 0) == 0) {
    const double k = std::atof(pattern.c_str() + 5);
    *per_line = *per_sector = k > 0 ? k : 1;
  }
}

bool fit_series_ramp(const std::vector<double>& threads, const std::vector<double>& latency, SeriesRamp* r) {
  const std::size_t n = std::min(threads.size(), latency.size());
  if (n < 8) return false;
  const double from = threads[n - 1] / 4;
  std::vector<double> x, y;
  for (std::size_t i = 0; i < n; ++i)
    if (threads[i] >= from) {
      x.push_back(threads[i]);
      y.push_back(latency[i]);
    }
  if (x.size() < 4) return false;
  const LineFit f = fit_line(x, y);
  r->intercept = f.a;
  r->slope = f.b;
  r->r2 = f.r2;
  r->first_latency = latency[0];
  r->threads_max = threads[n - 1];
  return true;
}

RampFit fit_ramp_units(const std::vector<SeriesRamp>& ramps) {
  RampFit f;
  std::vector<SeriesRamp> l2;
  for (const auto& r : ramps)
    if (r.source == "l2" && r.slope > 0) l2.push_back(r);
  f.series = static_cast<int>(l2.size());
  if (l2.size() < 4) {
    f.reason = "fewer than 4 L2 series with a rising latency";
    return f;
  }
  for (const char* u : {"line", "sector", "instruction"}) f.models.push_back(fit_unit(l2, u));
  f.ok = true;
  // The instruction model is nested in the other two (their unit term at 0): it stands when it fits
  // and a unit term does not make the fit 2 x better; else the better unit when the other is 2 x worse.
  const UnitModel &line = f.models[0], &sector = f.models[1], &inst = f.models[2];
  const int best = line.rms_relative <= sector.rms_relative ? 0 : 1;
  const double unit_rms = f.models[best].rms_relative, other = f.models[1 - best].rms_relative;
  if (inst.rms_relative <= kUnitRms && kRunnerUpFactor * unit_rms > inst.rms_relative)
    f.chosen = 2;
  else if (unit_rms > kUnitRms)
    f.reason = "no unit explains the slopes within 15 % (best: " + f.models[best].unit + ")";
  else if (other < kRunnerUpFactor * unit_rms)
    f.reason = "lines and sectors explain the slopes about as well (the patterns do not separate them)";
  else
    f.chosen = best;
  return f;
}

SourceVerdict compare_sources(const std::vector<SeriesRamp>& ramps) {
  SourceVerdict v;
  std::map<std::string, const SeriesRamp*> l2;
  v.latency_l2 = v.latency_dram = INFINITY;
  for (const auto& r : ramps) {
    if (r.source == "l2") {
      l2[r.pattern + "/" + std::to_string(r.loads)] = &r;
      v.latency_l2 = std::min(v.latency_l2, r.first_latency);
    } else if (r.source == "dram") {
      v.latency_dram = std::min(v.latency_dram, r.first_latency);
    }
  }
  int rate = 0, table = 0;
  for (const auto& r : ramps) {
    if (r.source != "dram") continue;
    const auto it = l2.find(r.pattern + "/" + std::to_string(r.loads));
    if (it == l2.end() || it->second->slope <= 0 || r.slope <= 0) continue;
    SourceComparison c{r.benchmark, it->second->benchmark, r.slope / it->second->slope,
                       r.first_latency / it->second->first_latency};
    v.pairs.push_back(c);
    if (c.latency_ratio < kMinLatencyRatio) continue;
    const bool closer_to_one = std::fabs(std::log(c.slope_ratio)) < std::fabs(std::log(c.slope_ratio / c.latency_ratio));
    ++(closer_to_one ? rate : table);
  }
  if (rate + table == 0)
    v.reason = v.pairs.empty() ? "no DRAM series with an L2 series of the same pattern and loads"
                               : "DRAM latency less than 1.3 x the L2's: the slopes cannot tell a rate from a table";
  else if (rate > 0 && table > 0)
    v.reason = "the DRAM series disagree (some slopes follow the latency, some do not)";
  else
    v.limit = rate > 0 ? "issue_rate" : "entry_table";
  return v;
}

}  // namespace memhier::analysis
