// l2_slices on the GPU (bench/levels/levels.hpp; docs/methodology.md, "l2_slices"): every SM's cycles
// for R dependent L2 hits of each test line (kernels/l2_slices.cuh), as a trace.
//   l2_slices/op:fingerprint/pages:P/bases:B/hits:R/passes:K
//   l2_slices/op:contention/pages:P/bases:B/hits:R/copies:C   (kernels/l2_slices.cuh: half the SMs
//       hammer a reference line, the other half time each test line on C of them, quiet and loaded;
//       references chosen one after another until every line slowed down with one of them)
// Lines: common/l2_slice_lines.hpp, in P 2 MiB pages aligned to 2 MiB inside one allocation.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/families/sm_ids.hpp"
#include "bench/plans/l2_slices_plan.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "common/l2_slice_lines.hpp"
#include "kernels/l2_slices.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::levels {
namespace {

constexpr int kAttempts = 4;  // launches until every SM has had a CTA

}  // namespace

namespace {

// The test pages: `pages` 2 MiB pages, 2 MiB aligned, zero.
struct SlicePages {
  DeviceBuffer<std::uint32_t> buf;
  const std::uint32_t* base = nullptr;
  explicit SlicePages(int pages) : buf((pages + 1) * kSlicePageBytes / 4) {
    buf.zero();
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(buf.get());
    base = reinterpret_cast<const std::uint32_t*>((p + kSlicePageBytes - 1) / kSlicePageBytes * kSlicePageBytes);
  }
};

LevelResult run_contention(const DeviceDescription& d, const LevelRequest& r) {
  const int pages = static_cast<int>(r.num("pages", 2)), bases = static_cast<int>(r.num("bases", 8));
  const auto hits = static_cast<std::uint32_t>(r.num("hits", 6)), copies = static_cast<std::uint32_t>(r.num("copies", 4));
  const std::vector<std::uint64_t> offsets = slice_test_offsets(pages, bases);
  const std::uint32_t n = static_cast<std::uint32_t>(offsets.size());
  const std::vector<unsigned>& ids = sm_ids();
  if (pages < 1 || n == 0 || hits < 1 || copies < 1 || ids.size() < 4)
    return {"l2_slices contention: needs lines, hits >= 1, copies >= 1 and at least 4 SMs", {}, 0, {}};
  const ContentionLayout lay = contention_layout(ids, n, copies);
  std::vector<int> role(kern::kMaxSmIds, -1);
  for (unsigned s : lay.hammer_sms) role[s] = 0;
  for (std::size_t k = 0; k < lay.probe_sms.size(); ++k) role[lay.probe_sms[k]] = static_cast<int>(k) + 1;
  SlicePages pg(pages);
  std::vector<std::uint32_t> elems(n);
  for (std::uint32_t k = 0; k < n; ++k) elems[k] = static_cast<std::uint32_t>(offsets[k] / 4);
  DeviceBuffer<std::uint32_t> lines(n), pl(lay.probe_lines.size()), out(lay.probe_lines.size() * 2), seen(lay.probe_sms.size());
  DeviceBuffer<int> role_d(kern::kMaxSmIds), claim(kern::kMaxSmIds);
  DeviceBuffer<unsigned> sync(4);
  lines.upload(elems);
  pl.upload(lay.probe_lines);
  role_d.upload(role);
  kern::ContentionArgs a{};
  a.base = pg.base;
  a.lines = lines.get();
  a.hits = hits;
  a.role_of_sm = role_d.get();
  a.hammers = static_cast<std::uint32_t>(lay.hammer_sms.size());
  a.probes = static_cast<std::uint32_t>(lay.probe_sms.size());
  a.probe_lines = pl.get();
  a.per_probe = lay.per_probe;
  a.claim = claim.get();
  a.sync = sync.get();
  a.out = out.get();
  a.seen = seen.get();
  a.spin_limit = static_cast<std::uint64_t>(d.sm_clock_khz) * 50;  // 50 ms of clock cycles
  EventTimer t;
  return run_contention_plan(lay, offsets, hits, [&](std::uint32_t target, std::vector<std::uint32_t>* o, std::uint32_t* short_h) {
    a.target = target;
    claim.zero();
    sync.zero();
    seen.zero();
    t.start();
    kern::slice_contention_kernel<><<<2 * d.sm_count, 1024>>>(a);
    MEMHIER_LAUNCH_CHECK();
    t.stop();
    const double sec = t.seconds();
    *o = out.download();
    for (auto x : seen.download()) *short_h += x > 0 && x - 1 < a.hammers;
    return sec;
  });
}

}  // namespace

