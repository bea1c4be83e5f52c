// The shape of topology.json (docs/formats.md, "Topology report"). memhier-topology/2 states
// `device` values as JSON numbers, booleans, arrays and objects where the text is one (names,
// identifiers and versions stay text), `inputs` by file name (the archive's files, not the paths of
// the machine that analyzed them), and a cache's `ways` as one count where every set has it, with
// `ways_per_set` beside a null `ways` only where the sets differ. memhier-topology/1 wrote every
// device value as text and `ways` as a list by set (l2_sets.ways and the sweeps' ways were counts
// already). The analyzer builds its sections in the /1 shape and shapes the document last; readers
// of archives upgrade a /1 document with upgrade_topology, so that /1 and /2 read alike.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

constexpr const char* kTopologySchema = "memhier-topology/2";
constexpr const char* kTopologySchemaV1 = "memhier-topology/1";

// A device (context) value as /2 states it: "true"/"false" a boolean, a decimal number a JSON
// number, JSON text of an array or object that value; text otherwise and for keys that name or
// identify (gpu_name, gpu_serial, compute_capability "9.0", *_version "580.159.04", ...).
nlohmann::json device_value(const std::string& key, const nlohmann::json& v);
// A path as /2 lists it under `inputs`: its file name.
std::string input_name(const std::string& path);
// A per-set ways list in the /2 shape: {ways: count} where the sets agree (and the list is not
// empty), else {ways: null, ways_per_set: list}. Applied to caches.<name> (and their
// `alternatives`) and address_translation's levels.
void shape_ways(nlohmann::json& cache);
// The document in the /2 shape: device values typed, inputs by name, ways shaped, schema /2. A /2
// document is left as it is; a document of another schema too (false).
bool upgrade_topology(nlohmann::json& topology);
// For renderers written against lists by set: caches.<name>.ways (and address_translation's
// levels) as a list by set again (ways_per_set, or the count repeated `sets` times).
nlohmann::json ways_by_set_view(const nlohmann::json& topology);

}  // namespace memhier::analysis
