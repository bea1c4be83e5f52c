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
// Fresh lines come from random 64 KiB blocks of the array's upper half.
std::uint64_t measure_granularity(Session& s, policy::SplitMix64& rng);

// The largest pool (lines `stride` apart from offset 0) whose second pass has no miss beyond
// pool/10000: from `hint_lines` (at least 64) doubling or halving to a bracket, then bisection to
// 1/64 (1/32 above 65536 lines). At most array/16 bytes. 0 when the search stopped or none holds.
std::uint64_t size_pool(Session& s, std::uint64_t stride, std::uint64_t hint_lines);

// Lines of the pool that hit before `p.target` and missed after it.
Lines discover(Session& s, const PrimeProbe& p, std::uint64_t pool_base = 0);

// Does `set` evict `target`? Eviction test with warm-up and measured rounds sized by |set| (a miss
// of the target in two or more measured rounds is an eviction; exactly one asks again with three
// times the rounds). `confirm`: three times the rounds from the start.
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

// Rounds of an eviction test of a set of `set_size` lines: measured (8 per line, 32 … 1024; 16
// for sets over 256 lines) and warm-up (3 per line, at most 192; 2 for sets over 256 lines).
std::uint32_t measured_rounds(std::size_t set_size);
std::uint32_t warm_rounds(std::size_t set_size);

// Stops the search (budget or failure)?
inline bool stopped(const Session& s) { return s.exhausted() || s.failed(); }

}  // namespace memhier::seqsearch
