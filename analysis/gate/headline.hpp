// The headline of one run, as memhier-compare shows it by default (docs/methodology.md, section
// `compare`): every structural field of the topology (cache and TLB sizes, lines, sets, ways,
// policies, banks, warp-access verdicts) and the headline figures (bandwidth per level, hit latency
// and miss penalty per level, DRAM latency, bank law, latency spectrum), each with the spread of
// its own samples within the run where the data has one (repetitions, the family's samples).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/gate/topology_fields.hpp"
#include "common/bench_json.hpp"

namespace memhier::analysis {

struct Figure {
  enum class Kind { structure, latency, bandwidth };
  std::string id;  // topology path ("caches.l1.hit_latency_cycles") or "spectrum.<path>.<pattern>"
  Kind kind = Kind::structure;
  nlohmann::json value;       // null: not determined in this run
  double spread = 0;          // 2 x MAD (2-3 values: range) of its samples, in its unit; 0: none
  int samples = 0;            // how many accesses the value rests on, where few; 0: not known
  int spread_samples = 0;     // how many samples the spread was taken from
  std::string spread_source;  // "repetitions", "pattern samples", "family samples" or ""
  double relative_threshold = 0;  // > 0: this figure's own relative threshold in place of its kind's
};

struct Headline {
  FlatTopology flat;                      // the whole topology, for ranges and confidences
  std::map<std::string, Figure> figures;  // by id
};

// `topology`: topology.json of the run; `bench`: its bench.json (repetitions, family samples and
// the latency-spectrum trace, read from its trace directory or pack).
Headline extract_headline(const nlohmann::json& topology, const BenchRun& bench);

// A label for people (<= 40 characters): "L1 hit latency", "DRAM read bandwidth", "l1 size, carveout 100".
std::string figure_label(const std::string& id);
// Sort key: structure first, then caches in hierarchy order, memory, bandwidths, shared, spectrum.
std::string figure_order(const std::string& id, Figure::Kind kind);

}  // namespace memhier::analysis
