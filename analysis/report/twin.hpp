// A simulated twin of a measured GPU (issue 32; docs/simulator.md, "A twin of the GPU you measured"):
// a memhier-sim-config/1 document built from one topology.json alone. Every value the archive
// decided is copied; one it left null is filled with a stated default and named in the document's
// top-level "defaulted" list (and in the level's "note"), one computed from other measured values
// (e.g. the sets one SM sees in a partitioned L2) in "derived". analysis/ does not link sim/: the
// writer emits sim's format and tests/cli/twin.cmake loads it with sim's parser (memhier-bench).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

// The twin of `topology` (schema memhier-topology/1 or /2); `name` becomes the config's name (one word).
// Throws std::runtime_error when the topology lacks what no default can stand for (the device block).
nlohmann::json twin_config(const nlohmann::json& topology, const std::string& name);

}  // namespace memhier::analysis
