// Adapter from the simulated device (sim/) to the Backend interface: same requests, same result
// fields as the CUDA backend (bench/backends/backend_cuda.cu), answered by the cache model.
#include "bench/backends/backend_sim.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "bench/plans/l2_evsets_plan.hpp"
#include "bench/plans/l2_slices_plan.hpp"
#include "bench/wide/wide_sim.hpp"
#include "common/l2_slice_lines.hpp"
#include "sim/config.hpp"
#include "sim/device.hpp"
#include "sim/l2_evsets.hpp"
#include "sim/levels.hpp"
#include "sim/sequence.hpp"
#include "sim/streams.hpp"

namespace memhier {
namespace {

constexpr std::uint32_t kHistBins = 1024;  // as the CUDA backend

// The l2_evsets plan's oracle over the config's whole-L2 model (sim/l2_evsets.hpp): a test reads
// the candidate lines of the target's set (the others go to other sets) in the order of the walk.
class SimEvsetOracle final : public EvsetOracle {
 public:
  SimEvsetOracle(const sim::L2EvsetsModel& m, std::uint64_t pool_factor, std::uint64_t call, double clock_hz)
      : m_(m), pool_(make_evset_pool(pool_factor * m.capacity_bytes() / kEvsetLineBytes)), call_(call), clock_hz_(clock_hz) {
    by_set_.resize(m.sets);  // each set's pool positions, ascending: a test looks its ranges up
    for (std::uint64_t q = 0; q < pool_.lines; ++q) by_set_[sim::evset_set_of(m, pool_.line(q))].push_back(q);
  }
  const EvsetPool& pool() const override { return pool_; }
  std::uint64_t target_line(int k) const override { return pool_.lines + 1000 + static_cast<std::uint64_t>(k) * 1237; }
  bool evicts(std::uint64_t target, const std::vector<EvsetRange>& ranges, int passes) override {
    const std::vector<std::uint64_t>& mine = by_set_[sim::evset_set_of(m_, target)];
    std::vector<std::uint64_t> lines;
    for (const EvsetRange& r : ranges) {
      read_lines_ += static_cast<double>(r.end - r.begin) * passes;
      for (auto it = std::lower_bound(mine.begin(), mine.end(), r.begin); it != mine.end() && *it < r.end; ++it)
        lines.push_back(pool_.line(*it));
    }
    ++tests_;
    // A device whose discard does nothing reads the newer value every time: "evicted".
    return !m_.readout_works || sim::evset_test(m_, target, lines, passes, (call_ << 32) + tests_);
  }
  bool readout_works(std::string* why) override {
    if (!m_.readout_works && why) *why = "the simulated device's config says the readout does not work (readout_works false)";
    return m_.readout_works;
  }
  std::vector<std::uint32_t> cycle(const std::vector<std::uint64_t>& thrash, const std::vector<std::uint64_t>& lines,
                                   int rounds) override {
    ++tests_;
    cycle_seconds_ += static_cast<double>(3 * thrash.size() + rounds * lines.size()) * m_.miss_cycles / clock_hz_;
    return sim::evset_cycle(m_, thrash, lines, rounds, (call_ << 32) + tests_);
  }
  std::vector<std::vector<std::uint32_t>> sequences(const std::vector<std::uint64_t>& lines,
                                                    const std::vector<std::vector<std::uint32_t>>& seqs) override {
    ++tests_;
    std::vector<std::vector<std::uint64_t>> as_lines;
    for (const auto& q : seqs) {
      as_lines.emplace_back();
      for (std::uint32_t i : q) {
        if (i >= lines.size()) throw std::runtime_error("l2_evsets: a policy sequence names a line it was not given");
        as_lines.back().push_back(lines[i]);
      }
      cycle_seconds_ += static_cast<double>(4 * lines.size() + q.size()) * m_.miss_cycles / clock_hz_;
    }
    return sim::evset_sequences(m_, as_lines, (call_ << 32) + tests_);
  }
  // 10 us per launch, 1 ns per line a test reads, dependent loads at the miss latency.
  double seconds() const override { return static_cast<double>(tests_) * 10e-6 + read_lines_ * 1e-9 + cycle_seconds_; }

