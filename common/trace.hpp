// Trace files (docs/formats.md, format `memhier-trace 1`): the per-access record of a fine-grained
// P-chase run, or the latency histogram of an in-kernel counting run. Text, one header block of
// `key value` lines, then one record per line.
#pragma once
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace memhier {

constexpr int kTraceFormatVersion = 1;

// Latency histogram with fixed-width bins starting at 0; the last bin collects everything above.
struct Histogram {
  std::uint32_t bin_width = 4;
  std::vector<std::uint64_t> counts;  // counts[i]: latencies in [i*w, (i+1)*w)
  std::uint64_t total() const;
  double mean() const;  // bin centres weighted by counts
};

struct Trace {
  enum class Kind { fine, histogram };
  Kind kind = Kind::fine;
  std::string benchmark;                    // benchmark name
  std::map<std::string, std::string> meta;  // other header keys (path, bytes, stride, ...)
  double clock_overhead_cycles = 0;         // already subtracted from the latencies below
  // fine: access k read element index[k] and took latency[k] cycles (overhead removed, clamped >= 0)
  std::vector<std::uint32_t> index;
  std::vector<std::uint32_t> latency;
  std::vector<std::uint8_t> label;  // optional per-access label (latency spectrum pattern)
  // histogram
  Histogram hist;
};

// Throws std::runtime_error with the file name and the reason on any I/O or format problem.
void write_trace(const std::string& path, const Trace& t);
Trace read_trace(const std::string& path);
// The same from a stream (`origin` names it in messages).
Trace parse_trace(std::istream& in, const std::string& origin);
// Largest number of histogram bins a trace may declare (memhier writes 1024).
constexpr std::size_t kMaxTraceBins = std::size_t(1) << 20;
// The same as parse_trace (a trace taken out of a pack); `path` names it in messages.
Trace read_trace(std::istream& in, const std::string& path);

}  // namespace memhier
