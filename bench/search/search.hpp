// The cache_sequences search for one cache (docs/methodology.md, section cache_sequences): fill
// granularity, pool, eviction set of a target (discovery, reduction, minimality), congruence of
// flipped addresses, further lines of the set, replacement-policy experiments. Every sequence it
// runs is in the session's trace; the result is the family's own reading (counters and log).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "bench/search/calibrate.hpp"
#include "bench/search/congruence.hpp"
#include "bench/search/policy_probe.hpp"

namespace memhier::seqsearch {

struct SearchConfig {
  std::uint64_t stride = 0;    // pool stride in bytes (e.g. the line the analyzer found); 0: from g and capacity
  std::uint64_t capacity = 0;  // bytes: where the pool search starts (0: 64 lines)
  std::uint64_t seed = 1;
  unsigned max_targets = 8;
  unsigned policy_repeats = 8;
  std::uint64_t column_probe_max_lines = 16384;
  bool start_empty = false;    // a launch begins with the cache empty (sim, or an invalidated L1)
};

struct SearchResult {
  Calibration calibration;
  std::uint64_t granularity = 0;  // measured fill granularity
  std::uint64_t stride = 0, pool_lines = 0;
  std::uint64_t pool_hi_lines = 0;    // the smallest pool seen with misses (0: none)
  std::size_t overflow_targets = 0;   // targets from the lines just past the pool
  bool pool_overflows = false;        // discovery used the smallest pool with misses (soft edge)
  Pool pool;
  std::uint64_t target = 0;
  Lines eviction_set;
  bool minimal = false;
  std::optional<Congruence> congruence;
  bool columns_probed = false;
  std::size_t fresh_lines = 0;
  PolicyProbe policy;
  std::string stopped;  // why the search ended before its last step ("" when it did not)
};

SearchResult run_search(Session& s, const SearchConfig& c);

}  // namespace memhier::seqsearch
