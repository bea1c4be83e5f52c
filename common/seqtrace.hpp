// Sequence traces (docs/formats.md, section seqtrace; format `memhier-seqtrace 1`): every access
// sequence a benchmark ran and what came of it, in the order it ran. The search that chose the
// sequences may be adaptive; the analyzer concludes from these records only. Text: a header of
// `key value` lines, then one block per sequence (its runs as common/sequence.hpp has them, and the
// records of its slots).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/sequence.hpp"

namespace memhier {

constexpr int kSeqTraceVersion = 1;

struct SeqTraceEntry {
  // What the sequence was for, e.g. step=evict, target=0x3f000 (keys and values without spaces).
  std::map<std::string, std::string> tags;
  AccessSequence seq;
  std::vector<std::uint32_t> records;  // per slot; empty when the sequence could not run
  std::string error;                   // why it could not run ("" when it ran)
};

struct SeqTrace {
  std::string benchmark;
  // Header keys (path, array_bytes, start, hit_threshold_cycles, ...): values without newlines.
  std::map<std::string, std::string> meta;
  std::vector<SeqTraceEntry> entries;
};

// Throw std::runtime_error with the file name and the reason on any I/O or format problem.
void write_seq_trace(const std::string& path, const SeqTrace& t);
SeqTrace read_seq_trace(const std::string& path);
// The same on text (for tests and in-memory use).
std::string format_seq_trace(const SeqTrace& t);
SeqTrace parse_seq_trace(const std::string& text, const std::string& origin);

}  // namespace memhier
