// The chases the analyzer wants measured next (docs/formats.md "Extra requests",
// format memhier-requests/1), collected while inferring.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memhier::analysis {

struct ChaseWish {
  std::string path, mode;
  std::uint64_t bytes = 0, stride = 0, iters = 0;
  bool warm = true;
  int carveout = -1;
  std::string why;  // which inference step wants it (not written to the file)
  std::uint32_t max_records = 0;  // fine mode: records to keep (0: the bench default, 4096)
  bool operator<(const ChaseWish& o) const;
};
struct TlbWish {
  std::uint64_t bytes = 0, stride = 0;
  std::string why;
  std::string alloc = "malloc";   // whole-memory chase allocation: malloc, vmm, vmm_gap
  std::uint64_t lines = 0;        // data lines per run (0: the bench default)
  std::uint64_t timed = 0;        // recorded accesses per run (0: the bench default)
  bool operator<(const TlbWish& o) const;
  // One item of the requests file's "tlb" list (docs/formats.md): bytes, stride, alloc, and lines
  // and timed where they differ from the bench defaults.
  nlohmann::json to_json() const;
};

// A rerun of the cache_sequences search for one cache with what the analyzer found (the line as
// the search stride, where misses begin as the pool's start), when the first search stopped early.
struct SequenceWish {
  std::string path, cache;
  std::uint64_t stride = 0, capacity = 0;
  int carveout = -1;
  double seconds = 2.5;  // the family's default device-time budget per cache
  std::string why;
};

struct Requests {
  std::vector<SequenceWish> sequences;
  std::vector<ChaseWish> pchase;
  std::vector<TlbWish> tlb;
  // Limits the bench.json context names (chase_limit_bytes_<path>, tlb_limit_bytes); absent: none.
  std::map<std::string, std::uint64_t> chase_limit;
  std::uint64_t tlb_limit = 0;
  // CUDA devices keep fine records (8 bytes each) and the shared path's array in a block's shared
  // memory (smem_per_block_optin_bytes); 0: no such limit (the simulator). memhier-bench refuses a
  // request over it, so none is written.
  std::uint64_t shared_limit = 0;
  std::uint64_t tlb_limit_vmm = 0;  // tlb_limit_bytes_vmm (0: VMM chases not offered)
  // Reads the limits from a bench.json context.
  void set_limits(const std::map<std::string, std::string>& context);
  // False (and nothing added) when the wish exceeds the device's limit: it cannot be measured.
  bool fits(const ChaseWish& w) const;
  bool fits(const TlbWish& w) const;
  bool add(ChaseWish w);
  bool add(TlbWish w);
  void add(SequenceWish w) { sequences.push_back(std::move(w)); }
  bool empty() const { return pchase.empty() && tlb.empty() && sequences.empty(); }
  // This round's requests within the refinement budget (analysis/core/refinement.hpp; set by
  // build_topology): what --next-requests writes. Null until then.
  nlohmann::json selected;
  // Sorted, duplicates removed.
  nlohmann::json to_json() const;
};

}  // namespace memhier::analysis
