#include "common/seqtrace.hpp"

#include <fstream>
#include <map>
#include <tuple>
#include <sstream>
#include <stdexcept>

namespace memhier {

namespace {

bool has_space(const std::string& s) { return s.find_first_of(" \t\r\n") != std::string::npos; }

// A run the compact forms cover: untimed, on the sequence's default path.
bool plain(const AccessRun& r, std::uint8_t path) {
  return !r.is_repeat() && !r.timed() && r.slot_step == 1 && r.path == path;
}

// A plain run in list form: "0x40c0" (one access) or "0x1040:4160:2" (offset:stride:count).
void write_plain(std::ostream& o, const AccessRun& r) {
  o << "0x" << std::hex << r.offset << std::dec;
  if (r.count != 1 || r.stride != 0) o << ':' << r.stride << ':' << r.count;
}

void write_run(std::ostream& o, const AccessRun& r, std::uint8_t path) {
  if (r.is_repeat()) {
    o << "x " << r.repeat << ' ' << r.count << '\n';
  } else if (plain(r, path)) {
    o << "a ";
    write_plain(o, r);
    o << '\n';
  } else if (r.count == 1 && r.stride == 0 && r.path == path) {
    o << "t 0x" << std::hex << r.offset << std::dec << ' ' << r.slot << ' ' << static_cast<int>(r.slot_step) << '\n';
  } else {
    o << "r 0x" << std::hex << r.offset << std::dec << ' ' << r.stride << ' ' << r.count << ' ' << seq_path_name(r.path);
    if (r.timed()) o << ' ' << r.slot << ' ' << static_cast<int>(r.slot_step);
    o << '\n';
  }
}

// Plain runs that repeat across the trace (the set of an eviction test, the same set less a group,
// a clearing prefix) are written once as a list, `L <id> <runs>`, and then referred to by ranges
// of it, `l <id> <from>:<to>`. A segment of plain runs is written greedily as the longest ranges of
// earlier lists it continues, and new lists for what no earlier list holds.
class ListWriter {
 public:
  void write(std::ostream& o, const std::vector<AccessRun>& seg) {
    std::vector<AccessRun> fresh;
    for (std::size_t i = 0; i < seg.size();) {
      auto [id, from, len] = longest_match(seg, i);
      if (len < 2) {
        fresh.push_back(seg[i++]);
        continue;
      }
      flush(o, fresh);
      o << "l " << id << ' ' << from << ':' << from + len << '\n';
      i += len;
    }
    flush(o, fresh);
  }

 private:
  using Key = std::tuple<std::uint64_t, std::int64_t, std::uint32_t>;
  static Key key(const AccessRun& r) { return {r.offset, r.stride, r.count}; }

  // Longest range of an earlier list equal to seg[i...]: (list, first index, length).
  std::tuple<std::size_t, std::size_t, std::size_t> longest_match(const std::vector<AccessRun>& seg, std::size_t i) {
    std::tuple<std::size_t, std::size_t, std::size_t> best{0, 0, 0};
    auto it = where_.find(key(seg[i]));
    if (it == where_.end()) return best;
    for (auto [id, pos] : it->second) {
      std::size_t len = 0;
      while (pos + len < lists_[id].size() && i + len < seg.size() && lists_[id][pos + len] == key(seg[i + len])) ++len;
      if (len > std::get<2>(best)) best = {id, pos, len};
    }
    return best;
  }

  void flush(std::ostream& o, std::vector<AccessRun>& runs) {
    if (runs.empty()) return;
    if (runs.size() == 1) {
      o << "a ";
      write_plain(o, runs[0]);
      o << '\n';
    } else {
      const std::size_t id = lists_.size();
      lists_.emplace_back();
      o << "L " << id;
      for (const AccessRun& r : runs) {
        where_[key(r)].emplace_back(id, lists_[id].size());
        lists_[id].push_back(key(r));
        o << ' ';
        write_plain(o, r);
      }
      o << '\n';
    }
    runs.clear();
  }

