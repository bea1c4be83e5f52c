#include "bench/backends/backend_cuda_streams.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cache_streams.cuh"
#include "bench/backends/path_array.hpp"
#include "runtime/buffers.hpp"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

using KernelFn = void (*)(kern::StreamsLaunch);

KernelFn kernel_for(Path p) {
  switch (p) {
    case Path::global_ca: return kern::cache_streams_kernel<0>;
    case Path::global_cg: return kern::cache_streams_kernel<1>;
    case Path::ldg: return kern::cache_streams_kernel<2>;
    case Path::texture: return kern::cache_streams_kernel<3>;
    default: return nullptr;
  }
}

}  // namespace

struct CudaStreamsRunner::State {
  Device dev;
  PathArray mem;
};

CudaStreamsRunner::CudaStreamsRunner(Device d) : st_(std::make_unique<State>()) { st_->dev = d; }
CudaStreamsRunner::~CudaStreamsRunner() = default;

StreamsResult CudaStreamsRunner::run(const StreamsRequest& r, std::uint32_t overhead_cycles) {
  StreamsResult o;
  State& st = *st_;
  const KernelFn fn = kernel_for(r.path);
  const std::uint64_t lines_needed = stream_target_lines_per_slot(r.trials, r.targets) *
                                     static_cast<std::uint64_t>(r.all_sms ? st.dev.sm_count : 1);
  if (!fn) o.error = std::string("random-stream trials run on global_ca, global_cg, ldg or texture, not ") + path_name(r.path);
  else if (r.k == 0 || r.trials == 0 || r.targets == 0) o.error = "k, trials and targets must be positive";
  else if (r.pool_bytes < kStreamLineBytes || r.pool_bytes % kStreamLineBytes)
    o.error = "the pool must be a positive multiple of " + std::to_string(kStreamLineBytes) + " bytes";
  else if (r.first_target_line + lines_needed > kStreamTargetRegionLines)
    o.error = "the targets of this launch do not fit the targets region";
  const std::uint64_t array_bytes = kStreamTargetRegionBytes + r.pool_bytes;
  if (o.error.empty() && r.path == Path::texture && array_bytes / 4 > st.dev.max_texture_elements)
    o.error = "array of " + std::to_string(array_bytes) + " bytes exceeds the texture limit of " +
              std::to_string(st.dev.max_texture_elements * 4) + " bytes";
  const std::uint32_t words = stream_record_words(r.trials, r.targets);
  const std::uint64_t dyn = (2ull * words + 3) / 4 * 4;
  if (o.error.empty() && dyn > st.dev.smem_per_block_optin)
    o.error = "its records need " + std::to_string(dyn) + " bytes of shared memory; the device allows " +
              std::to_string(st.dev.smem_per_block_optin) + " per block";
  if (!o.error.empty()) return o;

  st.mem.prepare(array_bytes, r.path == Path::texture);  // the texture over this request's array only
  const unsigned slots = r.all_sms ? static_cast<unsigned>(st.dev.sm_count) : 1u;
  DeviceBuffer<std::uint16_t> d_rec(static_cast<std::size_t>(slots) * words);
  DeviceBuffer<int> d_claim(kern::kStreamMaxSmIds), d_smid(slots);
  DeviceBuffer<unsigned> d_taken(1);
  DeviceBuffer<std::uint32_t> d_sink(slots);
  d_rec.zero();
  d_claim.zero();
  d_taken.zero();
  MEMHIER_CUDA(cudaMemset(d_smid.get(), 0xFF, slots * sizeof(int)));

  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn)));
  o.carveout = path_uses_carveout(r.path) ? (r.carveout < 0 ? 0 : r.carveout) : -1;
  if (o.carveout >= 0) MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, o.carveout));

  kern::StreamsLaunch L{};
  L.array = st.mem.array.get();
  L.tex = r.path == Path::texture ? st.mem.tex->get() : 0;
  L.pool_first_line = kStreamTargetRegionLines;
  L.pool_lines = r.pool_bytes / kStreamLineBytes;
  L.first_target_line = r.first_target_line;
  L.line_words = kStreamLineBytes / 4;
  L.trials = r.trials;
  L.targets = r.targets;
  L.k = r.k;
  L.warm = r.warm_lines;
  L.variant = static_cast<int>(r.variant);
  L.dep = r.dep ? 1 : 0;
  L.prime = path_uses_carveout(r.path) ? 1 : 0;  // L1-side paths: first loads from the L2
  L.all_sms = r.all_sms ? 1 : 0;
  L.max_slots = slots;
  L.seed = r.seed;
  L.overhead = overhead_cycles;
  L.chain_mask = 0;  // the chain that keeps loads from overlapping adds nothing to an address
  L.claim = d_claim.get();
  L.slots_taken = d_taken.get();
  L.out_records = d_rec.get();
  L.out_smid = d_smid.get();
  L.out_sink = d_sink.get();

  EventTimer timer;
  timer.start();
  fn<<<r.all_sms ? 2 * slots : 1u, 1, dyn>>>(L);
  MEMHIER_LAUNCH_CHECK();
  timer.stop();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  o.seconds = timer.seconds();

  const unsigned taken = std::min(d_taken.download().at(0), slots);
  const std::vector<std::uint16_t> rec = d_rec.download();
  const std::vector<int> smid = d_smid.download();
  o.words_per_slot = words;
  for (unsigned s = 0; s < taken; ++s) {
    if (smid[s] < 0) continue;  // a slot taken but not finished cannot happen; skipped if it did
    ++o.sms;
    o.sm_ids.push_back(smid[s]);
    for (std::uint32_t i = 0; i < words; ++i) o.records.push_back(rec[static_cast<std::size_t>(s) * words + i]);
  }
  if (o.sms == 0) o.error = "no SM ran the trials";
  o.clock_overhead_cycles = overhead_cycles;
  const std::uint64_t per_target = 1 + stream_rereads(r.variant) + 1 +
                                   (r.variant == StreamVariant::mid || r.variant == StreamVariant::two_ages ? 1 : 0) +
                                   (r.variant == StreamVariant::two_ages ? 1 : 0);
  const std::uint64_t primes = L.prime ? (r.variant == StreamVariant::two_ages ? 2 : 1) : 0;
  o.accesses = r.warm_lines + 2 * kStreamHitRefs + static_cast<std::uint64_t>(r.trials) * (r.k + (per_target + primes) * r.targets);
  return o;
}

}  // namespace memhier
