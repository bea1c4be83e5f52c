// What the analyzer reads is checked before anything is inferred from it (docs/methodology.md,
// section reliability): a counter that cannot be (negative or non-finite values, a latency beyond
// any chase's budget, a miss rate outside [0, 1], more misses than accesses), a name whose
// parameters do not parse (a component without a value, a numeric value that is negative or not a
// number, a count or size parameter (bytes, stride, ctas, ...) that is not a non-negative integer,
// a P-chase or TLB entry without its bytes and stride), an entry that appears twice in one
// file. Each problem names its file and benchmark. And what it writes: a topology in which nothing
// at all was determined is a failure, not a result.
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::analysis {

struct InputProblem {
  std::size_t entry = 0;  // index into BenchRun::entries
  std::string text;       // "<file>: benchmark '<name>': <what>"
};

// Problems of one file's entries (entries that failed when measured are not checked: they are
// skipped or refused anyway). A file without any entry is an error of its own (empty_run_error).
std::vector<InputProblem> check_bench_run(const BenchRun& run);
// The benchmark families this analyzer reads (the families of memhier-bench it knows).
const std::set<std::string>& known_families();
// One line per family the analyzer does not read, with how many entries it skips ("3 entries of
// family 'foo', which this analyzer does not read: skipped"): a warning, not an error (a newer
// memhier-bench may write families an older analyzer does not know).
std::vector<std::string> unknown_family_warnings(const std::vector<BenchRun>& runs);
// "" or why a file cannot be analyzed at all (an empty benchmark list).
std::string empty_run_error(const BenchRun& run);
// Applies the checks to loaded files (after the entries that failed when measured were dealt
// with): an empty file throws; a problem throws (one line: the first problem and how many more)
// unless allow_errors, which marks each such entry failed ("invalid input: ...") and lists it in
// *left_out. A sample measured with a throttled SM clock (counter clock_throttled) is always left
// out and listed: never averaged in silently.
void screen_runs(std::vector<BenchRun>& runs, bool allow_errors, std::vector<std::string>* left_out);

// Largest value a latency counter may hold: 10^9 cycles is half a second for one access at 2 GHz,
// far beyond the per-benchmark budget of any chase; larger values are corrupt.
constexpr double kMaxLatencyCycles = 1e9;
// Largest magnitude of any counter (1 PB/s, 10^15 accesses): beyond anything memhier measures.
constexpr double kMaxCounter = 1e15;

// How many values the topology determined: numbers, strings and booleans outside the bookkeeping
// (device, inputs, provenance, evidence, notes, reasons, confidences, measurement,
// refinement_pending, schema, and per_sm, which follows from the load path alone).
// 0 means every value is null: memhier-infer fails instead of writing an empty result with exit 0.
std::size_t count_determined_values(const nlohmann::json& topology);

}  // namespace memhier::analysis
