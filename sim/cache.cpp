#include "sim/cache.hpp"

#include <algorithm>

namespace memhier::sim {

namespace {
unsigned log2u(std::uint64_t x) {
  unsigned n = 0;
  while ((1ull << n) < x) ++n;
  return n;
}
}  // namespace

CacheModel::CacheModel(const LevelSpec& spec) : spec_(spec) {
  line_shift_ = log2u(spec_.line_bytes);
  sector_shift_ = log2u(spec_.sector_bytes);
  sector_mask_ = spec_.line_bytes / spec_.sector_bytes - 1;
  const std::size_t sets = spec_.ways.size();
  sets_pow2_ = (sets & (sets - 1)) == 0;
  set_mask_ = sets - 1;
  nways_ = spec_.ways;
  off_.resize(sets);
  std::uint32_t total = 0, max_ways = 0;
  for (std::size_t s = 0; s < sets; ++s) {
    off_[s] = total;
    total += nways_[s];
    max_ways = std::max(max_ways, nways_[s]);
  }
  tag_.assign(total, 0);
  sectors_.assign(total, 0);
  slot_evictions_.assign(total, 0);
  filled_.assign(sets, 0);
  use_list_ = spec_.replacement.policy == "lru" || spec_.replacement.policy == "fifo";
  list_is_lru_ = spec_.replacement.policy == "lru";
  if (use_list_) {
    prev_.assign(total, 0);
    next_.assign(total, 0);
    head_.assign(sets, 0);
  } else {
    policy::RandomParams rnd;
    rnd.weights = spec_.replacement.weights;
    rnd.seed = spec_.replacement.seed;
    rnd.shared_rng = &rng_;
    policy_.reserve(sets);
    for (std::size_t s = 0; s < sets; ++s) policy_.push_back(policy::make_policy(spec_.replacement.policy, nways_[s], rnd));
    repeat_shortcut_ = policy_[0]->repeat_hit_is_noop();
  }
  use_map_ = max_ways > 8;
  if (use_map_) {
    map_bits_ = 4;
    while ((1ull << map_bits_) < 2ull * total) ++map_bits_;
    map_keys_.assign(1ull << map_bits_, 0);
    map_vals_.assign(1ull << map_bits_, 0);
  }
  if (spec_.index.kind == IndexKind::gf2) {
    gf2_bytes_.assign(8 * 256, 0);
    for (unsigned k = 0; k < 8; ++k)
      for (unsigned v = 0; v < 256; ++v) {
        const std::uint64_t part = static_cast<std::uint64_t>(v) << (8 * k);
        for (std::size_t j = 0; j < spec_.index.rows.size(); ++j)
          gf2_bytes_[k * 256 + v] |= static_cast<std::uint32_t>(__builtin_parityll(part & spec_.index.rows[j])) << j;
      }
  }
  reset();
}

void CacheModel::reset() {
  std::fill(tag_.begin(), tag_.end(), 0);
  std::fill(sectors_.begin(), sectors_.end(), 0);
  std::fill(filled_.begin(), filled_.end(), 0);
  std::fill(map_keys_.begin(), map_keys_.end(), 0);
  for (std::size_t s = 0; s < policy_.size(); ++s) policy_[s]->reset(nways_[s]);
  rng_.reseed(spec_.replacement.seed);
  last_key_ = 0;
  reset_stats();
}

void CacheModel::reset_stats() {
  stats_ = LevelStats{};
  std::fill(slot_evictions_.begin(), slot_evictions_.end(), 0);
}

std::size_t CacheModel::set_of(std::uint64_t addr) const {
  // The set of the whole line: an index reading address bits below the line (a config's table or
  // modulo shift, bits, groups or rows under the line size) must not put one line in two sets.
  addr = (addr >> line_shift_) << line_shift_;
  const IndexSpec& ix = spec_.index;
  switch (ix.kind) {
    case IndexKind::modulo: {
      const std::uint64_t x = addr >> ix.shift;
      return sets_pow2_ ? (x & set_mask_) : (x % nways_.size());
    }
    case IndexKind::bits: {
      std::size_t s = 0;
      for (std::size_t j = 0; j < ix.bits.size(); ++j) s |= static_cast<std::size_t>((addr >> ix.bits[j]) & 1u) << j;
      return s;
    }
    case IndexKind::xor_fold: {
      std::uint64_t s = 0;
      for (const auto& g : ix.groups) s ^= (addr >> g.lo) & ((1ull << g.width) - 1);
      return static_cast<std::size_t>(s);
    }
    case IndexKind::table:
      return ix.table[(addr >> ix.shift) % ix.table.size()];
    case IndexKind::gf2: {
      // The matrix is linear: the set is the XOR of what each address byte contributes (tables
      // built from the rows in the constructor).
      std::size_t s = 0;
      for (unsigned k = 0; k < 8; ++k) s ^= gf2_bytes_[k * 256 + ((addr >> (8 * k)) & 0xFF)];
      return s;
    }
  }
  return 0;
}

void CacheModel::touch(std::size_t set, std::uint32_t way) {
  if (!use_list_) policy_[set]->on_hit(way);
  else if (list_is_lru_) list_move_front(set, off_[set] + way);
  // fifo: a hit changes nothing
}

std::uint32_t CacheModel::victim(std::size_t set) {
  if (!use_list_) return policy_[set]->victim();
  if (filled_[set] < nways_[set]) return filled_[set]++;  // empty ways fill first, lowest way first
  return prev_[head_[set]] - off_[set];                   // the list's tail
}

void CacheModel::list_push_front(std::size_t set, std::uint32_t slot) {
  std::uint32_t& head = head_[set];
  if (filled_[set] == 1) {  // the set's first line
    prev_[slot] = next_[slot] = head = slot;
    return;
  }
  link_at_head(set, slot);
}

void CacheModel::list_move_front(std::size_t set, std::uint32_t slot) {
  std::uint32_t& head = head_[set];
  if (slot == head) return;
  if (slot == prev_[head]) {  // the tail: rotating the circular list makes it the head
    head = slot;
    return;
  }
  next_[prev_[slot]] = next_[slot];
  prev_[next_[slot]] = prev_[slot];
  link_at_head(set, slot);
}

// Inserts an unlinked slot before the head of a non-empty circular list and makes it the head.
void CacheModel::link_at_head(std::size_t set, std::uint32_t slot) {
  std::uint32_t& head = head_[set];
  const std::uint32_t tail = prev_[head];
  next_[tail] = slot;
  prev_[slot] = tail;
  next_[slot] = head;
  prev_[head] = slot;
  head = slot;
}

std::uint32_t CacheModel::map_find(std::uint64_t key) const {
  const std::uint64_t mask = (1ull << map_bits_) - 1;
  for (std::uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - map_bits_);; h = (h + 1) & mask) {
    if (map_keys_[h] == key) return map_vals_[h];
    if (map_keys_[h] == 0) return kNone;
  }
}

