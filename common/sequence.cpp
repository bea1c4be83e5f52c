#include "common/sequence.hpp"

#include <algorithm>

namespace memhier {

namespace {
const char* const kPathNames[kSeqPathCount] = {"global_ca", "global_cg", "ldg", "texture"};
const char* const kModeNames[3] = {"latency", "miss_count", "miss_any"};
}  // namespace

const char* seq_path_name(std::uint8_t code) { return code < kSeqPathCount ? kPathNames[code] : "?"; }

bool parse_seq_path(const std::string& name, std::uint8_t* code) {
  for (std::uint8_t c = 0; c < kSeqPathCount; ++c)
    if (name == kPathNames[c]) {
      *code = c;
      return true;
    }
  return false;
}

const char* record_mode_name(RecordMode m) {
  const auto i = static_cast<std::size_t>(m);
  return i < 3 ? kModeNames[i] : "?";
}

bool parse_record_mode(const std::string& name, RecordMode* m) {
  for (std::uint8_t i = 0; i < 3; ++i)
    if (name == kModeNames[i]) {
      *m = static_cast<RecordMode>(i);
      return true;
    }
  return false;
}

SequenceBuilder::SequenceBuilder(RecordMode mode, std::uint32_t threshold_cycles) {
  seq_.mode = mode;
  seq_.threshold_cycles = threshold_cycles;
}

std::uint32_t SequenceBuilder::new_slots(std::uint32_t n) {
  const std::uint32_t first = seq_.slots;
  seq_.slots += n;
  return first;
}

std::uint32_t SequenceBuilder::access(std::uint64_t offset, std::uint8_t path, bool timed) {
  return pass(offset, 0, 1, path, timed);
}

std::uint32_t SequenceBuilder::pass(std::uint64_t offset, std::int64_t stride, std::uint32_t count,
                                    std::uint8_t path, bool timed) {
  const std::uint32_t slot = timed ? new_slots(count) : kUntimed;
  pass_into(offset, stride, count, path, slot, 1);
  return slot;
}

void SequenceBuilder::pass_into(std::uint64_t offset, std::int64_t stride, std::uint32_t count, std::uint8_t path,
                                std::uint32_t slot, std::uint8_t slot_step) {
  if (count == 0) return;
  AccessRun r;
  r.offset = offset;
  r.stride = count > 1 ? stride : 0;
  r.count = count;
  r.path = path;
  r.slot = slot;
  r.slot_step = slot_step;
  if (count == 1 && extend_last(r)) return;
  seq_.runs.push_back(r);
}

// A single access that continues the last run's progression (next offset, next slot, same path)
// extends it, so that lists of equally spaced lines compress into one run. Runs before the last
// mark() or a launch break are never extended.
bool SequenceBuilder::extend_last(const AccessRun& a) {
  if (seq_.runs.size() <= sealed_) return false;
  AccessRun& p = seq_.runs.back();
  if (p.is_repeat() || p.path != a.path || p.timed() != a.timed()) return false;
  if (!seq_.launch_breaks.empty() && seq_.launch_breaks.back() == seq_.runs.size()) return false;
  if (p.count == 0xFFFFFFFFu) return false;
  const std::int64_t step = static_cast<std::int64_t>(a.offset - p.offset);
  if (p.count == 1 ? step == 0 : step != p.stride * static_cast<std::int64_t>(p.count)) return false;
  // the GPU kernel stores a run's stride in 32 bits: lines farther apart stay separate runs
  if (step > kMaxRunStride || step < -kMaxRunStride) return false;
  if (a.timed() && (p.slot_step != 1 || a.slot != p.slot + p.count)) return false;
  if (p.count == 1) {
    p.stride = step;
    p.slot_step = 1;
  }
  ++p.count;
  return true;
}

std::size_t SequenceBuilder::mark() {
  sealed_ = seq_.runs.size();
  return sealed_;
}

void SequenceBuilder::repeat_since(std::size_t mark, std::uint32_t times) {
  if (times <= 1 || mark >= seq_.runs.size()) return;
  sealed_ = seq_.runs.size() + 1;
  AccessRun r;
  r.repeat = static_cast<std::uint32_t>(seq_.runs.size() - mark);
  r.count = times;
  seq_.runs.push_back(r);
}

void SequenceBuilder::launch_break() {
  const auto at = static_cast<std::uint32_t>(seq_.runs.size());
  if (at == 0 || (!seq_.launch_breaks.empty() && seq_.launch_breaks.back() == at)) return;
  seq_.launch_breaks.push_back(at);
  sealed_ = at;
}

AccessSequence SequenceBuilder::take() {
  AccessSequence s = std::move(seq_);
  seq_ = AccessSequence{};
  sealed_ = 0;
  seq_.mode = s.mode;
  seq_.threshold_cycles = s.threshold_cycles;
  return s;
}

std::uint64_t access_count(const AccessSequence& s) {
  // Runs inside a repeat block count once per run of the block.
  std::vector<std::uint64_t> weight(s.runs.size(), 1);
  for (std::size_t r = 0; r < s.runs.size(); ++r)
    if (s.runs[r].is_repeat() && s.runs[r].repeat <= r)
      for (std::size_t k = r - s.runs[r].repeat; k < r; ++k) weight[k] *= s.runs[r].count;
  std::uint64_t n = 0;
  for (std::size_t r = 0; r < s.runs.size(); ++r)
    if (!s.runs[r].is_repeat()) n += weight[r] * s.runs[r].count;
  return n;
}

namespace {
std::string check_run(const AccessRun& r, std::size_t i, const AccessSequence& s, std::uint64_t array_bytes) {
  const std::string at = "run " + std::to_string(i) + ": ";
  if (r.count == 0) return at + "count 0";
  if (r.path >= kSeqPathCount) return at + "unknown load path code " + std::to_string(r.path);
  if (r.offset % 4 || r.stride % 4) return at + "offset and stride must be multiples of 4 bytes";
  const std::int64_t span = r.stride * static_cast<std::int64_t>(r.count - 1);
  const std::int64_t lo = std::min<std::int64_t>(0, span), hi = std::max<std::int64_t>(0, span);
  if (array_bytes < 4 || static_cast<std::int64_t>(r.offset) + lo < 0 ||
      r.offset + static_cast<std::uint64_t>(hi) > array_bytes - 4)
    return at + "accesses outside the array of " + std::to_string(array_bytes) + " bytes";
  if (r.timed()) {
    if (r.slot_step > 1) return at + "slot_step must be 0 or 1";
    const std::uint64_t last = r.slot + static_cast<std::uint64_t>(r.slot_step) * (r.count - 1);
    if (last >= s.slots) return at + "records into slot " + std::to_string(last) + " of " + std::to_string(s.slots);
  }
  return "";
}
}  // namespace

std::string check_sequence(const AccessSequence& s, std::uint64_t array_bytes) {
  if (s.mode != RecordMode::latency && s.threshold_cycles == 0) return "a miss mode needs threshold_cycles > 0";
  if (!std::is_sorted(s.launch_breaks.begin(), s.launch_breaks.end())) return "launch breaks are not sorted";
  for (auto b : s.launch_breaks)
    if (b >= s.runs.size()) return "a launch break lies after the last run";
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const AccessRun& r = s.runs[i];
    if (!r.is_repeat()) {
      const std::string e = check_run(r, i, s, array_bytes);
      if (!e.empty()) return e;
      continue;
    }
    const std::string at = "repeat marker at run " + std::to_string(i) + ": ";
    if (r.count == 0) return at + "count 0";
    if (r.repeat > i) return at + "reaches before the first run";
    for (std::size_t k = i - r.repeat; k < i; ++k)
      if (s.runs[k].is_repeat()) return at + "its block holds another repeat marker";
    for (auto b : s.launch_breaks)
      if (b > i - r.repeat && b <= i) return at + "its block holds a launch break";
  }
  return "";
}

std::vector<bool> slot_misses(const AccessSequence& s, const std::vector<std::uint32_t>& records,
                              std::uint32_t latency_threshold) {
  std::vector<bool> m(records.size());
  for (std::size_t i = 0; i < records.size(); ++i)
    m[i] = s.mode == RecordMode::latency ? records[i] >= latency_threshold : records[i] > 0;
  return m;
}

}  // namespace memhier
