#include "bench/search/session.hpp"

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
         (budget_.wall_seconds > 0 && wall_seconds() >= budget_.wall_seconds) || !limit_reason_.empty();
}

std::optional<std::vector<std::uint32_t>> Session::run(AccessSequence seq, Tags tags) {
  if (exhausted() || failed()) return std::nullopt;
  // A test longer than one launch holds stops the search (a limit of the device, not a failure):
  // the H100's and H200's L2 searches reached sets whose tests need 3548 and 4100 runs, 2720 fit.
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= seq.launch_breaks.size(); ++i) {
    const std::size_t end = i < seq.launch_breaks.size() ? seq.launch_breaks[i] : seq.runs.size();
    if (end > begin && end - begin > max_runs_) {
      limit_reason_ = "a test of " + std::to_string(end - begin) + " runs does not fit one launch (at most " +
                      std::to_string(max_runs_) + ")";
      return std::nullopt;
    }
    begin = std::max(begin, end);
  }
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