  std::vector<std::vector<Key>> lists_;
  std::map<Key, std::vector<std::pair<std::size_t, std::size_t>>> where_;
};

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

std::uint8_t default_path(const AccessSequence& s) {
  for (const AccessRun& r : s.runs)
    if (!r.is_repeat()) return r.path;
  return 0;
}

void write_runs(std::ostream& o, const AccessSequence& s, ListWriter& lists) {
  const std::uint8_t path = default_path(s);
  std::size_t next_break = 0;
  for (std::size_t r = 0; r < s.runs.size();) {
    while (next_break < s.launch_breaks.size() && s.launch_breaks[next_break] == r) {
      o << "b\n";
      ++next_break;
    }
    const std::size_t stop = next_break < s.launch_breaks.size() ? s.launch_breaks[next_break] : s.runs.size();
    std::size_t end = r;
    while (end < stop && plain(s.runs[end], path)) ++end;
    if (end - r >= 2) {
      lists.write(o, std::vector<AccessRun>(s.runs.begin() + static_cast<std::ptrdiff_t>(r),
                                            s.runs.begin() + static_cast<std::ptrdiff_t>(end)));
      r = end;
    } else {
      write_run(o, s.runs[r], path);
      ++r;
    }
  }
}

void write_entry(std::ostream& o, std::size_t k, const SeqTraceEntry& e, ListWriter& lists) {
  o << "seq " << k << ' ' << record_mode_name(e.seq.mode) << ' ' << e.seq.threshold_cycles << ' ' << e.seq.slots
    << ' ' << e.seq.runs.size() << ' ' << seq_path_name(default_path(e.seq));
  for (const auto& [key, v] : e.tags) {
    if (key.empty() || has_space(key) || has_space(v) || key.find('=') != std::string::npos)
      throw std::invalid_argument("sequence tag '" + key + "=" + v + "' holds a space or '='");
    o << ' ' << key << '=' << v;
  }
  o << '\n';
  write_runs(o, e.seq, lists);
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
  ListWriter lists;
  for (std::size_t k = 0; k < t.entries.size(); ++k) write_entry(o, k, t.entries[k], lists);
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
  std::uint64_t offset(const std::string& text);
  void run_line(const std::string& l, std::uint8_t path, AccessSequence* seq);
  AccessRun plain_run(const std::string& text, std::uint8_t path);
  std::vector<std::vector<AccessRun>> lists_;
  void records(const std::string& l, SeqTraceEntry* e);
  std::istringstream in_;
  std::string origin_;
  std::size_t line_no_ = 0;
};

AccessRun Reader::run(std::istringstream& in) {
  AccessRun r;
  std::string off, path;
  if (!(in >> off >> r.stride >> r.count >> path)) fail("bad run line");
  r.offset = offset(off);
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

std::uint64_t Reader::offset(const std::string& text) {
  try {
    std::size_t used = 0;
    const std::uint64_t v = std::stoull(text, &used, 0);
    if (used == text.size()) return v;
  } catch (const std::logic_error&) {
  }
  fail("bad offset '" + text + "'");
}

// "0x40c0" or "0x1040:4160:2" (offset:stride:count): an untimed run on `path`.
AccessRun Reader::plain_run(const std::string& text, std::uint8_t path) {
  AccessRun r;
  r.path = path;
  const auto c1 = text.find(':');
  r.offset = offset(text.substr(0, c1));
  if (c1 == std::string::npos) return r;
  const auto c2 = text.find(':', c1 + 1);
  try {
    if (c2 == std::string::npos) throw std::invalid_argument("no count");
    std::size_t u1 = 0, u2 = 0;
    r.stride = std::stoll(text.substr(c1 + 1, c2 - c1 - 1), &u1);
    r.count = static_cast<std::uint32_t>(std::stoul(text.substr(c2 + 1), &u2));
    if (u1 != c2 - c1 - 1 || u2 != text.size() - c2 - 1) throw std::invalid_argument("trailing");
  } catch (const std::logic_error&) {
    fail("bad run '" + text + "'");
  }
  return r;
}

// Appends the runs one run line stands for (a list line stands for several).
void Reader::run_line(const std::string& l, std::uint8_t path, AccessSequence* seq) {
  std::istringstream in(l);
  std::string word, off;
  in >> word;
  AccessRun r;
  r.path = path;
  if (word == "b") {
    seq->launch_breaks.push_back(static_cast<std::uint32_t>(seq->runs.size()));
  } else if (word == "x") {
    if (!(in >> r.repeat >> r.count) || r.repeat == 0) fail("bad repeat line");
    seq->runs.push_back(r);
  } else if (word == "r") {
    seq->runs.push_back(run(in));
  } else if (word == "a") {
    if (!(in >> off)) fail("bad access line");
    seq->runs.push_back(plain_run(off, path));
  } else if (word == "t") {
    int step = 0;
    if (!(in >> off >> r.slot >> step) || (step != 0 && step != 1)) fail("bad timed access line");
    r.offset = offset(off);
    r.slot_step = static_cast<std::uint8_t>(step);
    seq->runs.push_back(r);
  } else if (word == "L" || word == "l") {
    std::size_t id = 0, from = 0, to = 0;
    if (!(in >> id)) fail("bad list line");
    if (word == "L") {
      if (id != lists_.size()) fail("list " + std::to_string(id) + " defined out of order");
      lists_.emplace_back();
      while (in >> off) lists_.back().push_back(plain_run(off, 0));
      to = lists_.back().size();
    } else {
      char colon = 0;
      if (id >= lists_.size()) fail("list " + std::to_string(id) + " used before it is defined");
      if (!(in >> from >> colon >> to) || colon != ':' || from >= to || to > lists_[id].size())
        fail("bad list range in '" + l + "'");
    }
    for (std::size_t k = from; k < to; ++k) {
      AccessRun x = lists_[id][k];
      x.path = path;
      seq->runs.push_back(x);
    }
  } else {
    fail("expected a run ('r', 'a', 't', 'L', 'l', 'x' or 'b'), got '" + l + "'");
  }
}

SeqTraceEntry Reader::entry(std::size_t k) {
  SeqTraceEntry e;
  std::istringstream h(next("a 'seq' line"));
  std::string word, mode, path_name;
  std::size_t index = 0, nruns = 0;
  if (!(h >> word >> index >> mode >> e.seq.threshold_cycles >> e.seq.slots >> nruns >> path_name) || word != "seq" ||
      index != k)
    fail("expected 'seq " + std::to_string(k) + " <mode> <threshold> <slots> <runs> <path>'");
  if (!parse_record_mode(mode, &e.seq.mode)) fail("unknown record mode '" + mode + "'");
  std::uint8_t path = 0;
  if (!parse_seq_path(path_name, &path)) fail("unknown load path '" + path_name + "'");
  while (h >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) fail("bad tag '" + word + "'");
    e.tags[word.substr(0, eq)] = word.substr(eq + 1);
  }
  while (e.seq.runs.size() < nruns) run_line(next("a run"), path, &e.seq);
  if (e.seq.runs.size() != nruns) fail("more runs than the 'seq' line announced");
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
