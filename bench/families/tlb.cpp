// tlb: page size and TLB reach (000 §4.4). Loads skip L1 (ld.global.cg); strides from 64 KiB to
// 32 MiB; for each stride, footprints from 16 to 4096 strides (at most 4096 accesses, so the data
// itself always fits in L2 and only translation misses raise the latency), capped at half the
// device memory and at 15 GiB (4-byte element indices address 16 GiB).
#include <algorithm>
#include <stdexcept>

#include "bench/families/chase_common.hpp"

namespace memhier {
namespace {

ChaseRequest tlb_request(std::uint64_t n, std::uint64_t s) {
  ChaseRequest r;
  r.path = Path::global_cg;
  r.mode = Mode::count;
  r.array_bytes = n;
  r.chain = uniform_chain(n, s);
  r.iters = r.chain.size();
  r.warm = true;
  return r;
}

std::string tlb_name(std::uint64_t n, std::uint64_t s) {
  BenchName name("tlb");
  name.add("bytes", static_cast<std::int64_t>(n)).add("stride", static_cast<std::int64_t>(s));
  return name.str();
}

void register_tlb(Backend& be) {
  if (!be.supports(Path::global_cg)) return;
  const auto& extras = extra_requests("tlb");
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const ExtraRequest& x = extras[i];
    const auto n = static_cast<std::uint64_t>(x.get("bytes", 0)), s = static_cast<std::uint64_t>(x.get("stride", 0));
    if (n < s || s < 4 || s % 4) throw std::runtime_error("extra tlb request needs stride >= 4 (multiple of 4) and bytes >= stride");
    const std::string what = "requests tlb[" + std::to_string(i) + "]";
    if (n > tlb_footprint_limit(be))
      throw std::runtime_error(what + ": " + std::to_string(n) + " bytes exceed the tlb family's limit on this device (" +
                               std::to_string(tlb_footprint_limit(be)) + " bytes, context tlb_limit_bytes)");
    check_requested_chase(be, Path::global_cg, Mode::count, n, s, 0, true, 0, what);
    register_chase(tlb_name(n, s), tlb_request(n, s));
  }
  if (plan() == Plan::none) return;
  const bool quick = plan() == Plan::quick;
  const std::uint64_t cap = tlb_footprint_limit(be);
  const std::uint64_t s_lo = 64ull << 10, s_hi = 32ull << 20;
  for (std::uint64_t s = s_lo; s <= s_hi; s *= (quick ? 8 : 2)) {
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t m = 16; m <= 4096; m *= 2) {
      sizes.push_back(m * s);
      if (!quick && m < 4096) sizes.push_back(m * s + m * s / 2);
    }
    for (auto n : sizes) {
      if (n > cap) break;
      register_chase(tlb_name(n, s), tlb_request(n, s));
    }
  }
}

FamilyRegistrar reg("tlb", false, register_tlb);

}  // namespace
}  // namespace memhier
