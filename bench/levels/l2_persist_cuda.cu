// The CUDA side of the l2_persist family (docs/methodology.md, section l2_persist; issue 20 item 4):
//   l2_persist/request:S/window:W/ratio:R[/policy:none]
// The persisting set-aside is set to S bytes (cudaLimitPersistingL2CacheSize, read back), a stream
// carries an access policy window over W bytes (hitProp Persisting, missProp Streaming, hitRatio
// R/100); with policy:none (the window-free control, R = 0) that stream carries no access policy
// window at all, so the window's lines are warmed with normal loads. Per trial: reset the persisting lines, flush, warm the window on its stream, stream a
// co-runner of 8 x L2 normal accesses on another stream, then probe: per line one timed ld.cg,
// hit or miss by a threshold between the hit and the miss references of the same launch. The limit
// and the persisting lines are restored afterwards, also when a step fails (PersistScope).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/core/guard.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "kernels/l2_persist.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::levels {

namespace {

constexpr std::uint64_t kLineBytes = 128;
constexpr std::uint32_t kMaxSamples = 65536;
constexpr std::uint64_t kCorunnerL2s = 8;  // the co-runner streams this many times the L2
constexpr int kStreamThreads = 256, kStreamCtasPerSm = 4, kProbeThreads = 32;

struct PersistAttrs {
  std::uint64_t max_persisting = 0, max_window = 0;
};

PersistAttrs persist_attrs(const DeviceDescription& d) {
  int a = 0, b = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&a, cudaDevAttrMaxPersistingL2CacheSize, d.index));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&b, cudaDevAttrMaxAccessPolicyWindowSize, d.index));
  return {static_cast<std::uint64_t>(std::max(a, 0)), static_cast<std::uint64_t>(std::max(b, 0))};
}

// The family's buffers, made on first use (again when a larger window is asked for) and kept until
// the whole-memory chases free them.
struct PersistBuffers {
  DeviceBuffer<uint4> window, stream;           // window zeroed (the probe's loaded values are 0)
  DeviceBuffer<std::uint32_t> hot, cold, hist, sink;
  unsigned grid = 0;                            // probing CTAs (one per SM)
};

PersistBuffers*& buffer_slot() {
  static PersistBuffers* b = nullptr;
  return b;
}

PersistBuffers& buffers(const DeviceDescription& d, std::uint64_t window_bytes, std::uint64_t stream_bytes) {
  auto*& slot = buffer_slot();
  if (slot && (slot->window.bytes() < window_bytes || slot->stream.bytes() < stream_bytes)) {
    delete slot;
    slot = nullptr;
  }
  if (!slot) {
    auto b = std::make_unique<PersistBuffers>();
    b->grid = static_cast<unsigned>(std::max(d.sm_count, 2));
    const std::size_t ref_words = static_cast<std::size_t>(b->grid) * kern::kPersistRefLines * kern::kPersistLineWords;
    b->window = DeviceBuffer<uint4>(window_bytes / 16);
    b->stream = DeviceBuffer<uint4>(stream_bytes / 16);
    b->hot = DeviceBuffer<std::uint32_t>(ref_words);
    b->cold = DeviceBuffer<std::uint32_t>(ref_words);
    b->hist = DeviceBuffer<std::uint32_t>(3 * kern::kPersistBins);
    b->sink = DeviceBuffer<std::uint32_t>(2);
    b->window.zero();
    b->stream.zero();
    b->hot.zero();
    b->cold.zero();
    b->sink.zero();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    slot = b.release();
    keep_device_cache([] {
      delete buffer_slot();
      buffer_slot() = nullptr;
    });
  }
  return *slot;
}

// The persisting set-aside for one benchmark: set to the request (what the driver granted read
// back); on leaving, every persisting line reset to normal and the limit back to what it was.
class PersistScope {
 public:
  explicit PersistScope(std::size_t bytes) {
    MEMHIER_CUDA(cudaDeviceSynchronize());
    MEMHIER_CUDA(cudaDeviceGetLimit(&before_, cudaLimitPersistingL2CacheSize));
    try {
      MEMHIER_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes));
      MEMHIER_CUDA(cudaDeviceGetLimit(&granted_, cudaLimitPersistingL2CacheSize));
    } catch (...) {
      restore();
      throw;
    }
  }
  ~PersistScope() { restore(); }
  PersistScope(const PersistScope&) = delete;
  PersistScope& operator=(const PersistScope&) = delete;
  std::size_t granted() const { return granted_; }
  std::size_t before() const { return before_; }
  std::size_t now() const {
    std::size_t v = 0;
    MEMHIER_CUDA(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
    return v;
  }

 private:
  void restore() noexcept {
    MEMHIER_CUDA_NOEXCEPT(cudaDeviceSynchronize());
    MEMHIER_CUDA_NOEXCEPT(cudaCtxResetPersistingL2Cache());
    MEMHIER_CUDA_NOEXCEPT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before_));
  }
  std::size_t before_ = 0, granted_ = 0;
};

