#include "sim/device.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memhier::sim {

SimDevice::SimDevice(Config cfg) : cfg_(std::move(cfg)), noise_state_(cfg_.noise.seed) {
  for (const auto& l : cfg_.levels) levels_.push_back(l.scratchpad ? nullptr : std::make_unique<CacheModel>(l));
  for (const auto& t : cfg_.tlbs) {
    tlbs_.push_back(std::make_unique<CacheModel>(t));
    tlb_penalty_.push_back(t.miss_penalty_cycles);
  }
  for (const auto& [name, p] : cfg_.paths) {
    Plan plan;
    plan.name = name;
    plan.translated = p.translated;
    for (const auto& ln : p.levels) {
      for (std::size_t i = 0; i < cfg_.levels.size(); ++i)
        if (cfg_.levels[i].name == ln)
          plan.stages.push_back({levels_[i].get(), cfg_.levels[i].hit_latency_cycles, &cfg_.levels[i]});
    }
    plans_.push_back(std::move(plan));
  }
}

namespace {
// hit_latency_map: the extra cycles of a hit at `addr` (0 without a map).
std::uint32_t extra_hit_latency(const LevelSpec& L, std::uint64_t addr) {
  if (L.latency_rows.empty()) return 0;
  std::size_t v = 0;
  for (std::size_t j = 0; j < L.latency_rows.size(); ++j)
    v |= static_cast<std::size_t>(__builtin_parityll(addr & L.latency_rows[j])) << j;
  return L.latency_add[v];
}
}  // namespace

int SimDevice::path_id(const std::string& path) const {
  for (std::size_t i = 0; i < plans_.size(); ++i)
    if (plans_[i].name == path) return static_cast<int>(i);
  return -1;
}

std::uint32_t SimDevice::access(int path, std::uint64_t addr) {
  const Plan& p = plans_[static_cast<std::size_t>(path)];
  std::uint32_t lat = cfg_.dram_latency_cycles;
  for (const Stage& s : p.stages) {
    if (!s.cache || s.cache->access(addr)) {
      lat = s.hit_latency + extra_hit_latency(*s.spec, addr);
      break;
    }
  }
  if (p.translated) {
    for (std::size_t t = 0; t < tlbs_.size(); ++t) {
      const std::uint64_t entry = cfg_.tlbs[t].line_bytes;
      const bool chunked = tlb_chunk_ && tlb_chunk_ < entry && !cfg_.tlbs[t].entry_virtual;
      const std::uint64_t a = chunked ? addr / tlb_chunk_ * entry : addr;
      if (tlbs_[t]->access(a)) break;
      lat += tlb_penalty_[t];
    }
  }
  if (cfg_.noise.active()) lat += noise();
  return cfg_.noise_sd_cycles > 0 ? add_noise(lat) : lat;
}

// Jitter plus rare outliers (NoiseSpec); the generator runs on across chases, as time does.
std::uint32_t SimDevice::noise() {
  auto next = [this] {
    std::uint64_t z = (noise_state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const NoiseSpec& n = cfg_.noise;
  std::uint32_t extra = n.jitter_cycles ? static_cast<std::uint32_t>(next() % (n.jitter_cycles + 1ull)) : 0;
  if (n.outlier_rate > 0 && static_cast<double>(next() >> 11) * 0x1.0p-53 < n.outlier_rate) extra += n.outlier_cycles;
  return extra;
}

std::uint32_t SimDevice::add_noise(std::uint32_t lat) {
  auto next = [this] {  // splitmix64, uniform in (0, 1]
    std::uint64_t z = (noise_rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (static_cast<double>((z ^ (z >> 31)) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  };
  const double g = std::sqrt(-2.0 * std::log(next())) * std::cos(6.283185307179586 * next());  // Box-Muller
  const double v = static_cast<double>(lat) + std::round(cfg_.noise_sd_cycles * g);
  return v > 0 ? static_cast<std::uint32_t>(v) : 0u;
}

void SimDevice::reset() {
  for (auto& l : levels_)
    if (l) l->reset();
  for (auto& t : tlbs_) t->reset();
  noise_rng_ = cfg_.noise_seed * 0xD1B54A32D192ED03ull + noise_salt_;
}

void SimDevice::new_launch() {
  for (std::size_t i = 0; i < levels_.size(); ++i)
    if (levels_[i] && cfg_.levels[i].launch_invalidates) levels_[i]->reset();
}

void SimDevice::reset_stats() {
  for (auto& l : levels_)
    if (l) l->reset_stats();
  for (auto& t : tlbs_) t->reset_stats();
}

const CacheModel* SimDevice::level(const std::string& name) const {
  for (std::size_t i = 0; i < cfg_.levels.size(); ++i)
    if (cfg_.levels[i].name == name) return levels_[i].get();
  return nullptr;
}

const CacheModel* SimDevice::tlb(const std::string& name) const {
  for (std::size_t i = 0; i < cfg_.tlbs.size(); ++i)
    if (cfg_.tlbs[i].name == name) return tlbs_[i].get();
  return nullptr;
}

ChaseOutcome run_chase(SimDevice& dev, const ChaseSpec& s) {
  if (!s.chain || s.chain->empty()) throw std::invalid_argument("empty chain");
  if (s.path < 0) throw std::invalid_argument("unmapped load path");
  const std::vector<std::uint32_t>& chain = *s.chain;
  const std::uint64_t base = dev.config().array_base;
  ChaseOutcome o;
  dev.reset();
  if (s.warm)
    for (std::uint32_t e : chain) dev.access(s.path, base + 4ull * e);
  dev.reset_stats();
  const std::uint64_t records = std::min<std::uint64_t>(s.iters, s.max_records);
  o.index.reserve(records);
  o.latency.reserve(records);
  if (s.hist_bins) o.hist.assign(s.hist_bins, 0);
  const std::uint32_t bw = std::max<std::uint32_t>(1, s.hist_bin_width);
  const std::size_t n = chain.size();
  std::size_t pos = 0;
  std::uint64_t total = 0;
  for (std::uint64_t k = 0; k < s.iters; ++k) {
    const std::uint32_t e = chain[pos];
    if (++pos == n) pos = 0;
    const std::uint32_t lat = dev.access(s.path, base + 4ull * e);
    total += lat;
    if (k < records) {
      o.index.push_back(e);
      o.latency.push_back(lat);
    }
    if (s.hist_bins) ++o.hist[std::min<std::uint64_t>(lat / bw, s.hist_bins - 1)];
  }
  o.accesses = s.iters;
  o.total_cycles = total;
  return o;
}

}  // namespace memhier::sim
