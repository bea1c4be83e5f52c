// The sections of a topology that only the early families decide — the caches (P-chase, access
// sequences, sharing), address translation and the refinement round — computed once and reused
// (memhier-infer --sections-cache; docs/methodology.md, Wall time). scripts/characterize.sh
// analyzes them while the GPU still measures the late families (the deferred ones: throughput,
// levels, the L2's slices and sets, ...), whose data these sections do not read, so that the last
// analysis after the GPU is done computes only the late sections.
//
// A cache file is used only when its fingerprint equals the dataset's: the same analyzer build,
// refinement budget, every entry of every early family (names, counters, errors) and every context
// key but those that change while the late families run (volatile_context_key). Otherwise the
// sections are computed and the file is rewritten. The output is the same either way
// (tests/cli/infer/early_sections.cmake compares both on committed archives).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/core/dataset.hpp"
#include "analysis/core/refinement.hpp"

namespace memhier::analysis {

// Families whose entries no early section reads: what characterize.sh defers (DEFER) and any
// family of the levels beyond one SM. Everything else is early.
bool late_family(const std::string& family);
// Context keys that memhier-bench writes or rewrites after the plan (measurement conditions over
// the late families, the deferred stage's wall time, the final clock reading, the wall time
// characterize.sh splices in): not part of the fingerprint.
bool volatile_context_key(const std::string& key);

struct EarlySections {
  nlohmann::json caches, address_translation, refinement_pending, refinement, selected;
};

// Text that changes when anything the early sections read changes (a hash and what it covers).
nlohmann::json early_fingerprint(const Dataset& data, const RefinementBudget& budget);

// The sections stored at `path` when its fingerprint equals `fp`; false otherwise, with why
// (no file, unreadable, another fingerprint: which part differs).
bool load_early_sections(const std::string& path, const nlohmann::json& fp, EarlySections* out, std::string* why);
// Writes them (atomically: a temporary file renamed); false when it cannot.
bool save_early_sections(const std::string& path, const nlohmann::json& fp, const EarlySections& s);

}  // namespace memhier::analysis
