#include "common/seqtrace.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace memhier {

namespace {

bool has_space(const std::string& s) { return s.find_first_of(" \t\r\n") != std::string::npos; }

void write_run(std::ostream& o, const AccessRun& r) {
  if (r.is_repeat()) {
    o << "x " << r.repeat << ' ' << r.count << '\n';
    return;
  }
  o << "r 0x" << std::hex << r.offset << std::dec << ' ' << r.stride << ' ' << r.count << ' ' << seq_path_name(r.path);
  if (r.timed()) o << ' ' << r.slot << ' ' << static_cast<int>(r.slot_step);
  o << '\n';
}

void write_records(std::ostream& o, const SeqTraceEntry& e) {
  if (!e.error.empty()) {
    o << "o e " << e.error << '\n';
    return;
  }
  std::size_t nonzero = 0;
  for (auto v : e.records) nonzero += v != 0;
  if (e.seq.mode != RecordMode::latency && 2 * nonzero < e.records.size()) {
    o << "o s " << nonzero;
    for (std::size_t i = 0; i < e.records.size(); ++i)
      if (e.records[i]) o << ' ' << i << ':' << e.records[i];
  } else {
    o << "o d";
    for (auto v : e.records) o << ' ' << v;
  }
  o << '\n';
}

void write_entry(std::ostream& o, std::size_t k, const SeqTraceEntry& e) {
  o << "seq " << k << ' ' << record_mode_name(e.seq.mode) << ' ' << e.seq.threshold_cycles << ' ' << e.seq.slots
    << ' ' << e.seq.runs.size();
  for (const auto& [key, v] : e.tags) {
    if (key.empty() || has_space(key) || has_space(v) || key.find('=') != std::string::npos)
      throw std::invalid_argument("sequence tag '" + key + "=" + v + "' holds a space or '='");
    o << ' ' << key << '=' << v;
  }
  o << '\n';
  std::size_t next_break = 0;
  for (std::size_t r = 0; r < e.seq.runs.size(); ++r) {
    while (next_break < e.seq.launch_breaks.size() && e.seq.launch_breaks[next_break] == r) {
      o << "b\n";
      ++next_break;
    }
    write_run(o, e.seq.runs[r]);
  }
  if (e.error.find('\n') != std::string::npos) throw std::invalid_argument("sequence error text holds a newline");
  write_records(o, e);
}

}  // namespace

std::string format_seq_trace(const SeqTrace& t) {
  std::ostringstream o;
  o << "memhier-seqtrace " << kSeqTraceVersion << '\n';
  o << "benchmark " << t.benchmark << '\n';
  for (const auto& [k, v] : t.meta) {
    if (k.empty() || has_space(k) || v.find('\n') != std::string::npos || k == "benchmark" || k == "sequences")
      throw std::invalid_argument("bad sequence-trace header key '" + k + "'");
    o << k << ' ' << v << '\n';
  }
  o << "sequences " << t.entries.size() << '\n';
  for (std::size_t k = 0; k < t.entries.size(); ++k) write_entry(o, k, t.entries[k]);
  o << "end\n";
  return o.str();
}