// Latency (cycles, the bin's centre) below which a fraction q of the histogram's counts lie.
double quantile(const std::uint32_t* h, double q) {
  double total = 0;
  for (std::uint32_t b = 0; b < kern::kPersistBins; ++b) total += h[b];
  if (total <= 0) return NAN;
  double run = 0;
  for (std::uint32_t b = 0; b < kern::kPersistBins; ++b) {
    run += h[b];
    if (run >= q * total) return (b + 0.5) * kern::kPersistBinWidth;
  }
  return (kern::kPersistBins - 0.5) * kern::kPersistBinWidth;
}

// The histogram's counts below (below = true) or from `threshold` cycles on.
std::vector<std::uint32_t> part(const std::uint32_t* h, double threshold, bool below) {
  std::vector<std::uint32_t> out(kern::kPersistBins, 0);
  for (std::uint32_t b = 0; b < kern::kPersistBins; ++b)
    if (((b + 0.5) * kern::kPersistBinWidth < threshold) == below) out[b] = h[b];
  return out;
}

double sum(const std::uint32_t* h) {
  double s = 0;
  for (std::uint32_t b = 0; b < kern::kPersistBins; ++b) s += h[b];
  return s;
}


struct Trial {
  double kept = 0, threshold = NAN, hit_hi = NAN, miss_lo = NAN, seconds = 0;
  bool separated = false;
  std::vector<std::uint32_t> hist;  // 3 x kPersistBins
};

// The threshold between the hit references' 95th and the miss references' 5th percentile (a few
// slow hits or fast misses move neither); where those overlap the trial decides nothing (separated
// false; the threshold between their medians).
void classify(Trial& t) {
  const std::uint32_t* hot = t.hist.data() + kern::kPersistHitRef * kern::kPersistBins;
  const std::uint32_t* win = t.hist.data() + kern::kPersistWindow * kern::kPersistBins;
  const std::uint32_t* cold = t.hist.data() + kern::kPersistMissRef * kern::kPersistBins;
  t.hit_hi = quantile(hot, 0.95);
  t.miss_lo = quantile(cold, 0.05);
  t.separated = std::isfinite(t.hit_hi) && std::isfinite(t.miss_lo) && t.hit_hi < t.miss_lo;
  t.threshold = t.separated ? (t.hit_hi + t.miss_lo) / 2 : (quantile(hot, 0.5) + quantile(cold, 0.5)) / 2;
  const auto hits = part(win, t.threshold, true);
  t.kept = sum(hits.data());
}

struct Plan {
  std::uint64_t window_bytes = 0, stream_bytes = 0;
  std::uint32_t samples = 0;
  std::uint64_t lines = 0;  // the window's lines, every one of them in some sample's block
  int trials = 3;
  float hit_ratio = 1;
  bool policy_window = true;  // false: policy:none, the warm stream carries no access policy window
};

