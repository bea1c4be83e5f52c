#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bench/backends/backend_cuda_sequence.hpp"
#include "bench/backends/path_array.hpp"
#include "kernels/sequence.cuh"
#include "runtime/buffers.hpp"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

using kern::SeqLaunch;
using kern::SeqMode;
using kern::SeqRunDev;
using KernelFn = void (*)(SeqLaunch);

KernelFn kernel_for(RecordMode m) {
  switch (m) {
    case RecordMode::latency: return kern::sequence_kernel<SeqMode::latency>;
    case RecordMode::miss_count: return kern::sequence_kernel<SeqMode::miss_count>;
    case RecordMode::miss_any: return kern::sequence_kernel<SeqMode::miss_any>;
  }
  return nullptr;
}

SeqMode seq_mode(RecordMode m) { return static_cast<SeqMode>(static_cast<int>(m)); }

// [begin, end) run ranges, one per launch.
std::vector<std::pair<std::size_t, std::size_t>> launch_ranges(const AccessSequence& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 0;
  for (std::uint32_t b : s.launch_breaks) {
    if (b == 0 || b == begin) continue;
    out.emplace_back(begin, b);
    begin = b;
  }
  out.emplace_back(begin, s.runs.size());
  return out;
}

// The runs of one launch as the kernel reads them; "" or why they do not fit its format.
std::string to_device(const AccessSequence& s, std::size_t b, std::size_t e, std::vector<SeqRunDev>* out) {
  out->clear();
  for (std::size_t i = b; i < e; ++i) {
    const AccessRun& r = s.runs[i];
    if (r.stride > std::numeric_limits<std::int32_t>::max() || r.stride < std::numeric_limits<std::int32_t>::min())
      return "run " + std::to_string(i) + ": stride beyond ±2 GiB";
    if (r.repeat > 0xFFFFu) return "run " + std::to_string(i) + ": a repeat over more than 65535 runs";
    SeqRunDev d;
    std::memset(&d, 0, sizeof d);
    d.offset = r.offset;
    d.stride = static_cast<std::int32_t>(r.stride);
    d.count = r.count;
    d.slot = r.is_repeat() ? kern::kSeqUntimed : r.slot;
    d.repeat = static_cast<std::uint16_t>(r.repeat);
    d.path = r.path;
    d.slot_step = r.slot_step;
    out->push_back(d);
  }
  return "";
}

std::uint64_t accesses_in(const AccessSequence& s, std::size_t b, std::size_t e) {
  AccessSequence part;
  part.runs.assign(s.runs.begin() + static_cast<std::ptrdiff_t>(b), s.runs.begin() + static_cast<std::ptrdiff_t>(e));
  return access_count(part);
}

// Records as the kernel left them (shared-memory words) -> one value per slot.
std::vector<std::uint32_t> unpack(RecordMode m, std::uint32_t slots, const std::vector<std::uint32_t>& words) {
  std::vector<std::uint32_t> v(slots, 0);
  for (std::uint32_t i = 0; i < slots; ++i) {
    if (m == RecordMode::latency) v[i] = (words[i / 2] >> (16 * (i % 2))) & 0xFFFFu;
    else if (m == RecordMode::miss_count) v[i] = words[i];
    else v[i] = (words[i / 32] >> (i % 32)) & 1u;
  }
  return v;
}

}  // namespace

struct CudaSequenceRunner::State {
  Device dev;
  PathArray mem;
};

CudaSequenceRunner::CudaSequenceRunner(Device d) : st_(std::make_unique<State>()) { st_->dev = d; }
CudaSequenceRunner::~CudaSequenceRunner() = default;

std::size_t CudaSequenceRunner::max_runs_per_launch() { return kern::kSeqMaxRuns; }
std::uint64_t CudaSequenceRunner::max_accesses_per_launch() { return 1ull << 26; }

namespace {

// Checks what the GPU adds to check_sequence: paths, texture width, shared memory, run and access
// limits per launch. Fills the launch ranges.
std::string check_for_gpu(const SequenceRequest& r, const CudaSequenceRunner::Device& d, bool* l1_side,
                          bool* texture, std::vector<std::pair<std::size_t, std::size_t>>* ranges) {
  std::string e = check_sequence(r.seq, r.array_bytes);
  if (!e.empty()) return e;
  for (const AccessRun& run : r.seq.runs) {
    if (run.is_repeat()) continue;
    const Path p = static_cast<Path>(run.path);
    *l1_side = *l1_side || path_uses_carveout(p);
    *texture = *texture || p == Path::texture;
  }
  if (*texture && r.array_bytes / 4 > d.max_texture_elements)
    return "array of " + std::to_string(r.array_bytes) + " bytes exceeds the texture limit of " +
           std::to_string(d.max_texture_elements * 4) + " bytes";
  const std::uint64_t smem = 4ull * kern::seq_record_words(seq_mode(r.seq.mode), r.seq.slots);
  if (smem > d.smem_per_block_optin)
    return "its records need " + std::to_string(smem) + " bytes of shared memory; the device allows " +
           std::to_string(d.smem_per_block_optin) + " per block";
  *ranges = launch_ranges(r.seq);
  for (const auto& [b, en] : *ranges) {
    if (en - b > kern::kSeqMaxRuns)
      return "a launch holds " + std::to_string(en - b) + " runs; at most " + std::to_string(kern::kSeqMaxRuns) + " fit";
    if (accesses_in(r.seq, b, en) > CudaSequenceRunner::max_accesses_per_launch())
      return "a launch makes more than " + std::to_string(CudaSequenceRunner::max_accesses_per_launch()) + " accesses";
  }
  return "";
}

}  // namespace

