// The refinement loop's next round (docs/methodology.md, inference "Refinement"): from everything
// the analyzer wished for, the chases this round measures. Derived deterministically from the data;
// a chase the data already holds (measured, or failed) is never asked for again; the rest is taken
// by priority (what the next steps wait for first) within a budget per round (benchmarks and
// estimated seconds; TLB chases in a share of their own) and in total (seconds of every refinement round so far, and rounds).
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/core/dataset.hpp"
#include "analysis/core/requests.hpp"

namespace memhier::analysis {

struct RefinementBudget {
  std::size_t round_benchmarks = 400;  // chases per round
  double round_seconds = 3.0;          // estimated measuring seconds per round
  double total_seconds = 8.0;          // measured + estimated seconds of all refinement rounds
  int max_rounds = 4;                  // refinement rounds (refine-N files) at most
  // TLB chases have their own share of each round (taken first, within the total): a few ms each
  // on a GPU, and the translation map needs them in the first rounds.
  std::size_t tlb_round_benchmarks = 96;
  double tlb_round_seconds = 1.0;
};

// Priority of a wish by the step that made it (0 first): fill granularity, the edge shift, doubling
// and halving 0; narrowing a bracket (incl. TLB reach) 1; the 50 % point, line probes, per-way
// probabilities and TLB entries 2; stage 2, index bits, prefetch, and narrowing an onset the access
// sequences make unnecessary 3.
int wish_priority(const std::string& why);

// The requests of this round (memhier-requests/1) and what was decided about the rest.
struct RefinementRound {
  nlohmann::json requests;  // what --next-requests writes
  nlohmann::json summary;   // topology "refinement": budget, spent, estimated, deferred, dropped
};
RefinementRound plan_round(const Dataset& data, const Requests& wishes, const RefinementBudget& budget);

}  // namespace memhier::analysis
