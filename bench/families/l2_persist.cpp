// The l2_persist family (docs/methodology.md, section l2_persist; issue 20 item 4): how many bytes a
// persisting L2 set-aside keeps against a streaming co-runner, per requested size, against the
// device's persistingL2CacheMaxSize M. Registered on every backend from what the device offers
// (LevelOffer::persisting_l2_max_bytes; absent where it is 0); each benchmark is one LevelRequest
// (the CUDA backend: bench/levels/l2_persist_cuda.cu; the simulated device: sim/levels). Names:
//   l2_persist/request:S/window:W/ratio:R    S set-aside bytes asked for, W window bytes, R hitRatio %
//   l2_persist/request:0/window:W/ratio:0/policy:none   the control: no access policy window at all
//                                            (the window's lines warmed with normal loads)
// Sweep: the window-free control at W = M (first: it tells survival from persistence); S = 0 with the
// window (what a persisting window keeps without a set-aside: a minimum set-aside?), M/8, M/4, M/2, M
// at W = M, R = 100; S = M at W = 2M (a window larger than the set-aside) at R = 100 and 50. Quick
// plan: the window-free control, S = 0, M/2, M at W = M.
#include <algorithm>
#include <set>
#include <tuple>

#include "bench/families/chase_common.hpp"
#include "bench/families/level_family.hpp"

namespace memhier {
namespace {

constexpr std::uint64_t kAlign = 4096;  // sizes in whole pages of 4 KiB (whole lines, 16-byte vectors)

std::uint64_t down(std::uint64_t b) { return b / kAlign * kAlign; }

void register_point(std::uint64_t request, std::uint64_t window, int ratio, bool no_window = false) {
  BenchName n = BenchName("l2_persist")
                    .add("request", static_cast<std::int64_t>(request))
                    .add("window", static_cast<std::int64_t>(window))
                    .add("ratio", ratio);
  if (no_window) n.add("policy", "none");
  register_level(n);
}

void register_l2_persist(Backend& be) {
  if (plan() == Plan::none) return;
  const LevelOffer o = be.level_offer();
  const std::uint64_t M = down(o.persisting_l2_max_bytes);
  if (M == 0) return;
  const std::uint64_t max_window = o.access_policy_max_window_bytes ? down(o.access_policy_max_window_bytes) : 2 * M;
  const std::uint64_t W = std::min(M, max_window);
  const bool quick = plan() == Plan::quick;
  std::set<std::tuple<std::uint64_t, std::uint64_t, int>> seen;
  auto add = [&](std::uint64_t s, std::uint64_t w, int r) {
    if (w >= kAlign && seen.insert({s, w, r}).second) register_point(s, w, r);
  };
  if (W >= kAlign) register_point(0, W, 0, true);  // the window-free control
  for (int eighths : {0, 1, 2, 4, 8}) {
    if (quick && eighths != 0 && eighths != 4 && eighths != 8) continue;
    add(down(M * static_cast<std::uint64_t>(eighths) / 8), W, 100);
  }
  const std::uint64_t big = std::min(2 * M, max_window);  // a window larger than the set-aside
  if (!quick && big > M) {
    add(M, big, 100);
    add(M, big, static_cast<int>(std::lround(100.0 * static_cast<double>(M) / static_cast<double>(big))));
  }
}

FamilyRegistrar reg("l2_persist", false, register_l2_persist);

}  // namespace
}  // namespace memhier
