// The persisting L2 set-aside (issue 20 item 4; docs/methodology.md, section l2_persist): from the
// l2_persist family, how many bytes of an access policy window stay in the L2 against a streaming
// co-runner, per requested set-aside, against the device's persistingL2CacheMaxSize (context
// l2_persisting_max_bytes). Topology section `l2_persisting`; docs/formats.md lists its keys.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::analysis {

// The control (the window-free one, request 0 without an access policy window) may keep up to this share of the window before kept bytes stop
// measuring persistence (the co-runner did not evict the window without a set-aside).
constexpr double kPersistControlLimit = 0.05;
// Request 0 with a persisting window keeps a minimum set-aside only where it keeps more than the
// window-free control by more than this share of the window (and more than the trials' spread).
constexpr double kPersistMinimumFloor = 0.01;

// The section, or null when the input has no l2_persist entries.
nlohmann::json persisting_l2_section(const std::vector<BenchRun>& runs);

}  // namespace memhier::analysis
