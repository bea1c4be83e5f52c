// One set-associative level of the simulated device: a data cache or a TLB (a TLB is a cache of
// pages: line = page, one sector). Unequal sets, sectors, five index functions and every
// replacement policy of common/policy.hpp (docs/methodology.md, sections sim and policy). LRU and
// FIFO keep their own fast path (recency lists); every other policy runs the common model.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/policy.hpp"
#include "sim/config.hpp"

namespace memhier::sim {

struct LevelStats {
  std::uint64_t accesses = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;         // line misses + sector misses
  std::uint64_t sector_misses = 0;  // the line's tag was present, the sector was not
  std::uint64_t evictions = 0;      // valid lines replaced
};

class CacheModel {
 public:
  explicit CacheModel(const LevelSpec& spec);
  // The per-set policies point at rng_: a CacheModel stays where it was built.
  CacheModel(const CacheModel&) = delete;
  CacheModel& operator=(const CacheModel&) = delete;

  // Looks the address up; on a miss installs its line (or sector). Returns true on a hit.
  bool access(std::uint64_t addr);
  // Empties every set and re-seeds the random generator; clears the statistics.
  void reset();
  void reset_stats();

  std::size_t set_of(std::uint64_t addr) const;
  const LevelSpec& spec() const { return spec_; }
  const LevelStats& stats() const { return stats_; }
  std::size_t sets() const { return nways_.size(); }
  std::uint32_t ways(std::size_t set) const { return nways_[set]; }
  // The line number (address / line_bytes) held by way `way` of `set`, or -1 when empty.
  std::int64_t line_at(std::size_t set, std::uint32_t way) const;
  // Valid lines replaced in (set, way) since the last reset of the statistics.
  std::uint64_t evictions_at(std::size_t set, std::uint32_t way) const { return slot_evictions_[off_[set] + way]; }
  // Summed over the sets: evictions by way number (sized by the largest set).
  std::vector<std::uint64_t> evictions_by_way() const;
  std::vector<std::uint64_t> evictions_by_set() const;

 private:
  std::uint32_t victim(std::size_t set);
  void touch(std::size_t set, std::uint32_t way);
  // Level-wide line -> slot map for wide sets (a line lives in one set only): open addressing,
  // linear probing, backward-shift deletion.
  std::uint32_t map_find(std::uint64_t key) const;
  void map_insert(std::uint64_t key, std::uint32_t slot);
  void map_erase(std::uint64_t key);
  // lru / fifo: per-set circular list of slots, head = most recent (use or insertion).
  void list_push_front(std::size_t set, std::uint32_t slot);
  void list_move_front(std::size_t set, std::uint32_t slot);
  void link_at_head(std::size_t set, std::uint32_t slot);
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  LevelSpec spec_;
  unsigned line_shift_ = 0, sector_shift_ = 0;
  std::uint64_t sector_mask_ = 0;  // sectors per line - 1
  bool sets_pow2_ = false;
  std::uint64_t set_mask_ = 0;
  std::vector<std::uint32_t> off_, nways_;
  std::vector<std::uint64_t> tag_;      // line + 1; 0: empty
  std::vector<std::uint64_t> sectors_;  // valid sectors of the line (bit mask)
  std::vector<std::uint32_t> filled_;   // ways in use per set (ways fill in order, lowest first)
  std::vector<std::uint32_t> prev_, next_, head_;  // lru / fifo recency lists
  bool use_list_ = false;
  bool list_is_lru_ = false;  // lru: hits move to the head; fifo: hits change nothing
  bool use_map_ = false;
  std::vector<std::uint64_t> map_keys_;
  std::vector<std::uint32_t> map_vals_;
  unsigned map_bits_ = 0;
  std::vector<std::unique_ptr<policy::SetPolicy>> policy_;  // per set (every policy but lru/fifo)
  std::vector<std::uint64_t> slot_evictions_;
  std::vector<std::uint32_t> gf2_bytes_;  // gf2 index: the set bits each address byte contributes
  policy::SplitMix64 rng_;  // random: one generator per level, re-seeded by reset()
  // The line last accessed is still resident and most recently used in its set (only access()
  // changes the state), so a repeat access to it needs no lookup and — when the policy's repeated
  // hits change nothing — no policy update.
  bool repeat_shortcut_ = true;
  std::uint64_t last_key_ = 0;
  std::uint32_t last_slot_ = 0;
  LevelStats stats_;
};

}  // namespace memhier::sim
