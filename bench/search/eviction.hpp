// Eviction sets by access sequences (docs/methodology.md, section cache_sequences, steps 2-5):
// a pool that fills the cache, targets whose sets overflow just past it, prime-and-probe discovery
// of the lines that share a target's set, the eviction test, and the group-testing reduction to a
// minimal set (Vila, Köpf, Morales, S&P 2019).
#pragma once
#include <cstdint>

#include "bench/search/builders.hpp"
#include "bench/search/session.hpp"
#include "common/policy.hpp"

namespace memhier::seqsearch {

// The largest pool (lines `stride` apart from offset 0) whose second pass has no more misses than
// max(3, pool/2000): from `hint_lines` (at least 64) doubling or halving to a bracket, then bisection to
// 1/64 (1/32 above 65536 lines). At most array/16 bytes. lo: that pool (0 when the search stopped
// or none holds); hi: the smallest pool seen with misses (0: none).
struct PoolSize {
  std::uint64_t lo = 0, hi = 0;
};
PoolSize size_pool(Session& s, std::uint64_t stride, std::uint64_t hint_lines);

// Lines of [lo, hi) (pool lines `stride` apart) that missed in the second of two passes over the
// pool of hi lines: their sets overflow there, so under a balanced index most of them have all
// their ways in the pool of lo lines — targets whose insertion evicts. At most `max` of them,
// spread over the bracket from its end on; empty when hi <= lo or the search stopped.
Lines overflow_targets(Session& s, const PoolSize& p, std::uint64_t stride, std::size_t max);

// Lines of the pool that hit before `p.target` and missed after it.
Lines discover(Session& s, const PrimeProbe& p, std::uint64_t pool_base = 0);

// Misses of the target in `rounds` measured rounds that make an eviction: max(2, rounds / 100). A
// GPU's odd slow access (about one in 10^4) is no eviction even in a test of thousands of rounds;
// a set that evicts misses in far more than 1 % of the rounds, random replacement included.
std::uint32_t eviction_misses(std::uint32_t rounds);

// Does `set` evict `target`? Eviction test: warm-up rounds, then measured rounds; eviction_misses
// or more misses of the target is an eviction (noted in the session with its fraction). A short
// test first (16 rounds; 48 with `confirm`); a negative or a few misses is asked again with long
// rounds (then 3 x as many for a few misses again) unless the cache evicts regularly.
bool evicts(Session& s, std::uint64_t target, const Lines& set, bool confirm = false);

// The affine closure of `lines` over GF(2): lines[0] XOR every combination of the differences
// lines[i] ^ lines[0]. Under a linear (XOR) index the lines of one set that a region holds form such
// a coset, so a partial discovery (a cascade cut short by a random or QLRU victim choice) closes to
// the whole set. Empty when the closure would exceed `max_size` lines or `array_bytes`.
Lines affine_closure(const Lines& lines, std::size_t max_size, std::uint64_t array_bytes);

// The lines of `lines` that lie in one coset with the target: under an XOR index the lines of the
// target's set in a region form an affine subspace, so x ^ y ^ z is in it for any three of them.
// A line's support: the pairs y, z of the others (or the target) with x ^ y ^ z found too; kept
// when it is at least a quarter of the best support. A line of another set (a slow outlier in a
// probe pass: one in ~10^4 accesses flags ~13 of a 128 K-line pool) has only chance support (on
// the simulated H100-like L2: at most 42 against 570 for the set's lines). Empty when no line has
// support. Applied to 4 … 1024 lines; else the lines as they are.
Lines coset_core(const Lines& lines, std::uint64_t target);
// The support of every line, counted directly over the triples (O(n^3), any lines) and by pair
// XOR counts (O(n^2), distinct lines only: what coset_core uses then). Exposed for the test that
// holds the two equal.
std::vector<std::size_t> coset_support_direct(const Lines& lines, std::uint64_t target);
std::vector<std::size_t> coset_support_pairs(const Lines& lines, std::uint64_t target);

// Drops lines of `set` while it still evicts `target`: first halves by address bits (keep the
// lines with bit b clear, or set, when they evict), then groups of ⌈|set|/8⌉ lines, then finer down
// to single lines, one pass each. The result is minimal when every single line was tried (the
// search did not stop).
Lines reduce(Session& s, std::uint64_t target, Lines set);

// Confirms with longer tests that `set` evicts and no line of it can go; drops lines that can.
// True when confirmed minimal.
bool confirm_minimal(Session& s, std::uint64_t target, Lines& set);

// Rounds of a long eviction test of a set of `set_size` lines: measured (8 per line, 32 … 1024;
// 16 for sets over 256 lines) and warm-up (2 when the cache evicts regularly, else 3 per line, at
// most 192; 2 for sets over 256 lines). Short tests: 16 measured rounds.
std::uint32_t measured_rounds(std::size_t set_size);
std::uint32_t warm_rounds(const Session& s, std::size_t set_size);
constexpr std::uint32_t kShortRounds = 16;

// Stops the search (budget or failure)?
inline bool stopped(const Session& s) { return s.exhausted() || s.failed(); }

}  // namespace memhier::seqsearch