// One launch of a pinned sequence: CTA 0 (target_sm < 0), or the first CTA on target_sm of
// 2 x SM-count CTAs, launched again (at most 4 times) when none landed there. The SM it ran on,
// or -1; adds the device time to *seconds.
int CudaSequenceRunner::launch(void (*fn)(kern::SeqLaunch), kern::SeqLaunch L, std::uint64_t dyn, int* claim,
                               int* smid, double* seconds) {
  EventTimer timer;
  const unsigned grid = L.target_sm < 0 ? 1u : static_cast<unsigned>(2 * st_->dev.sm_count);
  L.claim = claim;
  L.out_smid = smid;
  int ran_on = -1;
  for (int attempt = 0; attempt < 4 && ran_on < 0; ++attempt) {
    MEMHIER_CUDA(cudaMemset(claim, 0, sizeof(int)));
    MEMHIER_CUDA(cudaMemset(smid, 0xFF, sizeof(int)));
    timer.start();
    fn<<<grid, 32, dyn>>>(L);
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    *seconds += timer.seconds();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    MEMHIER_CUDA(cudaMemcpy(&ran_on, smid, sizeof(int), cudaMemcpyDeviceToHost));
  }
  return ran_on;
}

SequenceResult CudaSequenceRunner::run(const SequenceRequest& r, std::uint32_t overhead_cycles) {
  SequenceResult o;
  bool l1_side = false, texture = false;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  o.error = check_for_gpu(r, st_->dev, &l1_side, &texture, &ranges);
  if (!o.error.empty()) return o;
  st_->mem.prepare(r.array_bytes, texture, 2ull << 20);  // whole 2 MiB pages
  const std::uint32_t words = kern::seq_record_words(seq_mode(r.seq.mode), r.seq.slots);
  const std::uint64_t dyn = 4ull * words;
  DeviceBuffer<std::uint32_t> d_rec(std::max<std::uint32_t>(1, words)), d_sink(1);
  DeviceBuffer<int> d_smid(1), d_claim(1);
  DeviceBuffer<unsigned long long> d_cycles(1);
  d_rec.zero();
  KernelFn fn = kernel_for(r.seq.mode);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn)));
  o.carveout = l1_side ? (r.carveout < 0 ? 0 : r.carveout) : -1;
  if (l1_side) MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, o.carveout));
  std::vector<SeqRunDev> runs;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    o.error = to_device(r.seq, ranges[k].first, ranges[k].second, &runs);
    if (!o.error.empty()) return o;
    if (!runs.empty()) upload_constant(kern::c_seq_runs, runs.data(), runs.size());
    SeqLaunch L{};
    L.array = st_->mem.array.get();
    L.tex = st_->mem.tex && texture ? st_->mem.tex->get() : 0;
    L.runs = static_cast<unsigned>(runs.size());
    L.slots = r.seq.slots;
    L.threshold = r.seq.threshold_cycles;
    L.overhead = overhead_cycles;
    L.target_sm = k == 0 ? -1 : o.sm_id;
    L.carry = k > 0 ? 1 : 0;
    L.out_records = d_rec.get();
    L.out_sink = d_sink.get();
    L.chain_mask = 0;  // the chain that keeps accesses from overlapping adds nothing to an address
    L.out_cycles = d_cycles.get();
    const int ran_on = launch(fn, L, dyn, d_claim.get(), d_smid.get(), &o.seconds);
    if (ran_on < 0) {
      o.error = "launch " + std::to_string(k) + " of the sequence found no CTA on SM " + std::to_string(o.sm_id);
      return o;
    }
    if (k == 0) o.sm_id = ran_on;
    o.walk_cycles += d_cycles.download().at(0);
  }
  o.records = unpack(r.seq.mode, r.seq.slots, d_rec.download());
  o.accesses = access_count(r.seq);
  o.launches = static_cast<int>(ranges.size());
  o.clock_overhead_cycles = overhead_cycles;
  o.smem_bytes = dyn + 16 + 1024;  // records, the kernel's own 16 bytes (ptxas -v), the driver's reserve
  o.start_state = "as_left";
  return o;
}

}  // namespace memhier