LevelResult run_l2_slices(const DeviceDescription& d, const LevelRequest& r) {
  if (r.text("op") == "contention") return run_contention(d, r);
  if (r.text("op") != "fingerprint") return {"unknown l2_slices op '" + r.text("op") + "'", {}, 0, {}};
  const int pages = static_cast<int>(r.num("pages", 2)), bases = static_cast<int>(r.num("bases", 8));
  const auto repeats = static_cast<std::uint32_t>(r.num("hits", 24)), passes = static_cast<std::uint32_t>(r.num("passes", 2));
  const std::vector<std::uint64_t> offsets = slice_test_offsets(pages, bases);
  const std::uint32_t n = static_cast<std::uint32_t>(offsets.size());
  if (pages < 1 || n == 0 || n > kern::kSliceMaxLines || passes < 1 || passes > kern::kSliceMaxPasses || repeats < 1)
    return {"l2_slices: " + std::to_string(n) + " lines, " + std::to_string(passes) + " passes, " + std::to_string(repeats) +
                " repeats: at most " + std::to_string(kern::kSliceMaxLines) + " lines and " +
                std::to_string(kern::kSliceMaxPasses) + " passes, at least 1 repeat",
            {}, 0, {}};
  const std::vector<unsigned>& ids = sm_ids();
  const std::uint32_t slots = static_cast<std::uint32_t>(ids.size());
  SlicePages pg(pages);
  const std::uint32_t* base = pg.base;
  std::vector<std::uint32_t> elems(n);
  for (std::uint32_t k = 0; k < n; ++k) elems[k] = static_cast<std::uint32_t>(offsets[k] / 4);
  DeviceBuffer<std::uint32_t> lines(n), out(static_cast<std::size_t>(slots) * passes * n), ovh(slots);
  lines.upload(elems);
  ovh.zero();
  DeviceBuffer<int> slot_of(kern::kMaxSmIds), claim(kern::kMaxSmIds);
  std::vector<int> slot_host(kern::kMaxSmIds, -1);
  for (std::uint32_t s = 0; s < slots; ++s) slot_host[ids[s]] = static_cast<int>(s);
  kern::SliceArgs a{};
  a.base = base;
  a.lines = lines.get();
  a.n = n;
  a.repeats = repeats;
  a.passes = passes;
  a.slots = slots;
  a.out = out.get();
  a.overhead = ovh.get();
  EventTimer t;
  double seconds = 0;
  std::vector<std::uint32_t> ran(slots, 0);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    slot_of.upload(slot_host);
    claim.zero();
    a.slot_of_sm = slot_of.get();
    a.claim = claim.get();
    t.start();
    kern::slice_fingerprint_kernel<><<<4 * d.sm_count, 32>>>(a);
    MEMHIER_LAUNCH_CHECK();
    t.stop();
    seconds += t.seconds();
    ran = ovh.download();
    bool all = true;
    for (std::uint32_t s = 0; s < slots; ++s)
      if (ran[s]) slot_host[ids[s]] = -1; else all = false;
    if (all) break;
  }
  const std::vector<std::uint32_t> lat = out.download();
  std::vector<unsigned> measured;
  std::vector<std::uint32_t> slot_of_run;  // the launch's slot of each SM that ran
  std::vector<double> overheads;
  for (std::uint32_t s = 0; s < slots; ++s)
    if (ran[s]) measured.push_back(ids[s]), slot_of_run.push_back(s), overheads.push_back(ran[s] - 1);
  if (measured.empty()) return {"l2_slices: no SM ran the fingerprint kernel in " + std::to_string(kAttempts) + " launches", {}, 0, {}};
  LevelResult res = fingerprint_result(measured, slots - measured.size(), offsets, repeats, passes, level_median(overheads),
                                       [&](std::size_t slot, std::uint32_t pass, std::size_t k) {
                                         const std::uint32_t s = slot_of_run[slot], o = ran[s] - 1;
                                         const std::uint32_t c = lat[(static_cast<std::size_t>(s) * passes + pass) * n + k];
                                         return c > o ? c - o : 0u;
                                       });
  res.seconds = seconds;
  return res;
}

}  // namespace memhier::levels
