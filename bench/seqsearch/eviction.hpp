// Eviction sets by access sequences (docs/methodology.md, section cache_sequences, steps 1-5):
// the fill granularity, a pool that fills the cache, prime-and-probe discovery of the lines that
// share a target's set, the eviction test, and the group-testing reduction to a minimal set
// (Vila, Köpf, Morales, S&P 2019).
#pragma once
#include <cstdint>

#include "bench/seqsearch/builders.hpp"
#include "bench/seqsearch/session.hpp"
#include "common/policy.hpp"

namespace memhier::seqsearch {

// The smallest d (4 … 1024 bytes) such that x + d misses right after x; 0 when the search stopped.
// Fresh lines come from random 64 KiB blocks of the array's upper half. Lowers the session's miss
// threshold to halfway between the fastest access (a hit) and the fastest one clearly slower
// (> 1.125 x + 4 cycles) when that is below it: levels closer than 1.5 x (an L2 and its DRAM
// behind global_cg on older GPUs) are told apart; the fresh lines' misses go to the last level, so
// the midpoint alone would call hits in a middle level hits.
std::uint64_t measure_granularity(Session& s, policy::SplitMix64& rng);

// The largest pool (lines `stride` apart from offset 0) whose second pass has no more misses than
// max(2, pool/10000): from `hint_lines` (at least 64) doubling or halving to a bracket, then bisection to
// 1/64 (1/32 above 65536 lines). At most array/16 bytes. 0 when the search stopped or none holds.
std::uint64_t size_pool(Session& s, std::uint64_t stride, std::uint64_t hint_lines);

// Lines of the pool that hit before `p.target` and missed after it.
Lines discover(Session& s, const PrimeProbe& p, std::uint64_t pool_base = 0);

// Does `set` evict `target`? Eviction test: warm-up rounds, then measured rounds; a miss of the
// target in two or more measured rounds is an eviction (noted in the session with its fraction).
// A short test first (16 rounds; 48 with `confirm`); a negative or single-miss answer is asked
// again with long rounds unless the cache evicts regularly.
bool evicts(Session& s, std::uint64_t target, const Lines& set, bool confirm = false);

// The affine closure of `lines` over GF(2): lines[0] XOR every combination of the differences
// lines[i] ^ lines[0]. Under a linear (XOR) index the lines of one set that a region holds form such
// a coset, so a partial discovery (a cascade cut short by a random or QLRU victim choice) closes to
// the whole set. Empty when the closure would exceed `max_size` lines or `array_bytes`.
Lines affine_closure(const Lines& lines, std::size_t max_size, std::uint64_t array_bytes);

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
