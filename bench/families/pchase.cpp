// pchase: P-chase latency on every load path (000 §4, 003 §3-4). Sweeps derived from the device:
//   capacity (Wong: latency vs N at a fixed stride), count mode, per-SM paths batched one
//     footprint per SM; L1-side paths at several shared-memory carveouts
//   stride (Saavedra: latency vs stride at a fixed N well above the cache), classic mode
//   fine traces: a footprint above the cache at a 4-byte stride (misses at the line/sector period)
//   cold runs (warm:0) of the L2 path expose prefetching (000 §4.6)
#include <algorithm>
#include <map>
#include <stdexcept>

#include "bench/families/chase_common.hpp"

namespace memhier {
namespace {

std::string chase_name(Path p, Mode m, std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters,
                       bool warm, int carveout) {
  BenchName n("pchase");
  n.add("path", path_name(p)).add("mode", mode_name(m));
  n.add("bytes", static_cast<std::int64_t>(bytes)).add("stride", static_cast<std::int64_t>(stride));
  n.add("iters", static_cast<std::int64_t>(iters)).add("warm", warm ? 1 : 0);
  if (carveout >= 0) n.add("carveout", carveout);
  return n.str();
}

ChaseRequest make_request(Path p, Mode m, std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters,
                          bool warm, int carveout) {
  ChaseRequest r;
  r.path = p;
  r.mode = m;
  r.array_bytes = bytes;
  r.chain = uniform_chain(bytes, stride);
  r.iters = iters ? iters : r.chain.size();
  r.warm = warm;
  // A cold run that stops before the end of the chain touches only its first iters elements.
  if (!warm && r.iters < r.chain.size()) {
    r.chain.resize(r.iters + 1);
    r.chain.shrink_to_fit();  // the plan holds every request until the run ends
  }
  r.carveout = carveout;
  return r;
}

// Registers a capacity sweep; per-SM paths share launches (one footprint per SM).
void capacity_sweep(Backend& be, Path p, const std::vector<std::uint64_t>& sizes, std::uint64_t stride,
                    int carveout, std::uint64_t max_iters) {
  const bool batched = be.parallel_chases(p) > 1;
  auto group = std::make_shared<BatchGroup>();
  for (auto bytes : sizes) {
    if (bytes < stride) continue;
    const std::uint64_t chain = (bytes + stride - 1) / stride;
    const std::uint64_t iters = std::min<std::uint64_t>(chain, max_iters);
    ChaseRequest r = make_request(p, Mode::count, bytes, stride, iters, true, carveout);
    std::string name = chase_name(p, Mode::count, bytes, stride, iters, true, carveout);
    if (batched)
      register_chase_in_group(name, group, group->add(std::move(r)));
    else
      register_chase(name, std::move(r));
  }
}

void stride_sweep(Path p, std::uint64_t bytes, std::uint64_t max_stride, int carveout, std::uint64_t iters,
                  bool warm) {
  for (std::uint64_t s = 4; s <= max_stride; s *= 2) {
    const std::uint64_t chain = (bytes + s - 1) / s;
    const std::uint64_t k = std::min(chain, iters);
    register_chase(chase_name(p, Mode::classic, bytes, s, k, warm, carveout),
                   make_request(p, Mode::classic, bytes, s, k, warm, carveout));
  }
}

// Chases asked for by --memhier_extra (the analyzer's refinement pass). Count-mode chases of per-SM
// paths share launches like the plan's capacity sweeps.
void register_extras(Backend& be) {
  std::map<std::string, std::shared_ptr<BatchGroup>> groups;
  const auto& extras = extra_requests("pchase");
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const ExtraRequest& x = extras[i];
    Path p;
    Mode m;
    const std::string ps = x.str.count("path") ? x.str.at("path") : "";
    const std::string ms = x.str.count("mode") ? x.str.at("mode") : "classic";
    if (!parse_path(ps, &p)) throw std::runtime_error("extra pchase request with unknown path '" + ps + "'");
    if (!parse_mode(ms, &m)) throw std::runtime_error("extra pchase request with unknown mode '" + ms + "'");
    if (!be.supports(p)) continue;
    const std::uint64_t bytes = static_cast<std::uint64_t>(x.get("bytes", 0));
    const std::uint64_t stride = static_cast<std::uint64_t>(x.get("stride", 4));
    if (bytes < 4 || stride < 4 || stride % 4)
      throw std::runtime_error("extra pchase request needs bytes >= 4 and a stride that is a multiple of 4");
    const bool warm = x.get("warm", 1) != 0;
    const int co = static_cast<int>(x.get("carveout", path_uses_carveout(p) ? 0 : -1));
    check_requested_chase(be, p, m, bytes, stride, static_cast<std::uint64_t>(x.get("iters", 0)), warm,
                          static_cast<std::uint64_t>(x.get("max_records", 4096)),
                          "requests pchase[" + std::to_string(i) + "]");
    ChaseRequest r = make_request(p, m, bytes, stride, static_cast<std::uint64_t>(x.get("iters", 0)), warm, co);
    r.max_records = static_cast<std::uint32_t>(std::max<std::int64_t>(1, x.get("max_records", r.max_records)));
    std::string name = chase_name(p, m, bytes, stride, r.iters, warm, co);
    if (m == Mode::count && be.parallel_chases(p) > 1) {
      auto& g = groups[ps + "/" + std::to_string(co)];
      if (!g) g = std::make_shared<BatchGroup>();
      register_chase_in_group(name, g, g->add(std::move(r)));
    } else {
      register_chase(name, std::move(r));
    }
  }
}

void register_pchase(Backend& be) {
  register_extras(be);
  if (plan() == Plan::none) return;
  const DeviceFigures f = be.figures();
  const bool quick = plan() == Plan::quick;
  // Per-SM caches: up to 2x the largest L1/shared array (the unified array is not reported, so
  // the shared-memory maximum bounds it from below; round up to a power of two).
  const std::uint64_t l1_hi = 2 * next_pow2(std::max<std::uint64_t>(f.smem_per_sm_bytes, 16384));
  const std::uint64_t l1_step = std::max<std::uint64_t>(1024, l1_hi / (quick ? 16 : 128));
  const std::vector<Path> l1_paths = {Path::global_ca, Path::ldg, Path::texture};
  const std::vector<int> carveouts = quick ? std::vector<int>{0} : std::vector<int>{0, 50, 100};

  for (Path p : l1_paths) {
    if (!be.supports(p)) continue;
    const std::uint64_t hi = std::min(l1_hi, be.max_array_bytes(p));
    for (int co : (p == Path::global_ca ? carveouts : std::vector<int>{0}))
      capacity_sweep(be, p, linear_sizes(l1_step, hi, l1_step), 32, co, 1u << 16);
    stride_sweep(p, hi, quick ? 1024 : 4096, 0, 1u << 14, true);
    // fine trace above capacity at a 4-byte stride: misses at the sector/line period
    register_chase(chase_name(p, Mode::fine, hi, 4, 4096, true, 0), make_request(p, Mode::fine, hi, 4, 4096, true, 0));
  }

  if (be.supports(Path::constant)) {
    const std::uint64_t hi = be.max_array_bytes(Path::constant);
    std::vector<std::uint64_t> sizes = linear_sizes(512, std::min<std::uint64_t>(hi, 8192), quick ? 2048 : 512);
    for (auto s : linear_sizes(10240, hi, quick ? 8192 : 2048)) sizes.push_back(s);
    capacity_sweep(be, Path::constant, sizes, 32, -1, 1u << 16);
    stride_sweep(Path::constant, hi, 1024, -1, 1u << 12, true);
    register_chase(chase_name(Path::constant, Mode::fine, hi, 4, 4096, true, -1),
                   make_request(Path::constant, Mode::fine, hi, 4, 4096, true, -1));
  }

  if (be.supports(Path::shared)) {
    const std::uint64_t n = std::min<std::uint64_t>(16384, be.max_array_bytes(Path::shared));
    for (std::uint64_t s : {4ull, 128ull}) {
      register_chase(chase_name(Path::shared, Mode::classic, n, s, 4096, true, -1),
                     make_request(Path::shared, Mode::classic, n, s, 4096, true, -1));
      register_chase(chase_name(Path::shared, Mode::fine, n, s, 1024, true, -1),
                     make_request(Path::shared, Mode::fine, n, s, 1024, true, -1));
    }
  }

  if (be.supports(Path::global_cg) && f.l2_bytes > 0) {
    const std::uint64_t l2 = f.l2_bytes;
    std::vector<double> fr = quick ? std::vector<double>{0.125, 0.5, 2.0}
                                   : std::vector<double>{1.0 / 32, 1.0 / 16, 0.125, 0.25, 0.375, 0.45, 0.5,
                                                         0.55, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0};
    std::vector<std::uint64_t> sizes;
    for (double x : fr) sizes.push_back(std::max<std::uint64_t>(4096, static_cast<std::uint64_t>(x * l2) / 4096 * 4096));
    capacity_sweep(be, Path::global_cg, sizes, 128, -1, 1u << 16);
    // Saavedra at N = 2 x L2 with a cold start (the footprint is far above the cache anyway).
    stride_sweep(Path::global_cg, std::min(2 * l2, be.max_array_bytes(Path::global_cg)), 4096, -1, 1u << 14, false);
    // fine traces: warm and cold (prefetching shows as cold misses only at the start)
    for (std::uint64_t n : {l2 / 16, 2 * l2}) {
      for (bool warm : {true, false}) {
        if (warm && n > l2) continue;
        register_chase(chase_name(Path::global_cg, Mode::fine, n, 4, 4096, warm, -1),
                       make_request(Path::global_cg, Mode::fine, n, 4, 4096, warm, -1));
      }
      register_chase(chase_name(Path::global_cg, Mode::fine, n, 128, 4096, false, -1),
                     make_request(Path::global_cg, Mode::fine, n, 128, 4096, false, -1));
    }
  }
}

FamilyRegistrar reg("pchase", false, register_pchase);

}  // namespace
}  // namespace memhier
