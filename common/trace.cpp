#include "common/trace.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace memhier {

std::uint64_t Histogram::total() const {
  std::uint64_t t = 0;
  for (auto c : counts) t += c;
  return t;
}

double Histogram::mean() const {
  double s = 0, n = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    s += (i + 0.5) * bin_width * static_cast<double>(counts[i]);
    n += static_cast<double>(counts[i]);
  }
  return n > 0 ? s / n : 0.0;
}

void write_trace(const std::string& path, const Trace& t) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open trace file for writing");
  f << "memhier-trace " << kTraceFormatVersion << "\n";
  f << "benchmark " << t.benchmark << "\n";
  f << "kind " << (t.kind == Trace::Kind::fine ? "fine" : "histogram") << "\n";
  f << "clock_overhead_cycles " << t.clock_overhead_cycles << "\n";
  for (const auto& [k, v] : t.meta) f << k << " " << v << "\n";
  if (t.kind == Trace::Kind::fine) {
    const bool labels = !t.label.empty();
    f << "records " << t.index.size() << "\n";
    f << "columns " << (labels ? "index latency label" : "index latency") << "\n";
    f << "data\n";
    for (std::size_t k = 0; k < t.index.size(); ++k) {
      f << t.index[k] << ' ' << t.latency[k];
      if (labels) f << ' ' << static_cast<int>(t.label[k]);
      f << '\n';
    }
  } else {
    std::size_t nonzero = 0;
    for (auto c : t.hist.counts) nonzero += c != 0;
    f << "bin_width " << t.hist.bin_width << "\n";
    f << "bins " << t.hist.counts.size() << "\n";
    f << "records " << nonzero << "\n";
    f << "columns bin count\n";
    f << "data\n";
    for (std::size_t i = 0; i < t.hist.counts.size(); ++i)
      if (t.hist.counts[i]) f << i << ' ' << t.hist.counts[i] << '\n';
  }
  f << "end\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

Trace read_trace(std::istream& in, const std::string& path) { return parse_trace(in, path); }

Trace read_trace(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open trace file");
  return parse_trace(f, path);
}

namespace {
// Numbers of a trace header or record: the whole text must be one number of the range.
std::uint64_t to_u64(const std::string& v, std::uint64_t max, const std::string& what, const std::string& origin) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = v.empty() || v[0] == '-' ? 0 : std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || errno || !end || *end || x > max)
    throw std::runtime_error(origin + ": bad " + what + " '" + v + "'");
  return x;
}
}  // namespace

Trace parse_trace(std::istream& f, const std::string& path) {
  auto fail = [&](const std::string& why) { throw std::runtime_error(path + ": " + why); };
  std::string line;
  if (!std::getline(f, line)) fail("empty file, not a memhier trace");
  {
    std::istringstream h(line);
    std::string magic;
    int version = 0;
    h >> magic >> version;
    if (magic != "memhier-trace") fail("not a memhier trace (first line '" + line.substr(0, 80) + "')");
    if (version != kTraceFormatVersion)
      fail("trace format version " + std::to_string(version) + " not supported (expected " +
           std::to_string(kTraceFormatVersion) + ")");
  }
  Trace t;
  std::uint64_t records = 0;
  bool have_records = false, labels = false;
  std::size_t bins = 0;
  while (std::getline(f, line)) {
    if (line == "data") break;
    auto sp = line.find(' ');
    std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "benchmark") t.benchmark = value;
    else if (key == "kind") {
      if (value == "fine") t.kind = Trace::Kind::fine;
      else if (value == "histogram") t.kind = Trace::Kind::histogram;
      else fail("unknown trace kind '" + value.substr(0, 80) + "'");
    } else if (key == "clock_overhead_cycles") {
      char* end = nullptr;
      t.clock_overhead_cycles = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !std::isfinite(t.clock_overhead_cycles) || t.clock_overhead_cycles < 0)
        fail("bad clock_overhead_cycles '" + value.substr(0, 80) + "'");
    } else if (key == "records") {
      records = to_u64(value, UINT64_MAX, "records", path);
      have_records = true;
    } else if (key == "columns") labels = value.find("label") != std::string::npos;
    else if (key == "bin_width") t.hist.bin_width = static_cast<std::uint32_t>(to_u64(value, UINT32_MAX, "bin_width", path));
    else if (key == "bins") bins = to_u64(value, kMaxTraceBins, "bins (at most 2^20)", path);
    else t.meta[key] = value;
  }
  if (line != "data") fail("truncated trace: no data section");
  if (!have_records) fail("trace header lacks 'records'");
  if (t.kind == Trace::Kind::histogram) {
    if (t.hist.bin_width == 0) fail("bin_width 0");
    t.hist.counts.assign(bins, 0);
  }
  for (std::uint64_t r = 0; r < records; ++r) {
    if (!std::getline(f, line)) fail("truncated trace: " + std::to_string(r) + " of " +
                                     std::to_string(records) + " records");
    std::istringstream in(line);
    std::string a, b, c, rest;
    in >> a >> b >> c >> rest;
    const bool short_line = a.empty() || b.empty() || (t.kind == Trace::Kind::fine && labels && c.empty());
    if (short_line || !rest.empty() || (!labels && !c.empty()) || (t.kind != Trace::Kind::fine && !c.empty()))
      fail(f.peek() == EOF ? "truncated trace: record " + std::to_string(r + 1) + " incomplete"
                           : "bad record " + std::to_string(r + 1));
    const std::string rec = "record " + std::to_string(r + 1);
    if (t.kind == Trace::Kind::fine) {
      t.index.push_back(static_cast<std::uint32_t>(to_u64(a, UINT32_MAX, rec + " index", path)));
      t.latency.push_back(static_cast<std::uint32_t>(to_u64(b, UINT32_MAX, rec + " latency", path)));
      if (labels) t.label.push_back(static_cast<std::uint8_t>(to_u64(c, 255, rec + " label", path)));
    } else {
      const std::uint64_t bin = to_u64(a, bins ? bins - 1 : 0, rec + " bin (of " + std::to_string(bins) + ")", path);
      if (bins == 0) fail("bad histogram record " + std::to_string(r + 1) + ": no bins declared");
      t.hist.counts[bin] = to_u64(b, UINT64_MAX, rec + " count", path);
    }
  }
  if (!std::getline(f, line) || line != "end") fail("truncated trace: no end marker");
  return t;
}

}  // namespace memhier
