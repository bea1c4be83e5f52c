#include "analysis/core/gf2.hpp"

#include <algorithm>

namespace memhier::analysis::gf2 {

namespace {
int lead(std::uint64_t v) { return 63 - __builtin_clzll(v); }
}  // namespace

std::uint64_t Basis::reduce(std::uint64_t v) const {
  for (std::uint64_t r : rows_)  // rows sorted by leading bit, highest first
    if (v >> lead(r) & 1) v ^= r;
  return v;
}

bool Basis::add(std::uint64_t v) {
  v = reduce(v);
  if (v == 0) return false;
  rows_.push_back(v);
  std::sort(rows_.begin(), rows_.end(), [](std::uint64_t a, std::uint64_t b) { return lead(a) > lead(b); });
  return true;
}

std::vector<std::uint64_t> rref(const std::vector<std::uint64_t>& rows) {
  Basis b;
  for (std::uint64_t r : rows) b.add(r);
  std::vector<std::uint64_t> out = b.rows();
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      if (i != j && (out[j] >> lead(out[i]) & 1)) out[j] ^= out[i];
  std::sort(out.begin(), out.end(), [](std::uint64_t a, std::uint64_t b) { return lead(a) > lead(b); });
  return out;
}

std::vector<std::uint64_t> annihilator(const Basis& kernel, std::uint64_t mask) {
  // Kernel rows in RREF over the mask's bits: their leading bits are pivots; every free bit f gives
  // one solution h: h_f = 1, h_p = bit f of the row with pivot p (so h . row = 0 for each row).
  std::vector<std::uint64_t> k;
  for (std::uint64_t r : kernel.rows()) k.push_back(r & mask);
  k = rref(k);
  std::uint64_t pivots = 0;
  for (std::uint64_t r : k) pivots |= 1ull << lead(r);
  std::vector<std::uint64_t> out;
  for (int f = 0; f < 64; ++f) {
    if (!(mask >> f & 1) || (pivots >> f & 1)) continue;
    std::uint64_t h = 1ull << f;
    for (std::uint64_t r : k)
      if (r >> f & 1) h |= 1ull << lead(r);
    out.push_back(h);
  }
  return rref(out);
}

}  // namespace memhier::analysis::gf2
