#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "bench/backends/backend_cuda.hpp"
#include "bench/backends/backend_cuda_sequence.hpp"
#include "bench/backends/backend_cuda_streams.hpp"
#include "bench/core/guard.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "bench/wide/wide_cuda.hpp"
#include "kernels/pchase.cuh"
#include "runtime/buffers.hpp"
#include "runtime/clock_check.hpp"
#include "runtime/device_info.hpp"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

using kern::ChaseJob;
using kern::ChaseLaunch;
using kern::ChaseMode;
using kern::LoadPath;
using KernelFn = void (*)(ChaseLaunch);

template <LoadPath P>
KernelFn kernel_for_mode(Mode m) {
  switch (m) {
    case Mode::classic: return kern::pchase_kernel<P, ChaseMode::classic>;
    case Mode::fine: return kern::pchase_kernel<P, ChaseMode::fine>;
    case Mode::count: return kern::pchase_kernel<P, ChaseMode::count>;
  }
  return nullptr;
}

KernelFn kernel_for(Path p, Mode m) {
  switch (p) {
    case Path::global_ca: return kernel_for_mode<LoadPath::global_ca>(m);
    case Path::global_cg: return kernel_for_mode<LoadPath::global_cg>(m);
    case Path::ldg: return kernel_for_mode<LoadPath::ldg>(m);
    case Path::texture: return kernel_for_mode<LoadPath::texture>(m);
    case Path::constant: return kernel_for_mode<LoadPath::constant>(m);
    case Path::shared: return kernel_for_mode<LoadPath::shared>(m);
  }
  return nullptr;
}

std::uint64_t round_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

