// The simulated device: the cache levels and TLBs of a Config wired into load paths. An access
// costs the hit latency of the first level on its path that hits (DRAM latency when none does)
// plus the miss penalty of every TLB level that misses (translated paths; the TLB walk stops at
// the first level that hits). Every level missed on the way is filled.
#pragma once
#include <utility>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/cache.hpp"
#include "sim/config.hpp"

namespace memhier::sim {

class SimDevice {
 public:
  explicit SimDevice(Config cfg);

  const Config& config() const { return cfg_; }
  // Index of a mapped load path, -1 when the config does not map it.
  int path_id(const std::string& path) const;
  // Latency (cycles, clock overhead excluded) of one load of byte address `addr` on path `path`.
  std::uint32_t access(int path, std::uint64_t addr);
  // Empties every level and TLB (caches start cold, random generators re-seeded).
  void reset();
  // Memory mapped in separately allocated chunks (VMM, bench/wide/wide_sim.cpp): a TLB entry whose reach
  // exceeds `chunk` covers one chunk only (its pages are not contiguous), unless its entries cover
  // virtual regions (entry_scope "virtual"). 0: one contiguous mapping.
  void set_translation_chunk(std::uint64_t chunk) { tlb_chunk_ = chunk; }
  // latency_noise: a different noise sequence per experiment (re-seeded by reset()).
  void set_noise_salt(std::uint64_t salt) { noise_salt_ = salt; }
  void reset_stats();
  // A new kernel launch begins: levels marked launch_invalidates are emptied.
  void new_launch();
  // The noise generators' states: an experiment that must leave the others' noise as it found it
  // (the random-stream trials, sim/streams.cpp) saves them before and restores them after.
  std::pair<std::uint64_t, std::uint64_t> noise_states() const { return {noise_state_, noise_rng_}; }
  void restore_noise_states(std::pair<std::uint64_t, std::uint64_t> s) { noise_state_ = s.first, noise_rng_ = s.second; }

  // nullptr when no cache level / TLB has that name (or the level is a scratchpad).
  const CacheModel* level(const std::string& name) const;
  const CacheModel* tlb(const std::string& name) const;

 private:
  struct Stage {
    CacheModel* cache;  // nullptr: scratchpad, always hits
    std::uint32_t hit_latency;
    const LevelSpec* spec;  // its hit_latency_map, if any
  };
  struct Plan {
    std::string name;
    std::vector<Stage> stages;
    bool translated = false;
  };
  Config cfg_;
  std::vector<std::unique_ptr<CacheModel>> levels_;  // parallel to cfg_.levels (null: scratchpad)
  std::vector<std::unique_ptr<CacheModel>> tlbs_;
  std::vector<std::uint32_t> tlb_penalty_;
  std::vector<Plan> plans_;
  std::uint64_t noise_state_ = 0;  // splitmix64 state of the noise model (cfg_.noise)
  std::uint32_t noise();
  std::uint64_t tlb_chunk_ = 0;
  std::uint64_t noise_salt_ = 0, noise_rng_ = 0;
  std::uint32_t add_noise(std::uint32_t lat);
};

// One P-chase on the simulated device, as the GPU kernel runs it (kernels/pchase.cuh): the
// device starts cold; with `warm`, one untimed pass over the whole chain; then `iters` timed
// accesses from chain[0] on, cyclically. Element e lies at byte address array_base + 4 e.
struct ChaseSpec {
  int path = 0;
  const std::vector<std::uint32_t>* chain = nullptr;
  std::uint64_t iters = 0;
  bool warm = true;
  std::uint32_t max_records = 0;     // per-access records kept (first accesses)
  std::uint32_t hist_bins = 0;       // 0: no histogram
  std::uint32_t hist_bin_width = 1;  // the last bin collects everything above
};

struct ChaseOutcome {
  std::uint64_t accesses = 0;
  std::uint64_t total_cycles = 0;
  std::vector<std::uint32_t> index;    // element read by access k
  std::vector<std::uint32_t> latency;  // its latency
  std::vector<std::uint64_t> hist;
};

// Statistics of the levels (SimDevice::level/tlb) cover the timed accesses only.
ChaseOutcome run_chase(SimDevice& dev, const ChaseSpec& spec);

}  // namespace memhier::sim
