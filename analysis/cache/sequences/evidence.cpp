#include "analysis/cache/sequences/evidence.hpp"

#include "analysis/core/parallel.hpp"
#include "common/archive_files.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <unordered_map>

namespace memhier::analysis {

bool evicted(const EvictionTest& t) { return t.misses >= 2 || (t.misses == 1 && (t.rounds <= 1 || t.any_only)); }
bool not_evicted(const EvictionTest& t) { return t.misses == 0; }

namespace {

// Between two accesses of a line, at most this many accesses make an eviction test (longer spans
// are passes over a pool, read as insertions).
constexpr std::size_t kMaxInterval = 1024;

// Sequences up to this many accesses are expanded whole (the policy simulation needs every
// repetition); longer ones with each repeat block run at most kRepeatCap times: eviction tests and
// insertions read the same intervals from two repetitions as from a thousand, and the records still
// count every one.
constexpr std::uint64_t kFullExpansion = 200000;
constexpr std::uint32_t kRepeatCap = 3;

RanSequence expand(const SeqTraceEntry& e, std::uint32_t header_threshold) {
  RanSequence r;
  AccessSequence seq = e.seq;
  r.complete = access_count(seq) <= kFullExpansion;
  if (!r.complete)
    for (auto& run : seq.runs)
      if (run.is_repeat()) run.count = std::min(run.count, kRepeatCap);
  const std::uint64_t n = access_count(seq);
  r.offset.reserve(n);
  r.slot.reserve(n);
  for_each_access(
      seq,
      [&](std::uint64_t off, std::uint8_t, std::uint32_t slot) {
        r.offset.push_back(off);
        r.slot.push_back(slot);
      },
      [] {});
  r.mode = e.seq.mode;
  r.threshold = e.seq.mode == RecordMode::latency ? header_threshold : e.seq.threshold_cycles;
  r.records = e.records;
  r.slot_missed = slot_misses(e.seq, e.records, header_threshold);
  // Ids in order of first access, then renumbered so that `lines` ascends.
  std::unordered_map<std::uint64_t, std::uint32_t> first;
  first.reserve(r.offset.size() / 4 + 16);
  r.id.resize(r.offset.size());
  for (std::size_t p = 0; p < r.offset.size(); ++p) {
    auto [it, fresh] = first.try_emplace(r.offset[p], static_cast<std::uint32_t>(r.lines.size()));
    if (fresh) r.lines.push_back(r.offset[p]);
    r.id[p] = it->second;
  }
  std::vector<std::uint32_t> order(r.lines.size()), rank(r.lines.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return r.lines[a] < r.lines[b]; });
  for (std::uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::sort(r.lines.begin(), r.lines.end());
  for (auto& i : r.id) i = rank[i];
  return r;
}

// Per slot: the one (victim, lines in between) all its timed accesses share, or none.
struct SlotTest {
  bool valid = true, seen = false;
  std::uint64_t victim = 0;
  std::size_t from = 0, to = 0;  // the first interval's positions (later ones are compared raw first)
  std::vector<std::uint64_t> set;
  std::uint32_t n = 0;
};

// The distinct lines of positions [from, to), ascending (stamp: one generation per call).
std::vector<std::uint64_t> distinct(const RanSequence& r, std::size_t from, std::size_t to,
                                    std::vector<std::uint32_t>& stamp, std::uint32_t& gen) {
  ++gen;
  std::vector<std::uint32_t> ids;
  for (std::size_t p = from; p < to; ++p)
    if (stamp[r.id[p]] != gen) stamp[r.id[p]] = gen, ids.push_back(r.id[p]);
  std::sort(ids.begin(), ids.end());
  std::vector<std::uint64_t> v;
  v.reserve(ids.size());
  for (auto i : ids) v.push_back(r.lines[i]);
  return v;
}

// Does the interval [from, to) hold the same lines as the slot's first one? Equal raw spans (the
// rounds of one test) are compared without sorting.
bool same_interval(const RanSequence& r, SlotTest& s, std::size_t from, std::size_t to, std::vector<std::uint32_t>& stamp,
                   std::uint32_t& gen) {
  if (to - from == s.to - s.from &&
      std::equal(r.id.begin() + static_cast<std::ptrdiff_t>(from), r.id.begin() + static_cast<std::ptrdiff_t>(to),
                 r.id.begin() + static_cast<std::ptrdiff_t>(s.from)))
    return true;
  return distinct(r, from, to, stamp, gen) == s.set;
}

void collect_tests(const RanSequence& r, std::map<std::pair<std::uint64_t, std::vector<std::uint64_t>>, EvictionTest>& out) {
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> last(r.lines.size(), kNone);
  std::vector<std::uint32_t> stamp(r.lines.size(), 0);
  std::uint32_t gen = 0;
  std::vector<SlotTest> slots(r.records.size());
  for (std::size_t p = 0; p < r.offset.size(); ++p) {
    const std::uint64_t v = r.offset[p];
    const std::size_t q = last[r.id[p]];
    if (r.slot[p] < slots.size()) {
      SlotTest& s = slots[r.slot[p]];
      if (q == kNone || p - q - 1 > kMaxInterval) {
        s.valid = false;
      } else if (s.valid && !s.seen) {
        s.victim = v, s.from = q + 1, s.to = p, s.seen = true;
        s.set = distinct(r, s.from, s.to, stamp, gen);
        ++s.n;
      } else if (s.valid) {
        s.valid = s.victim == v && same_interval(r, s, q + 1, p, stamp, gen);
        ++s.n;
      }
    }
    last[r.id[p]] = p;
  }
  for (std::uint32_t slot = 0; slot < slots.size(); ++slot) {
    const SlotTest& s = slots[slot];
    // An eviction test repeats (v, S): one timed access is no test (under FIFO, say, fewer than W
    // lines may evict a line that came in long before).
    if (!s.valid || !s.seen || s.set.empty() || s.n < 2) continue;
    EvictionTest& t = out[{s.victim, s.set}];
    t.victim = s.victim;
    t.set = s.set;
    t.rounds += s.n;
    t.any_only = t.any_only || r.mode != RecordMode::miss_count;
    t.misses += r.mode == RecordMode::miss_count ? r.records[slot] : (r.slot_missed[slot] ? 1 : 0);
  }
}

// One untimed line x among timed lines: the lines whose timed access hit before x's first access
// (in slots no later access uses) and missed after it share x's set. Needs a clean prime: no timed
// access before x missed.
void collect_insertion(const RanSequence& r, std::vector<Insertion>& out) {
  std::vector<std::uint8_t> kind(r.lines.size(), 0);  // bit 0: timed somewhere; bit 1: untimed somewhere
  for (std::size_t p = 0; p < r.offset.size(); ++p) kind[r.id[p]] |= r.slot[p] == kUntimed ? 2 : 1;
  std::size_t x = r.lines.size(), outsiders = 0, timed = 0;
  for (std::size_t i = 0; i < kind.size(); ++i) {
    if (kind[i] == 2) x = i, ++outsiders;
    timed += kind[i] & 1;
  }
  if (outsiders != 1 || timed == 0) return;
  std::size_t first_x = 0;
  while (r.id[first_x] != x) ++first_x;
  std::vector<std::uint8_t> slot_phase(r.records.size(), 0);  // 1 before x, 2 after, 3 both
  for (std::size_t p = 0; p < r.offset.size(); ++p)
    if (r.slot[p] < slot_phase.size()) slot_phase[r.slot[p]] |= p < first_x ? 1 : 2;
  std::vector<std::uint8_t> state(r.lines.size(), 0);  // bit 0: a clean hit before; bit 1: a miss after
  for (std::size_t p = 0; p < r.offset.size(); ++p) {
    const std::uint32_t s = r.slot[p];
    if (s >= slot_phase.size() || slot_phase[s] == 3) continue;
    const bool miss = r.slot_missed[s];
    if (p < first_x && miss) return;  // the prime itself missed: the pool does not fit
    if (p < first_x) state[r.id[p]] |= 1;
    else if (miss) state[r.id[p]] |= 2;
  }
  Insertion ins;
  ins.line = r.lines[x];
  for (std::size_t i = 0; i < state.size(); ++i)
    if (state[i] == 3) ins.same_set.push_back(r.lines[i]);
  if (!ins.same_set.empty()) out.push_back(ins);
}

std::uint32_t to_u32(const std::map<std::string, std::string>& m, const char* k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : static_cast<std::uint32_t>(std::strtoul(it->second.c_str(), nullptr, 10));
}

}  // namespace

namespace {

using Tests = std::map<std::pair<std::uint64_t, std::vector<std::uint64_t>>, EvictionTest>;

// What one sequence shows, alone (computed in parallel, merged in trace order).
struct SeqPart {
  RanSequence ran;
  Tests tests;
  std::vector<Insertion> insertions;
};

// The trace's header fields; its runnable sequences into *ok.
SeqEvidence evidence_header(const SeqTrace& t, std::vector<const SeqTraceEntry*>* ok) {
  SeqEvidence ev;
  ev.benchmark = t.benchmark;
  auto meta = [&](const char* k) { return t.meta.count(k) ? t.meta.at(k) : std::string(); };
  ev.cache = meta("cache");
  ev.path = meta("path");
  ev.start_state = meta("start_state");
  ev.stopped = meta("stopped");
  {
    const auto pos = t.benchmark.find("/stride:");
    if (pos != std::string::npos) ev.stride = std::strtoull(t.benchmark.c_str() + pos + 8, nullptr, 10);
  }
  ev.array_bytes = std::strtoull(meta("array_bytes").c_str(), nullptr, 10);
  ev.threshold = to_u32(t.meta, "hit_threshold_cycles");
  for (const auto& e : t.entries)
    if (e.error.empty() && e.records.size() >= e.seq.slots) ok->push_back(&e);
  return ev;
}

SeqPart read_part(const SeqTraceEntry& e, std::uint32_t threshold) {
  SeqPart p;
  p.ran = expand(e, threshold);
  collect_tests(p.ran, p.tests);
  collect_insertion(p.ran, p.insertions);
  return p;
}

// Identical (victim, set) tests of different sequences merged; sequences and insertions in order.
void merge_parts(SeqEvidence& ev, std::vector<SeqPart>& parts) {
  Tests tests;
  for (auto& part : parts) {
    for (auto& [k, v] : part.tests) {
      auto [it, fresh] = tests.try_emplace(k, v);
      if (fresh) continue;
      it->second.rounds += v.rounds;
      it->second.misses += v.misses;
      it->second.any_only = it->second.any_only || v.any_only;
    }
    for (auto& x : part.insertions) ev.insertions.push_back(std::move(x));
    ev.sequences.push_back(std::move(part.ran));
  }
  for (auto& [k, v] : tests) ev.tests.push_back(v);
}

// Evidence of several traces: every sequence of every trace in one parallel pass (~90 sequences of
// up to 2*10^5 accesses per trace), merged per trace in trace order, so that nothing depends on
// the threads.
std::vector<SeqEvidence> read_all(const std::vector<SeqTrace>& traces) {
  std::vector<SeqEvidence> out;
  std::vector<std::vector<const SeqTraceEntry*>> ok(traces.size());
  std::vector<std::pair<std::size_t, std::size_t>> flat;  // (trace, sequence)
  for (std::size_t i = 0; i < traces.size(); ++i) {
    out.push_back(evidence_header(traces[i], &ok[i]));
    for (std::size_t k = 0; k < ok[i].size(); ++k) flat.emplace_back(i, k);
  }
  std::vector<std::vector<SeqPart>> parts(traces.size());
  for (std::size_t i = 0; i < traces.size(); ++i) parts[i].resize(ok[i].size());
  parallel_for(flat.size(), [&](std::size_t f) {
    const auto [i, k] = flat[f];
    parts[i][k] = read_part(*ok[i][k], out[i].threshold);
  });
  for (std::size_t i = 0; i < traces.size(); ++i) merge_parts(out[i], parts[i]);
  return out;
}

// The cache_sequences traces in the data (run order, then entry order), with their cache names.
std::vector<std::pair<std::string, SeqTrace>> sequence_traces(const Dataset& data, const std::string* only) {
  struct File {
    std::string cache, path, text;
  };
  std::vector<File> files;
  for (const auto& run : data.runs()) {
    const std::string dir = run.trace_dir();
    if (dir.empty()) continue;
    for (const auto* e : run.family("cache_sequences")) {
      const std::string cache = e->params.get_or("cache", "");
      if (cache.empty() || (only && cache != *only)) continue;
      // the plain file, its .gz, or its entry in the archive's traces.pack.gz (docs/formats.md)
      const std::string name_in_dir = sanitize_for_file(e->params.str()) + ".seqtrace";
      auto text = read_archived_file(dir, name_in_dir);
      if (text) files.push_back({cache, dir + "/" + name_in_dir, std::move(*text)});
    }
  }
  std::vector<std::pair<std::string, SeqTrace>> out(files.size());
  parallel_for(files.size(), [&](std::size_t i) { out[i] = {files[i].cache, parse_seq_trace(files[i].text, files[i].path)}; });
  return out;
}

std::vector<SeqEvidence> evidence_of(std::vector<std::pair<std::string, SeqTrace>> named) {
  std::vector<SeqTrace> traces;
  for (auto& [c, t] : named) traces.push_back(std::move(t));
  return read_all(traces);
}

}  // namespace

SeqEvidence read_evidence(const SeqTrace& t) { return std::move(read_all({t}).front()); }

bool has_sequence_runs(const Dataset& data, const std::string& name) {
  for (const auto& run : data.runs())
    for (const auto* e : run.family("cache_sequences"))
      if (e->params.get_or("cache", "") == name && e->counter("minimal", 0) > 0) return true;
  return false;
}

std::vector<SeqEvidence> load_sequence_evidence(const Dataset& data, const std::string& name) {
  return evidence_of(sequence_traces(data, &name));
}

std::map<std::string, std::vector<SeqEvidence>> load_all_sequence_evidence(const Dataset& data) {
  auto named = sequence_traces(data, nullptr);
  std::vector<std::string> caches;
  for (const auto& [c, t] : named) caches.push_back(c);
  auto ev = evidence_of(std::move(named));
  std::map<std::string, std::vector<SeqEvidence>> out;
  for (std::size_t i = 0; i < ev.size(); ++i) out[caches[i]].push_back(std::move(ev[i]));
  return out;
}

}  // namespace memhier::analysis