std::uint32_t median_of(std::vector<std::uint32_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int index) : desc_(describe_device(index)) {
    MEMHIER_CUDA(cudaSetDevice(index));
    MEMHIER_CUDA(cudaFree(nullptr));  // create the context now, not inside the first timing
    MEMHIER_CUDA(cudaDeviceGetAttribute(&max_tex_width_, cudaDevAttrMaxTexture1DLinearWidth, index));
    clock_start_mhz_ = measure_sm_clock_mhz();
    wide_limits_ = cuda_wide_limits(desc_);
    size_t free = 0, total = 0;  // what other processes left (the whole-memory families are sized to it)
    MEMHIER_CUDA(cudaMemGetInfo(&free, &total));
    memory_free_at_start_ = free;
  }

  std::string name() const override { return "cuda"; }

  DeviceFigures figures() const override {
    DeviceFigures f;
    f.sm_count = desc_.sm_count;
    f.smem_per_sm_bytes = desc_.smem_per_sm_bytes;
    f.smem_per_block_optin = desc_.smem_per_block_optin_bytes;
    f.l1_smem_bytes = 0;  // not reported by CUDA: measured
    f.l2_bytes = desc_.l2_bytes;
    f.global_mem_bytes = desc_.global_mem_bytes;
    f.const_bytes = std::min<std::uint64_t>(desc_.const_mem_bytes, kern::kConstElements * 4ull);
    f.sm_clock_khz = desc_.sm_clock_khz;
    f.cc_major = desc_.cc_major;
    f.cc_minor = desc_.cc_minor;
    return f;
  }

  std::map<std::string, std::string> context() const override {
    auto c = desc_.context();
    for (const auto& [k, v] : levels::link_context(desc_)) c[k] = v;
    for (const auto& [k, v] : levels::persist_context(desc_)) c[k] = v;
    c["sm_clock_measured_mhz_start"] = std::to_string(clock_start_mhz_);
    c["memory_free_bytes_at_start"] = std::to_string(memory_free_at_start_);
    return c;
  }

  // Throttle check: the SM clock from clock64 against %globaltimer, at the start and the end.
  std::map<std::string, std::string> end_context() override {
    const double end = measure_sm_clock_mhz();
    const double nominal = desc_.sm_clock_khz / 1e3;
    std::map<std::string, std::string> c;
    c["sm_clock_measured_mhz_end"] = std::to_string(end);
    // only the end counts: at the start the clock may still be ramping up from idle
    c["sm_clock_throttled"] = end < 0.9 * nominal ? "true" : "false";
    return c;
  }

  bool supports(Path) const override { return true; }

  LevelOffer level_offer() const override {
    if (!offer_) {  // asked by each level family at registration: probe once
      LevelOffer o;
      levels::offer_sm(desc_, &o);
      levels::offer_links(desc_, &o);
      o.l2_slices = desc_.l2_bytes > 0;
      if (desc_.cc_major >= 8) o.l2_evsets_bytes = desc_.l2_bytes;  // discard.global.L2: sm_80 on
      levels::offer_persist(desc_, &o);
      offer_ = o;
    }
    return *offer_;
  }

  LevelResult run_level(const LevelRequest& r) override {
    if (r.family == "dsmem") return levels::run_dsmem(desc_, r);
    if (r.family == "async_copy") return levels::run_async_copy(desc_, r);
    if (r.family == "host") return levels::run_host(desc_, r);
    if (r.family == "peer") return levels::run_peer(desc_, r);
    if (r.family == "l2_slices") return levels::run_l2_slices(desc_, r);
    if (r.family == "l2_persist") return levels::run_l2_persist(desc_, r);
    if (r.family == "l2_evsets") return levels::run_l2_evsets(desc_, r);
    return Backend::run_level(r);
  }

  // After a failure: a non-sticky error (out of memory, a launch the device refused) is cleared by
  // cudaGetLastError and the device stays usable; a sticky one (illegal address, a trap, ECC)
  // comes back from every later call, including this synchronisation.
  std::string device_fault() override {
    (void)cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e == cudaSuccess) return {};
    return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
  }

  // The dynamic shared memory of pchase_kernel: [records: 2 x max_records | histogram | shared array]
  std::uint64_t shared_memory_needed(Path p, Mode m, std::uint64_t array_bytes, std::uint64_t max_records) const override {
    const std::uint64_t records = m == Mode::fine ? max_records : 0;
    const std::uint64_t bins = m == Mode::count ? kHistBins : 0;
    return (2 * records + bins + (p == Path::shared ? array_bytes / 4 : 0)) * 4;
  }
  // Whole-memory chases (bench/wide/wide_cuda.cu): the scratch buffers of the other chases go first, so
  // that the group can map nearly all free memory.
  std::vector<WideChaseResult> run_wide_batch(const std::vector<WideChaseRequest>& rs) override {
    release_device_caches();  // the families' kept buffers (bench/core/guard.hpp)
    sequences_.reset();       // the sequence runner's array (up to 4 GiB)
    streams_.reset();         // the stream runner's array (targets region and pool)
    pool_.reset();
    flush_.reset();
    tlb_flush_.reset();
    return run_wide_cuda(desc_, wide_limits_, clock_overhead(), rs);
  }
  WideLimits wide_limits() const override { return wide_limits_; }

  int parallel_chases(Path p) const override {
    return (p == Path::constant || p == Path::global_cg) ? 1 : desc_.sm_count;
  }

  std::uint64_t max_array_bytes(Path p) const override {
    switch (p) {
      case Path::constant: return kern::kConstElements * 4ull;
      case Path::shared: return desc_.smem_per_block_optin_bytes - kSharedReserve;
      case Path::texture: return static_cast<std::uint64_t>(max_tex_width_) * 4ull;
      default: return std::min<std::uint64_t>(desc_.global_mem_bytes / 2, 0xFFFFFFFFull * 4ull);
    }
  }

  ClockOverhead clock_overhead() override {
    if (have_overhead_) return overhead_;
    DeviceBuffer<std::uint32_t> out(513);
    kern::clock_overhead_kernel<<<1, 32>>>(out.get(), 256, 12345u);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    auto v = out.download();
    overhead_.clock_pair_cycles = median_of({v.begin() + 16, v.begin() + 256});  // skip cold start
    overhead_.fine_cycles = median_of({v.begin() + 256 + 16, v.begin() + 512});
    overhead_.classic_cycles = overhead_.clock_pair_cycles;
    have_overhead_ = true;
    return overhead_;
  }

  ChaseResult run_chase(const ChaseRequest& r) override {
    auto res = run_launch({&r}, /*batch=*/false);
    return res[0];
  }

  // Access sequences: kernels/sequence.cuh in its own translation unit (bench/backends/backend_cuda_sequence.cu).
  SequenceResult run_sequence(const SequenceRequest& r) override {
    if (!sequences_)
      sequences_ = std::make_unique<CudaSequenceRunner>(CudaSequenceRunner::Device{
          desc_.sm_count, desc_.smem_per_block_optin_bytes, static_cast<std::uint64_t>(max_tex_width_)});
    return sequences_->run(r, static_cast<std::uint32_t>(std::lround(clock_overhead().fine_cycles)));
  }
  std::size_t max_sequence_runs() const override { return CudaSequenceRunner::max_runs_per_launch(); }
  // Random-stream trials: kernels/cache_streams.cuh (bench/backends/backend_cuda_streams.cu).
  StreamsResult run_streams(const StreamsRequest& r) override {
    if (!streams_)
      streams_ = std::make_unique<CudaStreamsRunner>(CudaStreamsRunner::Device{
          desc_.sm_count, desc_.smem_per_block_optin_bytes, static_cast<std::uint64_t>(max_tex_width_)});
    return streams_->run(r, static_cast<std::uint32_t>(std::lround(clock_overhead().fine_cycles)));
  }

  std::vector<ChaseResult> run_chase_batch(const std::vector<ChaseRequest>& rs) override {
    std::vector<ChaseResult> out(rs.size());
    if (rs.empty()) return out;
    // Requests must share path and mode to share a launch; otherwise run them one by one.
    bool uniform = parallel_chases(rs[0].path) > 1;
    for (const auto& r : rs)
      uniform = uniform && r.path == rs[0].path && r.mode == rs[0].mode && r.carveout == rs[0].carveout &&
                r.hist_bin_width == rs[0].hist_bin_width && r.max_records == rs[0].max_records;
    if (!uniform) return Backend::run_chase_batch(rs);
    std::vector<std::size_t> pending(rs.size());
    for (std::size_t i = 0; i < rs.size(); ++i) pending[i] = i;
    for (int attempt = 0; attempt < 6 && !pending.empty(); ++attempt) {
      std::vector<std::size_t> next;
      // Waves of at most one chase per SM whose arrays together fit in half the L2, so that a
      // per-SM cache's misses are served by the L2 and not by DRAM because of the other SMs.
      std::vector<std::vector<std::size_t>> waves(1);
      std::uint64_t wave_bytes = 0;
      const std::uint64_t budget = std::max<std::uint64_t>(desc_.l2_bytes / 2, 1);
      for (std::size_t i : pending) {
        const std::uint64_t b = rs[i].array_bytes;
        if (!waves.back().empty() &&
            (waves.back().size() >= static_cast<std::size_t>(desc_.sm_count) || wave_bytes + b > budget)) {
          waves.emplace_back();
          wave_bytes = 0;
        }
        waves.back().push_back(i);
        wave_bytes += b;
      }
      for (const auto& ids : waves) {
        std::vector<const ChaseRequest*> wave;
        for (std::size_t i : ids) wave.push_back(&rs[i]);
        auto res = run_launch(wave, /*batch=*/true);
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (res[i].error == kNotRun) next.push_back(ids[i]);
          else out[ids[i]] = std::move(res[i]);
        }
      }
      pending = std::move(next);
    }
    for (auto i : pending) out[i].error = "no SM took this chase after 6 launches";
    return out;
  }

 private:
  mutable std::optional<LevelOffer> offer_;
  static constexpr std::uint64_t kSharedReserve = 0;  // shared path: records/histogram come first
  static constexpr const char* kNotRun = "__not_run__";

  std::uint32_t* pool(std::uint64_t bytes) {
    if (pool_.bytes() < bytes) {
      pool_.reset();
      pool_ = DeviceBuffer<std::uint32_t>(round_up(bytes, 1ull << 21) / 4);
    }
    return pool_.get();
  }

  std::vector<ChaseResult> run_launch(const std::vector<const ChaseRequest*>& rs, bool batch) {
    const ChaseRequest& r0 = *rs[0];
    std::vector<ChaseResult> out(rs.size());
    const ClockOverhead oh = clock_overhead();
    const std::uint32_t records = r0.mode == Mode::fine ? r0.max_records : 0;
    const std::uint32_t bins = r0.mode == Mode::count ? kHistBins : 0;
    const std::uint32_t bw = std::max<std::uint32_t>(1, r0.hist_bin_width);

    // Validate and lay out: each job's array aligned to a power of two ≥ its size (≥ 64 KiB) so
    // that every job sees the same address bits as a lone run at offset 0.
    std::uint64_t align = 1ull << 16;
    std::uint64_t max_shared_bytes = 0;
    for (const auto* r : rs) {
      if (r->chain.empty()) throw std::invalid_argument("empty chain");
      if (r->array_bytes > max_array_bytes(r->path))
        return fail_all(rs.size(), "array of " + std::to_string(r->array_bytes) + " bytes exceeds the " +
                                       path_name(r->path) + " limit of " +
                                       std::to_string(max_array_bytes(r->path)) + " bytes on this device");
      while (align < r->array_bytes) align <<= 1;
      if (r->path == Path::shared) max_shared_bytes = std::max(max_shared_bytes, r->array_bytes);
    }
    const std::uint64_t dyn_smem = shared_memory_needed(r0.path, r0.mode, max_shared_bytes, records);
    if (dyn_smem > desc_.smem_per_block_optin_bytes)
      return fail_all(rs.size(), "needs " + std::to_string(dyn_smem) + " bytes of shared memory; the device allows " +
                                     std::to_string(desc_.smem_per_block_optin_bytes) + " per block");
    const std::uint64_t region = batch ? align : round_up(r0.array_bytes, 1ull << 16);
    std::uint32_t* base = pool(region * rs.size());

    // Arrays.
    std::vector<ChaseJob> jobs(rs.size());
    std::unique_ptr<ConstantUpload<std::uint32_t, kern::kConstElements>> constant_upload;  // constant path
    const std::uint64_t total_iters_max = [&] {
      std::uint64_t m = 0;
      for (auto* r : rs) m = std::max(m, r->iters);
      return m;
    }();
    (void)total_iters_max;
    DeviceBuffer<unsigned long long> d_hist(std::max<std::size_t>(1, rs.size() * bins));
    DeviceBuffer<std::uint32_t> d_rec(std::max<std::size_t>(1, rs.size() * 2ull * records));
    DeviceBuffer<unsigned long long> d_sum(rs.size());
    DeviceBuffer<std::uint32_t> d_last(rs.size());
    DeviceBuffer<int> d_smid(rs.size());
    DeviceBuffer<unsigned long long> d_stat(rs.size() * kern::kChaseStatWords);
    MEMHIER_CUDA(cudaMemset(d_smid.get(), 0xFF, d_smid.bytes()));
    // Every buffer that comes back is defined, also where a job wrote less (compute-sanitizer
    // initcheck: a fine chase writes min(iters, max_records) records; a job no SM took, nothing).
    d_hist.zero();
    d_rec.zero();
    d_sum.zero();
    d_last.zero();
    d_stat.zero();
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const ChaseRequest& r = *rs[i];
      std::uint32_t* arr = base + i * (region / 4);
      const std::uint32_t value_offset = r.path == Path::texture ? static_cast<std::uint32_t>(i * (region / 4)) : 0u;
      if (r.path == Path::constant) {
        auto host = chain_to_array(r.chain, r.array_bytes / 4);
        for (auto& x : host) if (x == 0xFFFFFFFFu) x = 0;
        constant_upload = std::make_unique<ConstantUpload<std::uint32_t, kern::kConstElements>>(
            kern::c_chase, host.data(), host.size());
      } else {
        DeviceBuffer<std::uint32_t> d_chain(r.chain.size());
        d_chain.upload(r.chain);
        const unsigned blocks = static_cast<unsigned>(std::min<std::uint64_t>(4096, (r.chain.size() + 255) / 256));
        kern::scatter_chain_kernel<<<blocks, 256>>>(arr, d_chain.get(), r.chain.size(), value_offset);
        MEMHIER_LAUNCH_CHECK();
        MEMHIER_CUDA(cudaDeviceSynchronize());
      }
      ChaseJob& J = jobs[i];
      J.array = arr;
      J.tex_offset = value_offset;
      J.start = r.chain[0];
      J.chain_len = static_cast<std::uint32_t>(r.chain.size());
      J.shared_elems = r.path == Path::shared ? static_cast<std::uint32_t>(r.array_bytes / 4) : 0u;
      J.iters = r.iters;
      J.warm = r.warm ? 1 : 0;
      J.out_index = d_rec.get() + i * 2ull * records;
      J.out_latency = J.out_index + records;
      J.out_hist = d_hist.get() + i * bins;
      J.out_sum = d_sum.get() + i;
      J.out_last = d_last.get() + i;
      J.out_smid = d_smid.get() + i;
      J.out_stat = d_stat.get() + i * kern::kChaseStatWords;
    }
    DeviceBuffer<ChaseJob> d_jobs(jobs.size());
    d_jobs.upload(jobs);
    if (!r0.warm && r0.path != Path::shared && r0.path != Path::constant) make_cold();
    DeviceBuffer<int> d_claims(1024 + 1);
    d_claims.zero();

    std::unique_ptr<TextureObject> tex;
    if (r0.path == Path::texture) tex = std::make_unique<TextureObject>(base, region / 4 * rs.size());

    ChaseLaunch L{};
    L.jobs = d_jobs.get();
    L.njobs = static_cast<int>(jobs.size());
    L.batch = batch ? 1 : 0;
    L.sm_claims = d_claims.get();
    L.next_job = d_claims.get() + 1024;
    L.tex = tex ? tex->get() : 0;
    L.max_records = records;
    L.hist_bins = bins;
    L.bin_width = bw;
    L.overhead = r0.mode == Mode::classic ? 0u : static_cast<std::uint32_t>(std::lround(oh.fine_cycles));
    L.budget_cycles = static_cast<unsigned long long>(benchmark_budget_seconds() * desc_.sm_clock_khz * 1e3);

    KernelFn fn = kernel_for(r0.path, r0.mode);
    MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn_smem)));
    const int carveout = path_uses_carveout(r0.path) ? (r0.carveout < 0 ? 0 : r0.carveout) : -1;
    if (carveout >= 0)
      MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    const unsigned grid = batch ? static_cast<unsigned>(2 * desc_.sm_count) : 1u;
    EventTimer timer;
    timer.start();
    fn<<<grid, 32, dyn_smem>>>(L);
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    const double seconds = timer.seconds();
    MEMHIER_CUDA(cudaDeviceSynchronize());

    auto sums = d_sum.download();
    auto smids = d_smid.download();
    auto stats = d_stat.download();
    std::vector<unsigned long long> hist = bins ? d_hist.download() : std::vector<unsigned long long>{};
    std::vector<std::uint32_t> rec = records ? d_rec.download() : std::vector<std::uint32_t>{};
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const ChaseRequest& r = *rs[i];
      ChaseResult& o = out[i];
      if (smids[i] < 0) {
        o.error = kNotRun;
        continue;
      }
      o.sm_id = smids[i];
      const unsigned long long* st = stats.data() + i * kern::kChaseStatWords;
      if (st[kern::kStatWatchdog]) {
        o.error = "watchdog: stopped after " + std::to_string(st[kern::kStatDone]) + " of " + std::to_string(r.iters) +
                  " timed accesses, over the per-benchmark budget of " + std::to_string(benchmark_budget_seconds()) +
                  " s of GPU time (--memhier_budget_s)";
        continue;
      }
      judge_clock(st[kern::kStatCycles], st[kern::kStatNanoseconds], &o);
      o.carveout = carveout;
      o.seconds = seconds;
      o.accesses = r.iters;
      if (r.mode == Mode::classic) {
        o.clock_overhead_cycles = oh.clock_pair_cycles / std::max<double>(1, r.iters);
        o.latency_cycles = (static_cast<double>(sums[i]) - oh.clock_pair_cycles) / std::max<double>(1, r.iters);
      } else {
        o.clock_overhead_cycles = L.overhead;
        o.latency_cycles = static_cast<double>(sums[i]) / std::max<double>(1, r.iters);
      }
      if (r.mode == Mode::count) {
        o.hist.bin_width = bw;
        o.hist.counts.assign(hist.begin() + i * bins, hist.begin() + (i + 1) * bins);
      }
      if (r.mode == Mode::fine) {
        const std::size_t n = std::min<std::uint64_t>(r.iters, records);
        const std::uint32_t* rec_i = rec.data() + i * 2ull * records;
        o.index.resize(n);
        o.latency.assign(rec_i + records, rec_i + records + n);
        // records hold the loaded value (the next index); access k read the element loaded by k-1
        for (std::size_t k = 0; k < n; ++k) o.index[k] = k == 0 ? r.chain[0] : rec_i[k - 1];
      }
    }
    return out;
  }

  // A cold chase must not find its array in L2 or its pages in the TLBs, where writing the chain
  // left them: overwrite 2x L2 with other data, then touch one word per 64 KiB of another region
  // of up to 4 GiB (global memory / 8 at most).
  void make_cold() {
    if (!flush_.size()) flush_ = DeviceBuffer<std::uint32_t>(std::max<std::uint64_t>(2 * desc_.l2_bytes, 1 << 22) / 4);
    if (!tlb_flush_.size()) {
      std::uint64_t bytes = std::min<std::uint64_t>(4ull << 30, desc_.global_mem_bytes / 8);
      tlb_flush_ = DeviceBuffer<std::uint32_t>(bytes / 4);
      tlb_flush_.zero();
    }
    MEMHIER_CUDA(cudaMemset(flush_.get(), ++flush_byte_, flush_.bytes()));
    const std::uint64_t stride = (64ull << 10) / 4;
    const std::uint64_t n = tlb_flush_.size() / stride;
    kern::touch_kernel<<<static_cast<unsigned>(std::min<std::uint64_t>(1024, (n + 255) / 256)), 256>>>(
        tlb_flush_.get(), n, stride, flush_.get());
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaMemset(flush_.get(), ++flush_byte_, flush_.bytes()));
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  // The SM clock of this sample (nvbench's check: clock64 against %globaltimer over the job's
  // window). Throttled: below 90 % of the nominal clock over a window long enough to judge at
  // %globaltimer's resolution (up to 1 us on some GPUs: 20 us keeps the error within 5 %).
  void judge_clock(unsigned long long cycles, unsigned long long ns, ChaseResult* o) const {
    if (ns == 0) return;
    o->sm_clock_mhz = static_cast<double>(cycles) / static_cast<double>(ns) * 1e3;
    const double nominal = desc_.sm_clock_khz / 1e3;
    o->clock_throttled = ns >= kClockJudgeNs && nominal > 0 && o->sm_clock_mhz < 0.9 * nominal;
  }
  static constexpr unsigned long long kClockJudgeNs = 20000;

  std::vector<ChaseResult> fail_all(std::size_t n, const std::string& why) {
    std::vector<ChaseResult> out(n);
    for (auto& o : out) o.error = why;
    return out;
  }

  static constexpr std::uint32_t kHistBins = 1024;

  DeviceDescription desc_;
  int max_tex_width_ = 0;
  double clock_start_mhz_ = 0;
  std::uint64_t memory_free_at_start_ = 0;
  DeviceBuffer<std::uint32_t> pool_;
  DeviceBuffer<std::uint32_t> flush_;
  DeviceBuffer<std::uint32_t> tlb_flush_;
  int flush_byte_ = 0;
  ClockOverhead overhead_;
  bool have_overhead_ = false;
  std::unique_ptr<CudaSequenceRunner> sequences_;
  std::unique_ptr<CudaStreamsRunner> streams_;
  WideLimits wide_limits_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int index) { return std::make_unique<CudaBackend>(index); }

}  // namespace memhier
