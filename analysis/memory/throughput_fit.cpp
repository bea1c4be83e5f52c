#include "analysis/memory/throughput_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace memhier::analysis {

int bank_wavefronts(std::int64_t stride, int width_bytes, int banks, int bank_width_bytes, int lanes) {
  if (width_bytes <= 0 || banks <= 0 || bank_width_bytes <= 0 || lanes <= 0) return 0;
  const int row = banks * bank_width_bytes;
  const int per_phase = std::max(1, std::min(lanes, row / width_bytes));
  const int words_per_access = std::max(1, width_bytes / bank_width_bytes);
  int total = 0;
  for (int p0 = 0; p0 < lanes; p0 += per_phase) {
    std::map<std::int64_t, std::set<std::int64_t>> words_of_bank;
    for (int l = p0; l < std::min(lanes, p0 + per_phase); ++l) {
      const std::int64_t byte = static_cast<std::int64_t>(l) * stride * width_bytes;
      const std::int64_t w0 = byte / bank_width_bytes;
      for (int k = 0; k < words_per_access; ++k) {
        const std::int64_t w = w0 + k;
        words_of_bank[w % banks].insert(w);
      }
    }
    std::size_t m = 0;
    for (const auto& [b, ws] : words_of_bank) m = std::max(m, ws.size());
    total += static_cast<int>(m);
  }
  return total;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f;
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0) return f;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double den = n * sxx - sx * sx;
  f.b = den != 0 ? (n * sxy - sx * sy) / den : 0;
  f.a = (sy - f.b * sx) / n;
  const double my = sy / n;
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = y[i] - (f.a + f.b * x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - my) * (y[i] - my);
  }
  f.rms = std::sqrt(ss_res / n);
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

namespace {

// One bank layout fitted to every sample.
struct BankCandidate {
  int banks, width;
  LineFit f;
  std::vector<int> wf;
  std::map<int, double> base;  // intercept per access width
};

// One slope (cycles per wavefront) shared by all widths, one intercept per width: a wider
// access pays a fixed extra cost per instruction beyond its wavefronts.
BankCandidate fit_bank_layout(const std::vector<StrideSample>& samples, int banks, int bw) {
  BankCandidate c{banks, bw, {}, {}, {}};
  std::map<int, std::pair<double, double>> sum;  // width -> (sum x, sum y)
  std::map<int, int> cnt;
  for (const auto& s : samples) {
    const int wf = bank_wavefronts(s.stride, s.width_bytes, banks, bw);
    c.wf.push_back(wf);
    sum[s.width_bytes].first += wf - 1;
    sum[s.width_bytes].second += s.latency_cycles;
    ++cnt[s.width_bytes];
  }
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const int w = samples[i].width_bytes;
    const double mx = sum[w].first / cnt[w], my = sum[w].second / cnt[w];
    sxy += (c.wf[i] - 1 - mx) * (samples[i].latency_cycles - my);
    sxx += (c.wf[i] - 1 - mx) * (c.wf[i] - 1 - mx);
  }
  c.f.b = sxx > 0 ? sxy / sxx : 0;
  for (const auto& [w, xy] : sum) c.base[w] = xy.second / cnt[w] - c.f.b * xy.first / cnt[w];
  double ss = 0, st = 0, my_all = 0;
  for (const auto& x : samples) my_all += x.latency_cycles / samples.size();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double r = samples[i].latency_cycles - (c.base[samples[i].width_bytes] + c.f.b * (c.wf[i] - 1));
    ss += r * r;
    st += (samples[i].latency_cycles - my_all) * (samples[i].latency_cycles - my_all);
  }
  c.f.rms = std::sqrt(ss / samples.size());
  c.f.r2 = st > 0 ? 1 - ss / st : 1;
  c.f.a = c.base.begin()->second;  // the narrowest width's intercept
  return c;
}

}  // namespace

BankLawFit fit_bank_law(const std::vector<StrideSample>& samples) {
  BankLawFit best;
  if (samples.size() < 8) {
    best.reason = "fewer than 8 stride samples (" + std::to_string(samples.size()) + ")";
    return best;
  }
  using Cand = BankCandidate;
  std::vector<Cand> cands;
  for (int banks : {8, 16, 32, 64})
    for (int bw : {4, 8}) cands.push_back(fit_bank_layout(samples, banks, bw));
  // Smallest residual; within 2 % of it, the smallest banks x width product (the simpler bank
  // array explains the data as well).
  double min_rms = 1e300;
  for (const auto& c : cands)
    if (c.f.b > 0) min_rms = std::min(min_rms, c.f.rms);
  if (min_rms == 1e300) {
    best.reason = "latency does not grow with the predicted wavefronts for any bank layout (no conflict seen)";
    return best;
  }
  const Cand* pick = nullptr;
  for (const auto& c : cands) {
    if (c.f.b <= 0 || c.f.rms > min_rms * 1.02 + 1e-9) continue;
    if (!pick || c.banks * c.width < pick->banks * pick->width) pick = &c;
  }
  best.ok = true;
  best.banks = pick->banks;
  best.bank_width_bytes = pick->width;
  best.base_cycles = pick->f.a;
  best.cycles_per_wavefront = pick->f.b;
  best.rms_residual = pick->f.rms;
  best.r2 = pick->f.r2;
  best.runner_up_rms = 0;
  best.base_by_width = pick->base;
  for (const auto& c : cands)
    if (&c != pick && c.f.b > 0 && (c.banks * c.width != pick->banks * pick->width || c.f.rms > pick->f.rms * 1.02))
      best.runner_up_rms = best.runner_up_rms == 0 ? c.f.rms : std::min(best.runner_up_rms, c.f.rms);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double pred = pick->base.at(samples[i].width_bytes) + pick->f.b * (pick->wf[i] - 1);
    const double r = samples[i].latency_cycles - pred;
    if (std::fabs(r) > std::max(3.0, 0.10 * pred))
      best.departures.push_back({samples[i].width_bytes, samples[i].stride, samples[i].latency_cycles, pred, pick->wf[i]});
  }
  return best;
}

namespace {
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
}  // namespace

std::vector<Plateau> find_plateaus(const std::vector<double>& y, double rel_step) {
  std::vector<Plateau> out;
  if (y.empty()) return out;
  Plateau cur{0, 0, y[0]};
  std::vector<double> vals{y[0]};
  for (std::size_t i = 1; i < y.size(); ++i) {
    const double lvl = median_of(vals);
    const bool off = std::fabs(y[i] - lvl) > rel_step * std::fabs(lvl);
    const bool next_agrees = i + 1 >= y.size() || std::fabs(y[i + 1] - y[i]) <= rel_step * std::fabs(y[i]) ||
                             std::fabs(y[i + 1] - lvl) > rel_step * std::fabs(lvl);
    if (off && next_agrees) {
      cur.level = lvl;
      out.push_back(cur);
      cur = Plateau{i, i, y[i]};
      vals = {y[i]};
    } else {
      cur.last = i;
      vals.push_back(y[i]);
    }
  }
  cur.level = median_of(vals);
  out.push_back(cur);
  return out;
}

}  // namespace memhier::analysis
