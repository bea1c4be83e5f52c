// The experiment interface every P-chase family calls. Two implementations: the CUDA device
// (backend_cuda.cu, kernels in kernels/) and the simulated device (backend_sim.cpp over sim/).
// This header is plain C++ so that the simulated backend needs no CUDA.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/chase.hpp"
#include "common/sequence.hpp"
#include "common/streams.hpp"
#include "common/wide_chain.hpp"
#include "common/trace.hpp"
#include "bench/levels/levels.hpp"

namespace memhier {

enum class Path { global_ca, global_cg, ldg, texture, constant, shared };
enum class Mode { classic, fine, count };

const char* path_name(Path p);
const char* mode_name(Mode m);
bool parse_path(const std::string& s, Path* out);
bool parse_mode(const std::string& s, Mode* out);
// Paths served by a per-SM cache (L1, texture, read-only, constant L1/L1.5, shared memory).
bool path_is_per_sm(Path p);
// L1-side paths, whose capacity depends on the shared-memory carveout.
bool path_uses_carveout(Path p);

// What the device offers; sweeps are derived from these figures.
struct DeviceFigures {
  int sm_count = 1;
  std::uint64_t smem_per_sm_bytes = 0;       // shared memory per SM (max carveout)
  std::uint64_t smem_per_block_optin = 0;    // largest dynamic shared memory one block may use
  std::uint64_t l1_smem_bytes = 0;           // unified L1 + shared array per SM (0: unknown)
  std::uint64_t l2_bytes = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t const_bytes = 65536;         // constant memory bank limit
  std::uint64_t sm_clock_khz = 0;
  int cc_major = 0, cc_minor = 0;
};

struct ChaseRequest {
  Path path = Path::global_ca;
  Mode mode = Mode::classic;
  std::vector<std::uint32_t> chain;  // visiting order (element indices), see common/chase.hpp
  std::uint64_t array_bytes = 0;     // array size N (the chain lies inside it)
  std::uint64_t iters = 0;           // timed accesses k
  bool warm = true;                  // a full pass over the chain before timing
  int carveout = -1;                 // shared-memory carveout percent (L1-side paths), -1: default
  std::uint32_t hist_bin_width = 4;  // count mode
  std::uint32_t max_records = 4096;  // fine mode: per-access records kept
};

struct ChaseResult {
  std::string error;                 // non-empty: the configuration could not run (and why)
  double latency_cycles = 0;         // mean per access, clock overhead removed
  double clock_overhead_cycles = 0;  // what was removed per access
  std::uint64_t accesses = 0;        // timed accesses
  double seconds = 0;                // device time of the timed launch (manual time)
  int carveout = -1;                 // carveout in effect (percent)
  int sm_id = -1;                    // SM that ran the chase (per-SM batches)
  // fine: access k read element index[k], latency[k] cycles (overhead removed, clamped at 0)
  std::vector<std::uint32_t> index;
  std::vector<std::uint32_t> latency;
  // count: latency histogram (overhead removed)
  Histogram hist;
  // SM clock over the sample (clock64 against %globaltimer), 0 when not measured (simulated
  // device); throttled: below 90 % of nominal over a window long enough to judge.
  double sm_clock_mhz = 0;
  bool clock_throttled = false;
};

struct ClockOverhead {
  double clock_pair_cycles = 0;   // two consecutive clock reads
  double fine_cycles = 0;         // dependent shared store + clock read (000 §4.2, lines 10-11)
  double classic_cycles = 0;      // per-iteration loop overhead of the classic chase
};

// An access sequence (common/sequence.hpp; docs/methodology.md, section sequence): one thread
// walks the runs in order, each access complete before the next starts; timed accesses are
// recorded into slots. Sequence path codes are the Path values global_ca, global_cg, ldg, texture.
struct SequenceRequest {
  AccessSequence seq;
  std::uint64_t array_bytes = 0;  // every access lies inside one array of this size
  int carveout = -1;              // shared-memory carveout (percent) when an L1-side path is used; -1: 0
};

struct SequenceResult {
  std::string error;                   // non-empty: the sequence could not run (and why)
  std::vector<std::uint32_t> records;  // per slot (RecordMode); latencies have the overhead removed
  std::uint64_t accesses = 0;
  int launches = 0;
  double seconds = 0;                  // device time of the launches (manual time)
  double clock_overhead_cycles = 0;    // removed from every timed latency
  int carveout = -1;                   // in effect, when an L1-side path was used
  int sm_id = -1;                      // the SM that ran every launch
  std::uint64_t smem_bytes = 0;        // shared memory the kernel held (taken from the L1 array)
  // How the caches stand when the sequence starts: "empty" (the simulated device empties every
  // level) or "as_left" (a GPU: what earlier work left; a launch may invalidate the L1, which the
  // cache_sequences family measures).
  std::string start_state;
  // Clock cycles of the walks (every launch, first access to last; the simulated device: the
  // accesses' latencies): over the accesses, it shows whether accesses overlapped (a GPU).
  std::uint64_t walk_cycles = 0;
};

// Random-stream trials (docs/methodology.md, section cache_streams; common/streams.hpp): per SM slot,
// a warm stream, the hit reference, then `trials` trials of `targets` targets each (L1-side paths:
// each trial's targets first read through global_cg, so first loads are L2 hits). The array is
// [targets region (kStreamTargetRegionBytes) | pool of pool_bytes].
struct StreamsRequest {
  Path path = Path::global_ca;            // global_ca, ldg, texture (per SM) or global_cg (the L2)
  StreamVariant variant = StreamVariant::fresh;
  bool dep = true;                        // false: 8 independent loads per step
  std::uint32_t k = 0;                    // stream lines per trial
  std::uint32_t trials = 1;               // trials per SM slot
  std::uint32_t targets = 1;              // targets per trial
  std::uint64_t pool_bytes = 0;           // multiple of kStreamLineBytes
  std::uint32_t warm_lines = 0;           // untimed stream lines before the trials
  bool all_sms = true;                    // true: one thread on every SM; false: one SM
  int carveout = -1;                      // L1-side paths: percent (-1: 0)
  std::uint64_t first_target_line = 0;    // the launch's first line of the targets region
  std::uint64_t seed = 1;
};

struct StreamsResult {
  std::string error;                      // non-empty: the request could not run (and why)
  int sms = 0;                            // SM slots that ran trials
  std::vector<int> sm_ids;                // per slot
  // Per slot: kStreamHitRefs hit samples, then trials x targets x kStreamFields latencies
  // (cycles, overhead removed; fields a variant does not use are 0).
  std::vector<std::uint32_t> records;
  std::uint32_t words_per_slot = 0;       // entries of `records` per slot
  double seconds = 0;                     // device time (manual time)
  double clock_overhead_cycles = 0;       // removed from every latency
  int carveout = -1;                      // in effect (L1-side paths)
  std::uint64_t accesses = 0;             // loads per slot (warm stream, references, primes, trials)
  // 1: the path's cache held none of the array's lines when the launch began (the simulated device
  // knows it: reset, or a level a launch empties); -1: not known to the backend (a GPU: the analyzer
  // reads cache_sequences' launch check).
  int start_empty = -1;
  // Trials of one launch (each launch on an SM begins with the warm stream and the references);
  // 0: all of the request's trials in one launch (a GPU).
  std::uint32_t trials_per_launch = 0;
};
// Entries per slot of StreamsResult::records.
inline std::uint32_t stream_record_words(std::uint32_t trials, std::uint32_t targets) {
  return kStreamHitRefs + trials * targets * kStreamFields;
}

// Whole-memory chases (64-bit pointers over footprints up to the device's free memory; tlb and
// latency_spectrum families, docs/methodology.md). How the chased memory is allocated decides
// which page sizes the driver can use and whether neighbouring pages are contiguous:
//   malloc   one cudaMalloc (the driver's choice)
//   vmm      CUDA VMM: chunks of the minimum granularity, each its own physical allocation, mapped
//            back to back into one reserved virtual range
//   vmm_gap  the same chunks with an unmapped hole of one chunk after each
enum class WideAlloc { malloc, vmm, vmm_gap };
const char* wide_alloc_name(WideAlloc a);
bool parse_wide_alloc(const std::string& s, WideAlloc* out);

struct WideChaseRequest {
  Path path = Path::global_cg;       // global_cg or global_ca
  Mode mode = Mode::count;           // count or fine (classic is not offered)
  WideAlloc alloc = WideAlloc::malloc;
  WideChain chain;                   // uniform chain (common/wide_chain.hpp); its chunk/gap are set by the backend
  std::vector<std::uint64_t> positions;  // instead of `chain`: explicit logical byte offsets, visited in order
  std::uint64_t footprint_bytes = 0; // logical bytes that must be mapped (>= every position + 8)
  std::uint64_t warm = 0;            // accesses made through the timed code before recording (untimed)
  std::uint64_t iters = 0;           // recorded accesses
  std::uint64_t block_len = 0;       // recorded accesses per block of the interval (0: iters / 64)
  bool cold = false;                 // overwrite the L2 and touch `flush_*` before the chase
  std::uint64_t flush_begin = 0, flush_end = 0;  // logical range read once per 64 KiB when cold
  std::uint32_t hist_bin_width = 4;  // count mode
  std::uint32_t max_records = 4096;  // fine mode
};

struct WideChaseResult : ChaseResult {
  double latency_sd_cycles = 0;        // standard deviation of one access
  std::vector<double> block_means;     // means of up to 64 consecutive blocks of block_len recorded accesses
  std::uint64_t mapped_bytes = 0;      // bytes mapped for the group
  std::uint64_t chunk_bytes = 0;       // vmm: the mapping granularity (0 for malloc)
  std::uint64_t gap_bytes = 0;         // vmm_gap: hole after each chunk
  double alloc_seconds = 0;            // host time to map the group's memory (on its first result)
};

// What run_wide_batch can do on this device. All zero: not supported.
struct WideLimits {
  std::uint64_t malloc_bytes = 0;      // largest footprint with WideAlloc::malloc
  std::uint64_t vmm_bytes = 0;         // largest footprint with the VMM allocations (0: no VMM)
  std::uint64_t vmm_granularity = 0;   // minimum VMM granularity (the chunk)
  std::uint64_t l2_lines = 0;          // L2 size in 128-byte lines (sweeps keep their lines below 1/8 of it)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cuda" or "sim:<name>"
  virtual DeviceFigures figures() const = 0;
  // Context keys of DESIGN.md (gpu_name, sm_count, ...) for AddCustomContext.
  virtual std::map<std::string, std::string> context() const = 0;
  // Keys added to the JSON context after the run (e.g. the SM clock measured at the end, to flag
  // throttling against the one measured at the start).
  virtual std::map<std::string, std::string> end_context() { return {}; }
  virtual bool supports(Path p) const = 0;
  virtual ClockOverhead clock_overhead() = 0;
  virtual ChaseResult run_chase(const ChaseRequest& r) = 0;
  // Several independent chases at once, one per SM (003 §4.7.2), for per-SM caches. The default
  // runs them one after another.
  virtual std::vector<ChaseResult> run_chase_batch(const std::vector<ChaseRequest>& rs);
  // How many chases run_chase_batch runs at once on path p (1: no parallelism).
  virtual int parallel_chases(Path) const { return 1; }
  // Largest array the backend can chase on path p (bytes).
  virtual std::uint64_t max_array_bytes(Path p) const = 0;
  // Runs an access sequence; the default says the backend cannot.
  virtual SequenceResult run_sequence(const SequenceRequest& r);
  // Most runs one launch can hold (0: no limit).
  virtual std::size_t max_sequence_runs() const { return 0; }
  // Random-stream trials (cache_streams). Default: an error (not offered).
  virtual StreamsResult run_streams(const StreamsRequest& r);
  // Whether an L1-side path has a cache of its own in front of the L2 (the simulated device may map
  // one straight to the L2, as Kepler's global_ca); the L2 path: true.
  virtual bool stream_path_cached(Path) const { return true; }
  // SM slots run_streams uses with all_sms (1 on the simulated device).
  virtual int stream_slots() const { return figures().sm_count; }
  // Whole-memory chases: runs the requests (one allocation mode) on one mapping of the largest
  // footprint among them, released before returning. Default: every request fails (not offered).
  virtual std::vector<WideChaseResult> run_wide_batch(const std::vector<WideChaseRequest>& rs);
  virtual WideLimits wide_limits() const { return {}; }
  // The path's first-level hit latency: median of a warm chase over 1 KiB at a 32-byte stride,
  // measured once per path. The reference that tells whether a one-level distribution is hits.
  double hit_baseline(Path p);
  // After a failure: "" when the device is still usable, otherwise why not (a sticky CUDA error).
  virtual std::string device_fault() { return {}; }
  // Pessimistic seconds a chase of `accesses` dependent loads (warm pass and timed accesses)
  // takes, for the per-benchmark budget (bench/core/guard.hpp). Default: kWorstCyclesPerAccess per
  // access at the nominal SM clock.
  virtual double predicted_seconds(double accesses) const;
  double predicted_seconds(const ChaseRequest& r) const {
    return predicted_seconds(static_cast<double>(r.iters) + (r.warm ? static_cast<double>(r.chain.size()) : 0.0));
  }
  static constexpr double kWorstCyclesPerAccess = 2000;
  // Levels beyond one SM (bench/levels/levels.hpp): what the device offers, and one benchmark of a level
  // family. Defaults: nothing offered; every request an error.
  virtual LevelOffer level_offer() const { return {}; }
  virtual LevelResult run_level(const LevelRequest& r);
  // Shared memory per block a chase of this kind needs on this device (fine records, count
  // histogram, the shared path's array); 0 when the backend keeps them elsewhere (simulator).
  virtual std::uint64_t shared_memory_needed(Path, Mode, std::uint64_t /*array_bytes*/, std::uint64_t /*max_records*/) const {
    return 0;
  }

 private:
  std::map<Path, double> baselines_;
};

// The backend selected by --device; set once by main before registration.
Backend& backend();
void set_backend(std::unique_ptr<Backend> b);
bool has_backend();

}  // namespace memhier