void CacheModel::map_insert(std::uint64_t key, std::uint32_t slot) {
  const std::uint64_t mask = (1ull << map_bits_) - 1;
  std::uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - map_bits_);
  while (map_keys_[h] != 0) h = (h + 1) & mask;
  map_keys_[h] = key;
  map_vals_[h] = slot;
}

void CacheModel::map_erase(std::uint64_t key) {
  const std::uint64_t mask = (1ull << map_bits_) - 1;
  std::uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - map_bits_);
  while (map_keys_[h] != key) h = (h + 1) & mask;
  // Backward-shift deletion: move later entries of the probe run into the hole.
  std::uint64_t hole = h;
  for (std::uint64_t j = (hole + 1) & mask; map_keys_[j] != 0; j = (j + 1) & mask) {
    const std::uint64_t home = (map_keys_[j] * 0x9E3779B97F4A7C15ull) >> (64 - map_bits_);
    // entry j may move to the hole if its home lies cyclically outside (hole, j]
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      map_keys_[hole] = map_keys_[j];
      map_vals_[hole] = map_vals_[j];
      hole = j;
    }
  }
  map_keys_[hole] = 0;
}

bool CacheModel::access(std::uint64_t addr) {
  ++stats_.accesses;
  const std::uint64_t key = (addr >> line_shift_) + 1;
  const std::uint64_t bit = 1ull << ((addr >> sector_shift_) & sector_mask_);
  std::uint32_t slot;
  if (key == last_key_ && repeat_shortcut_) {
    slot = last_slot_;
  } else {
    const std::size_t set = set_of(addr);
    const std::uint32_t base = off_[set], n = nways_[set];
    std::uint32_t w = 0;
    if (use_map_) {
      const std::uint32_t found = map_find(key);
      w = found == kNone ? n : found - base;
    } else {
      while (w < n && tag_[base + w] != key) ++w;
    }
    if (w == n) {
      w = victim(set);
      slot = base + w;
      if (tag_[slot] != 0) {  // counted here, the map and list are updated below
        ++stats_.evictions;
        ++slot_evictions_[slot];
        if (use_map_) map_erase(tag_[slot]);
      }
      const bool evicted = tag_[slot] != 0;
      tag_[slot] = key;
      sectors_[slot] = bit;
      if (use_map_) map_insert(key, slot);
      if (use_list_) {
        if (evicted) list_move_front(set, slot);
        else list_push_front(set, slot);
      } else {
        policy_[set]->on_fill(w);
      }
      last_key_ = key;
      last_slot_ = slot;
      ++stats_.misses;
      return false;
    }
    slot = base + w;
    touch(set, w);
    last_key_ = key;
    last_slot_ = slot;
  }
  if (sectors_[slot] & bit) {
    ++stats_.hits;
    return true;
  }
  sectors_[slot] |= bit;
  ++stats_.misses;
  ++stats_.sector_misses;
  return false;
}

std::int64_t CacheModel::line_at(std::size_t set, std::uint32_t way) const {
  const std::uint64_t t = tag_[off_[set] + way];
  return t == 0 ? -1 : static_cast<std::int64_t>(t - 1);
}

std::vector<std::uint64_t> CacheModel::evictions_by_way() const {
  std::vector<std::uint64_t> v(*std::max_element(nways_.begin(), nways_.end()), 0);
  for (std::size_t s = 0; s < nways_.size(); ++s)
    for (std::uint32_t w = 0; w < nways_[s]; ++w) v[w] += slot_evictions_[off_[s] + w];
  return v;
}

std::vector<std::uint64_t> CacheModel::evictions_by_set() const {
  std::vector<std::uint64_t> v(nways_.size(), 0);
  for (std::size_t s = 0; s < nways_.size(); ++s)
    for (std::uint32_t w = 0; w < nways_[s]; ++w) v[s] += slot_evictions_[off_[s] + w];
  return v;
}

}  // namespace memhier::sim
