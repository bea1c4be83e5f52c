#include "sim/device.hpp"

#include <algorithm>
#include <stdexcept>

namespace memhier::sim {

SimDevice::SimDevice(Config cfg) : cfg_(std::move(cfg)) {
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
        if (cfg_.levels[i].name == ln) plan.stages.push_back({levels_[i].get(), cfg_.levels[i].hit_latency_cycles});
    }
    plans_.push_back(std::move(plan));
  }
}

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
      lat = s.hit_latency;
      break;
    }
  }
  if (p.translated) {
    for (std::size_t t = 0; t < tlbs_.size(); ++t) {
      if (tlbs_[t]->access(addr)) break;
      lat += tlb_penalty_[t];
    }
  }
  return lat;
}

void SimDevice::reset() {
  for (auto& l : levels_)
    if (l) l->reset();
  for (auto& t : tlbs_) t->reset();
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