 private:
  const sim::L2EvsetsModel& m_;
  EvsetPool pool_;
  std::uint64_t call_, tests_ = 0;
  double clock_hz_, read_lines_ = 0, cycle_seconds_ = 0;
  std::vector<std::vector<std::uint64_t>> by_set_;
};

class SimBackend final : public Backend {
 public:
  explicit SimBackend(sim::Config cfg) : dev_(std::move(cfg)) {}

  std::string name() const override { return "sim:" + dev_.config().name; }

  DeviceFigures figures() const override {
    const sim::DeviceSpec& d = dev_.config().device;
    DeviceFigures f;
    f.sm_count = d.sm_count;
    f.smem_per_sm_bytes = d.smem_per_sm_bytes;
    f.smem_per_block_optin = d.smem_per_block_optin_bytes;
    f.l1_smem_bytes = 0;
    f.l2_bytes = d.l2_bytes;
    f.global_mem_bytes = d.global_mem_bytes;
    f.const_bytes = d.const_bytes;
    f.sm_clock_khz = d.sm_clock_khz;
    f.cc_major = d.cc_major;
    f.cc_minor = d.cc_minor;
    return f;
  }

  std::map<std::string, std::string> context() const override {
    const sim::Config& c = dev_.config();
    const sim::DeviceSpec& d = c.device;
    std::map<std::string, std::string> m;
    // Defaults a CUDA run would carry; the config's own "context" overrides them.
    m["gpu_name"] = d.gpu_name;
    m["gpu_slug"] = "sim-" + c.name;
    m["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    m["sm_tag"] = "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
    m["sm_count"] = std::to_string(d.sm_count);
    m["sm_clock_khz"] = std::to_string(d.sm_clock_khz);
    m["mem_clock_khz"] = "0";
    m["mem_bus_width_bits"] = "0";
    m["l2_cache_bytes"] = std::to_string(d.l2_bytes);
    m["smem_per_sm_bytes"] = std::to_string(d.smem_per_sm_bytes);
    m["smem_per_block_optin_bytes"] = std::to_string(d.smem_per_block_optin_bytes);
    m["global_mem_bytes"] = std::to_string(d.global_mem_bytes);
    m["driver_version"] = "sim";
    m["driver_version_source"] = "sim";
    m["cuda_driver_api"] = "0";
    m["cuda_runtime"] = "0";
    m["theoretical_dram_bytes_per_second"] = "0";
    for (const auto& [k, v] : sim::levels_context(c.beyond_sm)) m[k] = v;  // the links (sim/levels.hpp)
    for (const auto& [k, v] : c.context) m[k] = v;
    m["device_backend"] = name();
    m["sim_config"] = c.source_path;
    return m;
  }

  bool supports(Path p) const override { return dev_.path_id(path_name(p)) >= 0; }

  // Host time of the simulation: at least kAccessesPerSecond on one core (the simulator does
  // 2-9 x 10^7, results/sim/; ASan builds a few times less).
  using Backend::predicted_seconds;
  double predicted_seconds(double accesses) const override { return accesses / kAccessesPerSecond; }
  static constexpr double kAccessesPerSecond = 1e6;

  ClockOverhead clock_overhead() override {
    ClockOverhead o;
    o.clock_pair_cycles = dev_.config().clock_pair_cycles;
    o.fine_cycles = dev_.config().clock_fine_cycles;
    o.classic_cycles = o.clock_pair_cycles;
    return o;
  }

  std::uint64_t max_array_bytes(Path p) const override {
    auto it = dev_.config().paths.find(path_name(p));
    return it == dev_.config().paths.end() ? 0 : it->second.max_array_bytes;
  }

  ChaseResult run_chase(const ChaseRequest& r) override {
    ChaseResult o;
    const int pid = dev_.path_id(path_name(r.path));
    if (pid < 0) {
      o.error = std::string("the simulated device '") + dev_.config().name + "' does not map the " +
                path_name(r.path) + " path";
      return o;
    }
    if (r.array_bytes > max_array_bytes(r.path)) {
      o.error = "array of " + std::to_string(r.array_bytes) + " bytes exceeds the " + path_name(r.path) +
                " limit of " + std::to_string(max_array_bytes(r.path)) + " bytes on this device";
      return o;
    }
    if (r.chain.empty()) {
      o.error = "empty chain";
      return o;
    }
    const std::uint64_t elements = r.array_bytes / 4;
    for (std::uint32_t e : r.chain)
      if (e >= elements) {
        o.error = "chain element " + std::to_string(e) + " lies outside the array of " +
                  std::to_string(r.array_bytes) + " bytes";
        return o;
      }

    sim::ChaseSpec s;
    s.path = pid;
    s.chain = &r.chain;
    s.iters = r.iters;
    s.warm = r.warm;
    s.max_records = r.mode == Mode::fine ? r.max_records : 0;
    s.hist_bins = r.mode == Mode::count ? kHistBins : 0;
    s.hist_bin_width = std::max<std::uint32_t>(1, r.hist_bin_width);
    sim::ChaseOutcome out = sim::run_chase(dev_, s);

    const ClockOverhead oh = clock_overhead();
    o.accesses = r.iters;
    o.latency_cycles = r.iters ? static_cast<double>(out.total_cycles) / static_cast<double>(r.iters) : 0.0;
    if (r.mode == Mode::classic)
      o.clock_overhead_cycles = oh.clock_pair_cycles / std::max<double>(1, static_cast<double>(r.iters));
    else
      o.clock_overhead_cycles = static_cast<double>(std::lround(oh.fine_cycles));
    // Simulated device time of the timed accesses (overhead included, as a GPU launch would take).
    const double cycles = static_cast<double>(out.total_cycles) +
                          (r.mode == Mode::classic ? oh.clock_pair_cycles
                                                   : o.clock_overhead_cycles * static_cast<double>(r.iters));
    o.seconds = std::max(cycles, 1.0) / (static_cast<double>(dev_.config().device.sm_clock_khz) * 1e3);
    o.carveout = path_uses_carveout(r.path) ? (r.carveout < 0 ? 0 : r.carveout) : -1;
    if (r.mode == Mode::fine) {
      o.index = std::move(out.index);
      o.latency = std::move(out.latency);
    }
    if (r.mode == Mode::count) {
      o.hist.bin_width = s.hist_bin_width;
      o.hist.counts = std::move(out.hist);
    }
    return o;
  }

  SequenceResult run_sequence(const SequenceRequest& r) override {
    SequenceResult o;
    o.error = check_sequence(r.seq, r.array_bytes);
    std::array<int, kSeqPathCount> ids;
    bool l1_side = false;
    for (std::uint8_t c = 0; c < kSeqPathCount; ++c) ids[c] = dev_.path_id(seq_path_name(c));
    for (const AccessRun& run : r.seq.runs) {
      if (run.is_repeat() || !o.error.empty()) continue;
      const Path p = static_cast<Path>(run.path);
      l1_side = l1_side || path_uses_carveout(p);
      if (ids[run.path] < 0) o.error = std::string("the simulated device '") + dev_.config().name +
                                       "' does not map the " + path_name(p) + " path";
      else if (r.array_bytes > max_array_bytes(p))
        o.error = "array of " + std::to_string(r.array_bytes) + " bytes exceeds the " + path_name(p) +
                  " limit of " + std::to_string(max_array_bytes(p)) + " bytes on this device";
    }
    if (!o.error.empty()) return o;
    sim::SequenceOutcome out = sim::run_sequence(dev_, r.seq, ids);
    const double overhead = std::lround(clock_overhead().fine_cycles);
    o.records = std::move(out.records);
    o.accesses = out.accesses;
    o.launches = out.launches;
    o.clock_overhead_cycles = overhead;
    o.seconds = (static_cast<double>(out.total_cycles) + overhead * static_cast<double>(out.accesses)) /
                (static_cast<double>(dev_.config().device.sm_clock_khz) * 1e3);
    o.carveout = l1_side ? (r.carveout < 0 ? 0 : r.carveout) : -1;
    o.start_state = dev_.config().sequences_as_left ? "as_left" : "empty";
    o.walk_cycles = out.total_cycles;
    return o;
  }
  // Random-stream trials on one SM (sim/streams.hpp); L1-side paths prime through global_cg where mapped.
  StreamsResult run_streams(const StreamsRequest& r) override {
    StreamsResult o;
    const int pid = dev_.path_id(path_name(r.path));
    const bool l1_side = path_uses_carveout(r.path);
    if (pid < 0 || !(l1_side || r.path == Path::global_cg))
      o.error = std::string("the simulated device '") + dev_.config().name + "' does not run random-stream trials on the " +
                path_name(r.path) + " path";
    else if (r.k == 0 || r.trials == 0 || r.targets == 0) o.error = "k, trials and targets must be positive";
    else if (r.pool_bytes < kStreamLineBytes || r.pool_bytes % kStreamLineBytes)
      o.error = "the pool must be a positive multiple of " + std::to_string(kStreamLineBytes) + " bytes";
    else if (r.first_target_line + stream_target_lines_per_slot(r.trials, r.targets) > kStreamTargetRegionLines)
      o.error = "the targets of this request do not fit the targets region";
    if (!o.error.empty()) return o;
    sim::StreamsSpec s;
    s.path = pid;
    s.prime_path = l1_side ? dev_.path_id("global_cg") : -1;
    s.variant = r.variant;
    s.k = r.k;
    s.trials = r.trials;
    s.targets = r.targets;
    s.warm = r.warm_lines;
    s.pool_lines = r.pool_bytes / kStreamLineBytes;
    s.first_target_line = r.first_target_line;
    s.seed = r.seed;
    sim::StreamsOutcome out = sim::run_streams(dev_, s);
    const double overhead = std::lround(clock_overhead().fine_cycles);
    o.sms = 1;
    o.sm_ids = {0};
    o.records = std::move(out.records);
    o.words_per_slot = stream_record_words(r.trials, r.targets);
    o.accesses = out.accesses;
    o.clock_overhead_cycles = overhead;
    o.seconds = (static_cast<double>(out.total_cycles) + overhead * static_cast<double>(out.accesses)) /
                (static_cast<double>(dev_.config().device.sm_clock_khz) * 1e3);
    o.carveout = l1_side ? (r.carveout < 0 ? 0 : r.carveout) : -1;
    o.start_empty = dev_.config().sequences_as_left ? (path_first_level_invalidated(r.path) ? 1 : 0) : 1;
    o.trials_per_launch = sim::kSimStreamTrialsPerLaunch;
    return o;
  }
  // Whether a launch empties the first level of path p (config: launch_invalidates).
  bool path_first_level_invalidated(Path p) const {
    const auto& cfg = dev_.config();
    const auto it = cfg.paths.find(path_name(p));
    if (it == cfg.paths.end() || it->second.levels.empty()) return false;
    for (const auto& l : cfg.levels)
      if (l.name == it->second.levels.front()) return l.launch_invalidates;
    return false;
  }
  int stream_slots() const override { return 1; }
  bool stream_path_cached(Path p) const override {
    if (!path_uses_carveout(p)) return true;
    const auto& paths = dev_.config().paths;
    const auto it = paths.find(path_name(p)), cg = paths.find("global_cg");
    if (it == paths.end() || it->second.levels.empty()) return false;
    return cg == paths.end() || cg->second.levels.empty() || cg->second.levels.front() != it->second.levels.front();
  }
  std::vector<WideChaseResult> run_wide_batch(const std::vector<WideChaseRequest>& rs) override {
    return run_wide_sim(dev_, rs, clock_overhead());
  }
  WideLimits wide_limits() const override { return sim_wide_limits(dev_.config()); }

  // Levels beyond one SM: what the config's beyond_sm models (absent: nothing offered).
  LevelOffer level_offer() const override {
    const sim::LevelsModel& m = dev_.config().beyond_sm;
    LevelOffer o;
    if (m.persist.present) {  // the config's l2_persisting (the l2_persist family)
      o.persisting_l2_max_bytes = m.persist.max_bytes;
      o.access_policy_max_window_bytes = m.persist.max_window_bytes;
    }
    o.l2_slices = dev_.config().l2_slices.present;  // the config's l2_slices (sim/l2_slices.hpp)
    const sim::L2EvsetsModel& ev = dev_.config().l2_evsets;  // the config's l2_evsets (sim/l2_evsets.hpp)
    o.l2_evsets_bytes = ev.present ? ev.capacity_bytes() : 0;
    if (!m.present) return o;
    o.max_cluster = m.dsmem.max_cluster;
    const auto& methods = m.async_copy.methods;
    o.cp_async = methods.count("cp_async") > 0;
    o.bulk_copies = methods.count("bulk") > 0;
    o.tensor_copies = methods.count("tensor") > 0;
    o.multicast = m.async_copy.multicast;
    o.host_mapped = m.host.present;
    o.managed = m.host.managed.present;
    o.host_bytes = m.host.present ? m.host.host_bytes : 0;
    for (const auto& p : m.peers) o.peers.push_back(p.device);
    std::sort(o.peers.begin(), o.peers.end());
    return o;
  }

  // Each call of one benchmark (its repetitions) draws its own noise, the same in every process.
  LevelResult run_level(const LevelRequest& r) override {
    sim::LevelQuery q{r.family, r.params};
    std::string key = r.family;
    for (const auto& [k, v] : r.params) key += "/" + k + ":" + v;
    if (r.family == "l2_slices") return run_slices(r, level_calls_[key]++);
    if (r.family == "l2_evsets") return run_evsets_sim(r, level_calls_[key]++);
    sim::LevelAnswer a = sim::answer_level(dev_.config().beyond_sm, q, level_calls_[key]++);
    LevelResult out;
    out.error = std::move(a.error);
    out.counters = std::move(a.counters);
    out.seconds = a.seconds;
    return out;
  }

 private:
  // l2_slices from the config's sliced L2: the trace and counters of bench/levels/l2_slices_cuda.cu.
  LevelResult run_slices(const LevelRequest& r, std::uint64_t call) {
    const sim::L2SlicesModel& m = dev_.config().l2_slices;
    if (!m.present) return {"the simulated device models no sliced L2 (no l2_slices in its config)", {}, 0, {}};
    if (r.text("op") == "contention") return run_slice_contention(m, r, call);
    if (r.text("op") != "fingerprint") return {"unknown l2_slices op '" + r.text("op") + "'", {}, 0, {}};
    const int pages = static_cast<int>(r.num("pages", 2)), bases = static_cast<int>(r.num("bases", 8));
    const int repeats = static_cast<int>(r.num("hits", 24)), passes = static_cast<int>(r.num("passes", 2));
    if (pages < 1 || bases < 1 || repeats < 1 || passes < 1 || passes > 4)
      return {"l2_slices: pages, bases and repeats must be >= 1, passes 1 ... 4", {}, 0, {}};
    const std::vector<std::uint64_t> offsets = slice_test_offsets(pages, bases);
    const sim::SliceFingerprint f = sim::slice_fingerprint(m, offsets, repeats, passes, call);
    const std::size_t n = offsets.size(), sms = f.sm_ids.size();
    LevelResult out = fingerprint_result(f.sm_ids, 0, offsets, repeats, passes, 0,
                                         [&](std::size_t slot, std::uint32_t pass, std::size_t k) {
                                           return f.cycles[(static_cast<std::size_t>(pass) * sms + slot) * n + k];
                                         });
    out.seconds = f.seconds;
    return out;
  }

  // l2_evsets: the plan of bench/plans/l2_evsets_plan.hpp against the config's whole-L2 model.
  LevelResult run_evsets_sim(const LevelRequest& r, std::uint64_t call) {
    const sim::L2EvsetsModel& m = dev_.config().l2_evsets;
    if (!m.present) return {"the simulated device models no whole-L2 eviction sets (no l2_evsets in its config)", {}, 0, {}};
    const long long pool = r.num("pool", 3), targets = r.num("targets", 4), passes = r.num("passes", 2);
    if (pool < 1 || pool > 8 || targets < 1 || targets > 48 || passes < 1 || passes > 16)  // as the CUDA backend
      return {"l2_evsets: pool 1 ... 8 (x the L2), targets 1 ... 48, passes 1 ... 16", {}, 0, {}};
    EvsetParams p;
    p.targets = static_cast<int>(targets);
    p.passes = static_cast<int>(passes);
    SimEvsetOracle o(m, static_cast<std::uint64_t>(pool), call, static_cast<double>(dev_.config().device.sm_clock_khz) * 1e3);
    return run_evsets(o, p);
  }

  // The contention run (bench/plans/l2_slices_plan.hpp) against the model: each probe's records quiet and
  // with the reference hammered.
  static LevelResult run_slice_contention(const sim::L2SlicesModel& m, const LevelRequest& r, std::uint64_t call) {
    const int pages = static_cast<int>(r.num("pages", 2)), bases = static_cast<int>(r.num("bases", 8));
    const int hits = static_cast<int>(r.num("hits", 6)), copies = static_cast<int>(r.num("copies", 4));
    if (pages < 1 || bases < 1 || hits < 1 || copies < 1 || m.sm_count < 4)
      return {"l2_slices contention: needs lines, hits >= 1, copies >= 1 and at least 4 SMs", {}, 0, {}};
    const std::vector<std::uint64_t> offsets = slice_test_offsets(pages, bases);
    std::vector<unsigned> ids;
    for (int s = 0; s < m.sm_count; ++s) ids.push_back(static_cast<unsigned>(s));
    const ContentionLayout lay = contention_layout(ids, static_cast<std::uint32_t>(offsets.size()), copies);
    std::uint64_t launch = 0;
    return run_contention_plan(lay, offsets, hits, [&](std::uint32_t target, std::vector<std::uint32_t>* out, std::uint32_t*) {
      double longest = 0;
      ++launch;
      for (std::size_t k = 0; k < lay.probe_sms.size(); ++k) {
        double total = 0;
        for (std::uint32_t i = 0; i < lay.per_probe; ++i) {
          const std::uint64_t off = offsets[lay.probe_lines[k * lay.per_probe + i]];
          const std::size_t at = (k * lay.per_probe + i) * 2;
          (*out)[at] = sim::slice_record(m, lay.probe_sms[k], off, hits, call * 7919 + launch * 2, UINT64_MAX);
          (*out)[at + 1] = sim::slice_record(m, lay.probe_sms[k], off, hits, call * 7919 + launch * 2 + 1, offsets[target]);
          total += (*out)[at] + (*out)[at + 1];
        }
        longest = std::max(longest, total);
      }
      return longest / m.sm_clock_hz;
    });
  }

  sim::SimDevice dev_;
  std::map<std::string, std::uint64_t> level_calls_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const std::string& config_path) {
  return std::make_unique<SimBackend>(sim::load_config(config_path));
}

}  // namespace memhier