Trial run_trial(const DeviceDescription& d, PersistBuffers& b, const Plan& p, const Stream& win, const Stream& plain) {
  const unsigned stream_grid = static_cast<unsigned>(d.sm_count * kStreamCtasPerSm);
  kern::PersistProbeArgs a{};
  a.window = reinterpret_cast<const std::uint32_t*>(b.window.get());
  a.window_lines = p.lines;
  a.samples = p.samples;
  a.hot = b.hot.get();
  a.cold = b.cold.get();
  a.hist = b.hist.get();
  a.sink = b.sink.get();
  MEMHIER_CUDA(cudaCtxResetPersistingL2Cache());
  // flush: one normal pass over the stream buffer
  kern::persist_stream<<<stream_grid, kStreamThreads, 0, plain.get()>>>(b.stream.get(), p.stream_bytes / 16, b.sink.get());
  MEMHIER_LAUNCH_CHECK();
  plain.sync();
  EventTimer t0(win.get()), t1(plain.get());
  t0.start();
  // warm: every sector of the window once, on the window's stream (persisting)
  kern::persist_stream<<<stream_grid, kStreamThreads, 0, win.get()>>>(b.window.get(), p.window_bytes / 16, b.sink.get());
  MEMHIER_LAUNCH_CHECK();
  t0.stop();
  win.sync();
  t1.start();
  // the co-runner: normal accesses on a stream without a window
  kern::persist_stream<<<stream_grid, kStreamThreads, 0, plain.get()>>>(b.stream.get(), p.stream_bytes / 16, b.sink.get());
  MEMHIER_LAUNCH_CHECK();
  MEMHIER_CUDA(cudaMemsetAsync(b.hist.get(), 0, b.hist.bytes(), plain.get()));
  kern::persist_touch_hot<<<b.grid, kProbeThreads, 0, plain.get()>>>(a);
  MEMHIER_LAUNCH_CHECK();
  kern::persist_probe<<<b.grid, kProbeThreads, 0, plain.get()>>>(a);
  MEMHIER_LAUNCH_CHECK();
  t1.stop();
  plain.sync();
  Trial t;
  t.seconds = t0.seconds() + t1.seconds();
  t.hist = b.hist.download();
  classify(t);
  return t;
}

// The persisting limit around a benchmark: before it set its own, granted (read back after the
// set), after the trials (read back again before it is restored).
struct Limits {
  std::size_t before = 0, granted = 0, after = 0;
};

void add_counters(const Plan& p, const PersistAttrs& at, std::uint64_t request, const Limits& lim,
                  const std::vector<Trial>& trials, LevelResult* res) {
  auto& c = res->counters;
  std::vector<double> kept;
  std::vector<std::uint32_t> pooled(3 * kern::kPersistBins, 0), hits(kern::kPersistBins, 0), misses(kern::kPersistBins, 0);
  bool separated = true;
  std::vector<double> thresholds, hit_hi, miss_lo;
  for (const Trial& t : trials) {
    kept.push_back(t.kept);
    hit_hi.push_back(t.hit_hi);
    miss_lo.push_back(t.miss_lo);
    separated = separated && t.separated;
    thresholds.push_back(t.threshold);
    for (std::size_t i = 0; i < pooled.size(); ++i) pooled[i] += t.hist[i];
    const std::uint32_t* win = t.hist.data() + kern::kPersistWindow * kern::kPersistBins;
    const auto h = part(win, t.threshold, true), m = part(win, t.threshold, false);
    for (std::uint32_t i = 0; i < kern::kPersistBins; ++i) {
      hits[i] += h[i];
      misses[i] += m[i];
    }
    res->seconds += t.seconds;
  }
  const double probed = p.samples, k = level_median(kept);
  const double line_fraction = probed > 0 ? k / probed : NAN;
  c["requested_bytes"] = static_cast<double>(request);
  c["set_aside_bytes"] = static_cast<double>(lim.granted);
  c["limit_before_bytes"] = static_cast<double>(lim.before);
  c["set_aside_after_bytes"] = static_cast<double>(lim.after);
  c["access_policy_window"] = p.policy_window ? 1 : 0;
  c["window_bytes"] = static_cast<double>(p.window_bytes);
  c["hit_ratio"] = p.hit_ratio;
  c["max_persisting_bytes"] = static_cast<double>(at.max_persisting);
  c["accesses"] = probed;
  c["probe_span_bytes"] = static_cast<double>(p.lines * kLineBytes);  // the window's part the samples came from: all of it
  c["misses"] = probed - k;
  c["miss_rate"] = 1 - line_fraction;
  c["kept_fraction"] = line_fraction;
  c["kept_bytes"] = line_fraction * static_cast<double>(p.window_bytes);
  c["kept_bytes_min"] = *std::min_element(kept.begin(), kept.end()) / probed * static_cast<double>(p.window_bytes);
  c["kept_bytes_max"] = *std::max_element(kept.begin(), kept.end()) / probed * static_cast<double>(p.window_bytes);
  if (sum(hits.data()) > 0) c["hit_latency_cycles"] = quantile(hits.data(), 0.5);
  if (sum(misses.data()) > 0) c["miss_latency_cycles"] = quantile(misses.data(), 0.5);
  c["ref_hit_latency_cycles"] = quantile(pooled.data() + kern::kPersistHitRef * kern::kPersistBins, 0.5);
  c["ref_miss_latency_cycles"] = quantile(pooled.data() + kern::kPersistMissRef * kern::kPersistBins, 0.5);
  c["threshold_cycles"] = level_median(thresholds);
  c["ref_hit_p95_cycles"] = level_median(hit_hi);
  c["ref_miss_p5_cycles"] = level_median(miss_lo);
  c["separated"] = separated ? 1 : 0;
  c["corunner_bytes"] = static_cast<double>(p.stream_bytes);
  c["trials"] = static_cast<double>(trials.size());
}

}  // namespace

