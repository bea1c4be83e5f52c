// The simulated device's description (docs/formats.md, section sim-config, format
// `memhier-sim-config/1`): cache levels in order, TLB levels, which load path goes through which
// levels, DRAM latency, clock overhead and the device figures the sweeps derive from.
// load_config() validates everything and throws std::runtime_error with one line
// "<file>: <what is wrong>" on any problem.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/l2_evsets.hpp"
#include "sim/l2_slices.hpp"
#include "sim/levels.hpp"

namespace memhier::sim {

constexpr const char* kConfigFormat = "memhier-sim-config/1";

enum class IndexKind { modulo, bits, xor_fold, table, gf2 };

const char* index_kind_name(IndexKind k);

// How an address picks a set.
struct IndexSpec {
  IndexKind kind = IndexKind::modulo;
  // modulo: set = (addr >> shift) % sets; shift defaults to log2(line_bytes)
  // table:  set = table[(addr >> shift) % table.size()]
  unsigned shift = 0;
  bool shift_given = false;
  std::vector<unsigned> bits;  // bits: set bit j = address bit bits[j]
  struct Group {
    unsigned lo = 0, width = 0;
  };
  std::vector<Group> groups;   // xor: set = XOR over groups of (addr >> lo) & (2^width - 1)
  std::vector<std::uint32_t> table;
  std::vector<std::uint64_t> rows;  // gf2: set bit j = parity(addr & rows[j])
};

struct ReplacementSpec {
  std::string policy = "lru";   // canonical name of a common/policy.hpp model
  std::vector<double> weights;  // random: per-way weights (empty: uniform)
  std::uint64_t seed = 1;       // random: generator seed (re-seeded at every reset)
};

// One cache level (kind "cache"), a scratchpad (kind "scratchpad": always hits, e.g. shared
// memory), or one TLB level (line = page).
struct LevelSpec {
  std::string name;
  bool scratchpad = false;
  std::uint64_t line_bytes = 0;    // TLB: the reach of one entry (entry_bytes; the page when absent)
  std::uint64_t sector_bytes = 0;  // fill granularity (= line_bytes when absent)
  std::vector<std::uint32_t> ways; // ways of each set (sets may be unequal)
  IndexSpec index;
  ReplacementSpec replacement;
  std::uint32_t hit_latency_cycles = 0;   // caches
  std::uint32_t miss_penalty_cycles = 0;  // TLBs
  bool launch_invalidates = false;  // emptied when a new kernel launch begins (access sequences)
  std::uint64_t page_bytes = 0;           // TLBs: the page; an entry covers line_bytes / page_bytes pages
  // TLBs ("entry_scope": "virtual"): an entry covers an aligned virtual region of line_bytes whatever
  // is mapped in it (separately created VMM chunks, holes); else ("pages") contiguous pages of one
  // allocation only, so under VMM chunks an entry covers one chunk.
  bool entry_virtual = false;
  // Caches ("hit_latency_map"): a hit costs hit_latency_cycles + latency_add[v], where bit j of v is
  // parity(addr & latency_rows[j]) (e.g. near and far L2 partitions by an address hash).
  std::vector<std::uint64_t> latency_rows;
  std::vector<std::uint32_t> latency_add;
  std::uint64_t capacity_bytes() const;
  std::size_t sets() const { return ways.size(); }
};

struct PathSpec {
  std::vector<std::string> levels;  // cache levels in lookup order (names of LevelSpec)
  bool translated = false;          // goes through the TLB levels
  std::uint64_t max_array_bytes = 0;
};

struct DeviceSpec {
  std::string gpu_name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 1;
  std::uint64_t sm_clock_khz = 1000000;
  std::uint64_t smem_per_sm_bytes = 0;
  std::uint64_t smem_per_block_optin_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t const_bytes = 65536;
  std::uint64_t vmm_granularity_bytes = 0;  // VMM chunk (default: the largest TLB page, else 2 MiB)
};

// Measurement noise of a simulated device (key "noise"): every access's latency gets a uniform
// jitter in [0, jitter_cycles] and, with probability outlier_rate, outlier_cycles more (an
// interrupted or refreshed access), from a splitmix64 generator seeded with `seed`.
struct NoiseSpec {
  std::uint32_t jitter_cycles = 0;
  double outlier_rate = 0;
  std::uint32_t outlier_cycles = 0;
  std::uint64_t seed = 1;
  bool active() const { return jitter_cycles > 0 || (outlier_rate > 0 && outlier_cycles > 0); }
};

struct Config {
  std::string name;         // device_backend is "sim:<name>"
  std::string description;
  std::string source_path;  // the file it came from
  DeviceSpec device;
  std::map<std::string, std::string> context;  // extra context keys (strings)
  double clock_pair_cycles = 0, clock_fine_cycles = 0;
  std::uint32_t dram_latency_cycles = 0;
  std::uint64_t array_base = 0;  // byte address of every chased array (aligned)
  double noise_sd_cycles = 0;     // latency_noise: Gaussian noise added to every access (0: none)
  std::uint64_t noise_seed = 1;
  std::vector<LevelSpec> levels;
  std::vector<LevelSpec> tlbs;  // in lookup order
  std::map<std::string, PathSpec> paths;  // by path name: global_ca, global_cg, ldg, texture, constant, shared
  NoiseSpec noise;  // none unless the config has "noise"
  // sequence_start "as_left": an access sequence starts from what the sequences before it left, as
  // on a GPU (a sequence is a new kernel launch: launch_invalidates levels start empty); "empty"
  // (default): every level and TLB empty, generators re-seeded, so a sequence always gives the same
  // records.
  bool sequences_as_left = false;
  // Levels beyond one SM (key "beyond_sm", sim/levels.hpp): absent -> nothing offered.
  LevelsModel beyond_sm;
  // The sliced L2 of the l2_slices family (key "l2_slices", sim/l2_slices.hpp): absent -> not offered.
  L2SlicesModel l2_slices;
  // The whole L2's sets of the l2_evsets family (key "l2_evsets", sim/l2_evsets.hpp): absent -> not offered.
  L2EvsetsModel l2_evsets;
};

// The load paths a config may map.
const std::vector<std::string>& known_paths();

Config load_config(const std::string& path);
// Parses JSON text; `origin` names it in error messages.
Config parse_config(const std::string& json_text, const std::string& origin);

}  // namespace memhier::sim
