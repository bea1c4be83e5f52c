// The analyzer's identity and a second analysis of an archive. memhier-infer stamps every
// topology.json it writes with `analyzer_stamp()` (key "analyzer": name, version, revision;
// docs/formats.md); memhier-compare analyzes both archives again with the running analyzer when
// their raw measurements are there (bench.json[.gz], refine-N.json[.gz] and the traces), so a
// verdict is about the GPU, not about which analyzer wrote the archived topology.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

// {"name": "memhier-infer", "version": "<semver>", "revision": "<git describe of the source, or unknown>"}
nlohmann::json analyzer_stamp();
// "0.1.0+c252eb0a1b2c" for a stamp; "no stamp" for a topology written before the stamp.
std::string analyzer_text(const nlohmann::json& topology_or_stamp);
// Whether two topologies were written by the same analyzer: both stamps recorded and equal, or
// neither recorded (nothing tells them apart). One recorded and one not: different.
bool same_analyzer(const nlohmann::json& topology_a, const nlohmann::json& topology_b);

// "" when `archive` (a directory) holds what memhier-infer reads: bench.json[.gz] and the traces
// it names (trace_dir: the directory or its pack); otherwise why not, in a few words.
std::string missing_raw_data(const std::string& archive);
// The archive analyzed as characterize.sh's final step does (memhier-infer --allow-errors on
// bench.json and refine-N.json in order), stamped; streams false: without the random-stream
// judgement (memhier-infer --skip-streams). Throws std::runtime_error with one line.
nlohmann::json reanalyze_archive(const std::string& archive, bool streams = true);

}  // namespace memhier::analysis