void offer_persist(const DeviceDescription& d, LevelOffer* o) {
  const PersistAttrs a = persist_attrs(d);
  o->persisting_l2_max_bytes = a.max_persisting;
  o->access_policy_max_window_bytes = a.max_window;
}

std::map<std::string, std::string> persist_context(const DeviceDescription& d) {
  const PersistAttrs a = persist_attrs(d);
  return {{"l2_persisting_max_bytes", std::to_string(a.max_persisting)},
          {"access_policy_max_window_bytes", std::to_string(a.max_window)}};
}

LevelResult run_l2_persist(const DeviceDescription& d, const LevelRequest& r) {
  const PersistAttrs at = persist_attrs(d);
  if (at.max_persisting == 0) return {"this device offers no persisting L2 set-aside (persistingL2CacheMaxSize 0)", {}, 0};
  const long long request = r.num("request", -1), window = r.num("window", -1), ratio = r.num("ratio", 100);
  if (request < 0 || static_cast<std::uint64_t>(request) > at.max_persisting)
    return {"request must lie in [0, " + std::to_string(at.max_persisting) + "] bytes (persistingL2CacheMaxSize)", {}, 0};
  if (window < static_cast<long long>(kLineBytes) || static_cast<std::uint64_t>(window) > at.max_window || window % 16 != 0)
    return {"window must be a multiple of 16 bytes in [128, " + std::to_string(at.max_window) + "] (accessPolicyMaxWindowSize)", {}, 0};
  if (ratio < 0 || ratio > 100) return {"ratio must be a percentage in [0, 100]", {}, 0};
  const std::string policy = r.text("policy").empty() ? "persisting" : r.text("policy");
  if (policy != "persisting" && policy != "none")
    return {"policy must be persisting (an access policy window, the default) or none (no window: the control)", {}, 0};
  if (policy == "none" && ratio != 0)
    return {"policy:none marks no line persisting: its ratio must be 0", {}, 0};
  Plan p;
  p.policy_window = policy == "persisting";
  p.window_bytes = static_cast<std::uint64_t>(window);
  const std::uint64_t l2s = min_work() ? 2 : kCorunnerL2s;
  p.stream_bytes = std::max<std::uint64_t>(1, std::min(l2s * d.l2_bytes, d.global_mem_bytes / 4) / (64 << 10)) * (64 << 10);
  p.lines = p.window_bytes / kLineBytes;
  p.samples = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.lines, min_work() ? 4096 : kMaxSamples));
  p.trials = min_work() ? 1 : 3;
  p.hit_ratio = static_cast<float>(ratio) / 100.0f;
  PersistBuffers& b = buffers(d, p.window_bytes, p.stream_bytes);
  std::vector<Trial> trials;
  Limits lim;
  {
    PersistScope scope(static_cast<std::size_t>(request));
    lim.before = scope.before();
    lim.granted = scope.granted();
    Stream win, plain;
    if (p.policy_window) {
      cudaStreamAttrValue attr{};
      attr.accessPolicyWindow.base_ptr = b.window.get();
      attr.accessPolicyWindow.num_bytes = p.window_bytes;
      attr.accessPolicyWindow.hitRatio = p.hit_ratio;
      attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
      attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
      MEMHIER_CUDA(cudaStreamSetAttribute(win.get(), cudaStreamAttributeAccessPolicyWindow, &attr));
    }
    for (int i = 0; i < p.trials; ++i) trials.push_back(run_trial(d, b, p, win, plain));
    lim.after = scope.now();
  }
  LevelResult res;
  add_counters(p, at, static_cast<std::uint64_t>(request), lim, trials, &res);
  return res;
}

}  // namespace memhier::levels
