// Linear algebra over GF(2) on bit vectors of up to 64 bits (bit i = address bit i): the index
// function of a cache as a matrix H with set(x) = H x, recovered from which address differences
// keep two lines in one set (its kernel), as done for Intel's last-level-cache slice hashes.
#pragma once
#include <cstdint>
#include <vector>

namespace memhier::analysis::gf2 {

// A basis in echelon form: every vector has a distinct leading (highest) bit.
class Basis {
 public:
  // Adds v; false when it is already in the span.
  bool add(std::uint64_t v);
  // v reduced by the basis (0 exactly when v is in the span).
  std::uint64_t reduce(std::uint64_t v) const;
  bool contains(std::uint64_t v) const { return reduce(v) == 0; }
  std::size_t rank() const { return rows_.size(); }
  const std::vector<std::uint64_t>& rows() const { return rows_; }

 private:
  std::vector<std::uint64_t> rows_;
};

// The rows h with h . k = 0 (even parity of h & k) for every k of `kernel`, restricted to the bits
// of `mask`: a basis of the annihilator, in reduced row echelon form (highest bit first).
std::vector<std::uint64_t> annihilator(const Basis& kernel, std::uint64_t mask);
// Reduced row echelon form of the span of `rows` (every leading bit appears in one row only).
std::vector<std::uint64_t> rref(const std::vector<std::uint64_t>& rows);
inline int parity(std::uint64_t v) { return __builtin_parityll(v); }

}  // namespace memhier::analysis::gf2
