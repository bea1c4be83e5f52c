// The simulated sliced L2 (sim/l2_slices.hpp).
#include "sim/l2_slices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/policy.hpp"

namespace memhier::sim {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("l2_slices: " + what); }

std::uint64_t mix(std::uint64_t z) { return policy::splitmix64_mix(z); }

double unit(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  return policy::unit_interval(mix(mix(mix(mix(a) ^ b) ^ c) ^ d));
}

int parity(std::uint64_t x) { return __builtin_popcountll(x) & 1; }

}  // namespace

L2SlicesModel parse_l2_slices_model(const json& j, int sm_count, double sm_clock_hz) {
  if (!j.is_object()) fail("must be an object");
  static const char* known[] = {"partitions", "slices_per_partition", "gpcs", "hash", "xor_masks", "hit_cycles",
                                "spread_cycles", "sm_spread_cycles", "jitter_cycles", "outlier_rate",
                                "outlier_cycles", "contention_cycles", "contention_other_cycles", "seed"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) fail("unknown key '" + it.key() + "'");
  }
  L2SlicesModel m;
  m.present = true;
  m.sm_count = sm_count;
  m.sm_clock_hz = sm_clock_hz;
  auto num = [&](const char* k, double dflt, double lo) {
    if (!j.contains(k)) return dflt;
    if (!j[k].is_number()) fail(std::string("'") + k + "' must be a number");
    const double v = j[k].get<double>();
    if (!(v >= lo)) fail(std::string("'") + k + "' must be >= " + std::to_string(lo));
    return v;
  };
  m.partitions = static_cast<int>(num("partitions", 1, 1));
  m.slices_per_partition = static_cast<int>(num("slices_per_partition", 1, 1));
  m.gpcs = static_cast<int>(num("gpcs", m.partitions, 1));
  if (m.gpcs % m.partitions) fail("'gpcs' must be a multiple of 'partitions'");
  if (m.gpcs > sm_count) fail("more GPCs than SMs");
  m.hit_cycles = num("hit_cycles", 250, 1);
  m.spread_cycles = num("spread_cycles", 120, 0);
  m.sm_spread_cycles = num("sm_spread_cycles", 3, 0);
  m.jitter_cycles = num("jitter_cycles", 2, 0);
  m.outlier_rate = num("outlier_rate", 0, 0);
  m.outlier_cycles = num("outlier_cycles", 0, 0);
  m.contention_cycles = num("contention_cycles", 300, 0);
  m.contention_other_cycles = num("contention_other_cycles", 2, 0);
  m.seed = static_cast<std::uint64_t>(num("seed", 1, 0));
  if (j.contains("hash")) {
    if (!j["hash"].is_string()) fail("'hash' must be \"xor\" or \"modulo\"");
    m.hash = j["hash"].get<std::string>();
  }
  if (m.hash == "xor") {
    int bits = 0;
    while ((1 << bits) < m.slices_per_partition) ++bits;
    if ((1 << bits) != m.slices_per_partition) fail("an xor hash needs a power-of-two 'slices_per_partition'");
    if (j.contains("xor_masks")) {
      if (!j["xor_masks"].is_array() || static_cast<int>(j["xor_masks"].size()) != bits)
        fail("'xor_masks' must list " + std::to_string(bits) + " masks (one per index bit)");
      for (const auto& x : j["xor_masks"]) {
        if (!x.is_number_unsigned() || x.get<std::uint64_t>() < 128) fail("'xor_masks' entries must be masks of address bits >= 7");
        m.xor_masks.push_back(x.get<std::uint64_t>() & ~0x7Full);
      }
    } else {  // seeded masks over bits 7 ... 35, each with its own low bit so they are independent
      for (int b = 0; b < bits; ++b)
        m.xor_masks.push_back(((mix(m.seed * 131 + b) << 7) & ((1ull << 36) - 1) & ~0x7Full) | (1ull << (7 + b)));
    }
  } else if (m.hash != "modulo") {
    fail("'hash' must be \"xor\" or \"modulo\"");
  }
  return m;
}

int slice_partition_of_sm(const L2SlicesModel& m, unsigned sm) {
  const int gpc = static_cast<int>(static_cast<long long>(sm % m.sm_count) * m.gpcs / m.sm_count);
  return gpc * m.partitions / m.gpcs;
}

int slice_of_address(const L2SlicesModel& m, std::uint64_t phys) {
  if (m.hash == "xor") {
    int idx = 0;
    for (std::size_t b = 0; b < m.xor_masks.size(); ++b) idx |= parity(phys & m.xor_masks[b]) << b;
    return idx;
  }
  const std::uint64_t line = phys >> 7;
  return static_cast<int>((line ^ (line >> 10) ^ (line >> 19)) % static_cast<std::uint64_t>(m.slices_per_partition));
}

std::uint64_t slice_physical(const L2SlicesModel& m, std::uint64_t offset) {
  const std::uint64_t page = offset >> 21;
  const std::uint64_t frame = 16 + mix(m.seed ^ (0xF4A3ull + page)) % 40000;  // up to ~80 GB
  return (frame << 21) | (offset & ((1ull << 21) - 1));
}

std::uint32_t slice_record(const L2SlicesModel& m, unsigned sm, std::uint64_t offset, int hits, std::uint64_t salt,
                           std::uint64_t hammered) {
  const int part = slice_partition_of_sm(m, sm);
  const int gpc = static_cast<int>(static_cast<long long>(sm % m.sm_count) * m.gpcs / m.sm_count);
  const int slice = slice_of_address(m, slice_physical(m, offset));
  double hit = m.hit_cycles + m.spread_cycles * unit(m.seed, 2 + gpc, part, slice) + m.sm_spread_cycles * unit(m.seed, 1, sm, 0);
  if (hammered != UINT64_MAX)
    hit += slice_of_address(m, slice_physical(m, hammered)) == slice ? m.contention_cycles : m.contention_other_cycles;
  double c = 0;
  for (int r = 0; r < hits; ++r) c += hit + m.jitter_cycles * unit(m.seed ^ salt, 3, sm * 1000003ull + (offset >> 7), r);
  if (m.outlier_rate > 0 && unit(m.seed ^ salt, 4, sm, offset >> 7) < m.outlier_rate) c += m.outlier_cycles;
  return static_cast<std::uint32_t>(std::lround(c));
}

SliceFingerprint slice_fingerprint(const L2SlicesModel& m, const std::vector<std::uint64_t>& offsets, int repeats,
                                   int passes, std::uint64_t call) {
  SliceFingerprint f;
  const std::size_t n = offsets.size();
  for (int s = 0; s < m.sm_count; ++s) f.sm_ids.push_back(static_cast<unsigned>(s));
  f.cycles.resize(static_cast<std::size_t>(passes) * m.sm_count * n);
  double longest = 0;
  for (int p = 0; p < passes; ++p)
    for (int s = 0; s < m.sm_count; ++s) {
      double total = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t c = slice_record(m, s, offsets[k], repeats, call * 977 + p, UINT64_MAX);
        f.cycles[(static_cast<std::size_t>(p) * m.sm_count + s) * n + k] = c;
        total += c;
      }
      longest = std::max(longest, total);
    }
  f.seconds = longest * passes / m.sm_clock_hz;
  return f;
}

}  // namespace memhier::sim
