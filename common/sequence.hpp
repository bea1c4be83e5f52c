// Access sequences: the primitive behind eviction sets and replacement-policy tests (DESIGN.md
// "Backends"; docs/methodology.md, section sequence). A sequence is a list of runs; a run is one
// access or an arithmetic progression of accesses (offset, offset + stride, ...) into one array,
// on one load path, timed or not; a repeat marker runs the preceding runs again. Both backends walk
// it with one thread, each access complete before the next starts, and record the timed accesses
// into record slots. Written to traces as it is (common/seqtrace.hpp), so that a pass over a
// million lines stays one line of text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace memhier {

// Load paths of sequence accesses, numbered as bench/backends/backend.hpp's Path.
constexpr std::uint8_t kSeqPathCount = 4;  // global_ca, global_cg, ldg, texture
const char* seq_path_name(std::uint8_t code);
bool parse_seq_path(const std::string& name, std::uint8_t* code);

// What a record slot holds after the sequence ran.
enum class RecordMode : std::uint8_t {
  latency = 0,     // the latency (cycles, clock overhead removed) of the last access recorded there
  miss_count = 1,  // how many accesses recorded there took >= threshold_cycles
  miss_any = 2,    // 1 when any access recorded there took >= threshold_cycles
};
const char* record_mode_name(RecordMode m);
bool parse_record_mode(const std::string& name, RecordMode* m);

constexpr std::uint32_t kUntimed = 0xFFFFFFFFu;
// The largest |stride| of one run the CUDA backend can run (a 32-bit signed stride); the builder
// never merges accesses farther apart into one run.
constexpr std::int64_t kMaxRunStride = 0x7FFFFFFF;

struct AccessRun {
  std::uint64_t offset = 0;       // byte offset of the first access (a multiple of 4)
  std::int64_t stride = 0;        // bytes from one access to the next (a multiple of 4; may be 0 or < 0)
  std::uint32_t count = 1;        // accesses; for a repeat marker: how often its block runs in all (>= 1)
  std::uint8_t path = 0;          // seq_path_name code
  std::uint32_t slot = kUntimed;  // timed: slot of the first access (access i: slot + i * slot_step)
  std::uint8_t slot_step = 1;     // 1: consecutive slots; 0: every access records into `slot`
  std::uint32_t repeat = 0;       // > 0: a repeat marker: the `repeat` runs before it run `count` times in all
  bool timed() const { return slot != kUntimed; }
  bool is_repeat() const { return repeat > 0; }
  bool operator==(const AccessRun& o) const {
    return offset == o.offset && stride == o.stride && count == o.count && path == o.path && slot == o.slot &&
           slot_step == o.slot_step && repeat == o.repeat;
  }
};

struct AccessSequence {
  std::vector<AccessRun> runs;
  RecordMode mode = RecordMode::latency;
  std::uint32_t threshold_cycles = 0;        // miss modes: a latency >= this is a miss
  std::uint32_t slots = 0;                   // record slots; every timed slot is below
  std::vector<std::uint32_t> launch_breaks;  // run indices where a new kernel launch begins (same SM)
};

// Builds sequences; timed accesses take fresh slots unless told where to record.
class SequenceBuilder {
 public:
  explicit SequenceBuilder(RecordMode mode = RecordMode::latency, std::uint32_t threshold_cycles = 0);
  // One access; a timed one records into the next fresh slot, which is returned (else kUntimed).
  std::uint32_t access(std::uint64_t offset, std::uint8_t path, bool timed = false);
  // `count` accesses from `offset` on, `stride` bytes apart; timed ones take `count` fresh slots
  // (the first is returned).
  std::uint32_t pass(std::uint64_t offset, std::int64_t stride, std::uint32_t count, std::uint8_t path,
                     bool timed = false);
  // The same, recording into slots chosen by the caller (slot_step 0: all into `slot`).
  void pass_into(std::uint64_t offset, std::int64_t stride, std::uint32_t count, std::uint8_t path,
                 std::uint32_t slot, std::uint8_t slot_step);
  // Reserves `n` fresh slots; returns the first.
  std::uint32_t new_slots(std::uint32_t n);
  // The runs added since `mark()` run `times` times in all (no-op for times <= 1 or an empty block).
  std::size_t mark();
  void repeat_since(std::size_t mark, std::uint32_t times);
  // A new kernel launch begins before the next run (ignored at the very start).
  void launch_break();
  const AccessSequence& peek() const { return seq_; }
  AccessSequence take();

 private:
  bool extend_last(const AccessRun& a);
  AccessSequence seq_;
  std::size_t sealed_ = 0;  // runs below this index are never extended
};

// Visits every access in order: access(offset, path, slot) with slot = kUntimed for untimed
// accesses, and on_break() where a new launch begins. The sequence must pass check_sequence.
template <typename Access, typename Break>
void for_each_access(const AccessSequence& s, Access&& access, Break&& on_break) {
  std::size_t next_break = 0;
  std::uint32_t left = 0;
  bool in_repeat = false;
  for (std::size_t r = 0; r < s.runs.size();) {
    while (next_break < s.launch_breaks.size() && s.launch_breaks[next_break] <= r) {
      if (s.launch_breaks[next_break] == r && r > 0) on_break();
      ++next_break;
    }
    const AccessRun& run = s.runs[r];
    if (run.is_repeat()) {
      if (!in_repeat) {
        in_repeat = true;
        left = run.count - 1;
      }
      if (left > 0) {
        --left;
        r -= run.repeat;
      } else {
        in_repeat = false;
        ++r;
      }
      continue;
    }
    for (std::uint32_t i = 0; i < run.count; ++i)
      access(run.offset + static_cast<std::uint64_t>(run.stride * static_cast<std::int64_t>(i)), run.path,
             run.timed() ? run.slot + i * run.slot_step : kUntimed);
    ++r;
  }
}

// Accesses the sequence makes (repeats expanded).
std::uint64_t access_count(const AccessSequence& s);
// "" when the sequence is well formed for an array of `array_bytes`, else the first problem:
// an access outside the array or not 4-byte aligned, an unknown path, a slot >= slots, a count of
// 0, a repeat block that reaches before the start or holds another repeat marker or a launch
// break, unsorted breaks, a miss mode without a threshold.
std::string check_sequence(const AccessSequence& s, std::uint64_t array_bytes);
// Per slot: did it miss? latency mode: record >= threshold (the caller's); miss modes: record > 0.
std::vector<bool> slot_misses(const AccessSequence& s, const std::vector<std::uint32_t>& records,
                              std::uint32_t latency_threshold);

}  // namespace memhier
