#include "bench/seqsearch/session.hpp"

#include <algorithm>
#include <cstdio>

namespace memhier::seqsearch {

std::string hex(std::uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

Session::Session(Backend& be, Path path, int carveout, std::uint64_t array_bytes, std::uint32_t miss_threshold,
                 Budget b)
    : be_(be),
      path_(path),
      carveout_(carveout),
      array_bytes_(array_bytes),
      threshold_(miss_threshold),
      budget_(b),
      max_runs_(be.max_sequence_runs() ? be.max_sequence_runs() : 1u << 20) {}

bool Session::exhausted() const {
  return launches_ >= budget_.launches || seconds_ >= budget_.seconds ||
         (budget_.wall_seconds > 0 && wall_seconds() >= budget_.wall_seconds);
}

std::optional<std::vector<std::uint32_t>> Session::run(AccessSequence seq, Tags tags) {
  if (exhausted() || failed()) return std::nullopt;
  SequenceRequest r;
  r.seq = std::move(seq);
  r.array_bytes = array_bytes_;
  r.carveout = carveout_;
  SequenceResult res = be_.run_sequence(r);
  SeqTraceEntry e;
  e.tags = std::move(tags);
  e.seq = std::move(r.seq);
  launches_ += static_cast<std::uint32_t>(std::max(1, res.launches));
  seconds_ += res.seconds;
  accesses_ += res.accesses;
  if (!res.error.empty()) {
    e.error = res.error;
    if (first_error_.empty()) first_error_ = res.error;
    trace_.entries.push_back(std::move(e));
    return std::nullopt;
  }
  if (start_state_.empty()) start_state_ = res.start_state;
  if (sm_id_ < 0) sm_id_ = res.sm_id;
  smem_bytes_ = std::max(smem_bytes_, res.smem_bytes);
  last_walk_cycles_ = res.walk_cycles;
  e.records = res.records;
  trace_.entries.push_back(std::move(e));
  return res.records;
}

}  // namespace memhier::seqsearch