void write_seq_trace(const std::string& path, const SeqTrace& t) {
  std::string text;
  try {
    text = format_seq_trace(t);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open sequence trace for writing");
  f << text;
  if (!f) throw std::runtime_error(path + ": write failed");
}

namespace {

class Reader {
 public:
  Reader(const std::string& text, std::string origin) : in_(text), origin_(std::move(origin)) {}
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(origin_ + ": line " + std::to_string(line_no_) + ": " + why);
  }
  std::string next(const char* what) {
    std::string l;
    if (!std::getline(in_, l)) fail(std::string("truncated sequence trace: expected ") + what);
    ++line_no_;
    return l;
  }
  SeqTraceEntry entry(std::size_t k);

 private:
  AccessRun run(std::istringstream& in);
  void records(const std::string& l, SeqTraceEntry* e);
  std::istringstream in_;
  std::string origin_;
  std::size_t line_no_ = 0;
};

AccessRun Reader::run(std::istringstream& in) {
  AccessRun r;
  std::string off, path;
  if (!(in >> off >> r.stride >> r.count >> path)) fail("bad run line");
  try {
    std::size_t used = 0;
    r.offset = std::stoull(off, &used, 0);
    if (used != off.size()) fail("bad run offset '" + off + "'");
  } catch (const std::logic_error&) {
    fail("bad run offset '" + off + "'");
  }
  if (!parse_seq_path(path, &r.path)) fail("unknown load path '" + path + "'");
  int step = 1;
  if (in >> r.slot) {
    if (!(in >> step) || (step != 0 && step != 1)) fail("bad slot step");
    r.slot_step = static_cast<std::uint8_t>(step);
  }
  return r;
}

void Reader::records(const std::string& l, SeqTraceEntry* e) {
  std::istringstream in(l.substr(2));
  std::string kind;
  in >> kind;
  if (kind == "e") {
    std::getline(in, e->error);
    if (!e->error.empty() && e->error[0] == ' ') e->error.erase(0, 1);
    if (e->error.empty()) e->error = "(no reason given)";
    return;
  }
  e->records.assign(e->seq.slots, 0);
  if (kind == "d") {
    for (auto& v : e->records)
      if (!(in >> v)) fail("fewer records than the sequence's " + std::to_string(e->seq.slots) + " slots");
    return;
  }
  std::size_t n = 0;
  if (kind != "s" || !(in >> n)) fail("bad records line");
  for (std::size_t i = 0; i < n; ++i) {
    std::string pair;
    if (!(in >> pair) || pair.find(':') == std::string::npos) fail("bad sparse record");
    std::uint64_t slot = 0, value = 0;
    try {
      slot = std::stoull(pair.substr(0, pair.find(':')));
      value = std::stoull(pair.substr(pair.find(':') + 1));
    } catch (const std::logic_error&) {
      fail("bad sparse record '" + pair + "'");
    }
    if (slot >= e->records.size()) fail("record slot " + std::to_string(slot) + " out of range");
    e->records[slot] = static_cast<std::uint32_t>(value);
  }
}

SeqTraceEntry Reader::entry(std::size_t k) {
  SeqTraceEntry e;
  std::istringstream h(next("a 'seq' line"));
  std::string word, mode;
  std::size_t index = 0, nruns = 0;
  if (!(h >> word >> index >> mode >> e.seq.threshold_cycles >> e.seq.slots >> nruns) || word != "seq" || index != k)
    fail("expected 'seq " + std::to_string(k) + " <mode> <threshold> <slots> <runs>'");
  if (!parse_record_mode(mode, &e.seq.mode)) fail("unknown record mode '" + mode + "'");
  while (h >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) fail("bad tag '" + word + "'");
    e.tags[word.substr(0, eq)] = word.substr(eq + 1);
  }
  while (e.seq.runs.size() < nruns) {
    const std::string l = next("a run");
    std::istringstream in(l);
    in >> word;
    if (word == "b") {
      e.seq.launch_breaks.push_back(static_cast<std::uint32_t>(e.seq.runs.size()));
    } else if (word == "x") {
      AccessRun r;
      if (!(in >> r.repeat >> r.count) || r.repeat == 0) fail("bad repeat line");
      e.seq.runs.push_back(r);
    } else if (word == "r") {
      e.seq.runs.push_back(run(in));
    } else {
      fail("expected a run ('r', 'x' or 'b'), got '" + l + "'");
    }
  }
  const std::string o = next("the records ('o')");
  if (o.rfind("o ", 0) != 0) fail("expected the records ('o'), got '" + o + "'");
  records(o, &e);
  return e;
}

}  // namespace

SeqTrace parse_seq_trace(const std::string& text, const std::string& origin) {
  Reader rd(text, origin);
  SeqTrace t;
  {
    std::istringstream h(rd.next("the magic line"));
    std::string magic;
    int version = 0;
    h >> magic >> version;
    if (magic != "memhier-seqtrace") rd.fail("not a memhier sequence trace");
    if (version != kSeqTraceVersion)
      rd.fail("sequence trace version " + std::to_string(version) + " not supported (expected " +
              std::to_string(kSeqTraceVersion) + ")");
  }
  std::size_t n = 0;
  for (;;) {
    const std::string l = rd.next("'sequences N'");
    const auto sp = l.find(' ');
    const std::string key = l.substr(0, sp), value = sp == std::string::npos ? "" : l.substr(sp + 1);
    if (key == "sequences") {
      try {
        n = std::stoull(value);
      } catch (const std::logic_error&) {
        rd.fail("bad sequence count");
      }
      break;
    }
    if (key == "benchmark") t.benchmark = value;
    else t.meta[key] = value;
  }
  for (std::size_t k = 0; k < n; ++k) t.entries.push_back(rd.entry(k));
  if (rd.next("the end marker") != "end") rd.fail("expected the end marker");
  return t;
}

SeqTrace read_seq_trace(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open sequence trace");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_seq_trace(ss.str(), path);
}

}  // namespace memhier
