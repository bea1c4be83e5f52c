#include "common/archive_files.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#ifdef MEMHIER_HAVE_ZLIB
#include <zlib.h>
#endif

namespace fs = std::filesystem;

namespace memhier {

namespace {

constexpr const char* kPackMagic = "memhier-pack 2";
constexpr const char* kPackMagicV1 = "memhier-pack 1";  // `file` entries only
constexpr const char* kData = "\ndata\n";

// A `rows` entry's body with the data rows' first column (first, first + step, ...) put back.
std::string restore_rows(const std::string& body, long long first, long long step, std::size_t rows,
                         const std::string& label) {
  const std::size_t i = body.find(kData);
  if (i == std::string::npos) throw std::runtime_error(label + ": a rows entry without a data line");
  std::size_t pos = i + 6;
  std::string out = body.substr(0, pos);
  out.reserve(body.size() + rows * 8);
  for (std::size_t k = 0; k < rows; ++k) {
    const std::size_t eol = body.find('\n', pos);
    if (eol == std::string::npos)
      throw std::runtime_error(label + ": a rows entry with fewer than " + std::to_string(rows) + " rows");
    out += std::to_string(first + static_cast<long long>(k) * step);
    out += ' ';
    out.append(body, pos, eol + 1 - pos);
    pos = eol + 1;
  }
  out.append(body, pos, std::string::npos);
  return out;
}

// A trace whose data rows begin with integers first, first + step, ... without that column
// (restored exactly by restore_rows), else nullopt.
struct Stripped {
  long long first = 0, step = 0;
  std::size_t rows = 0;
  std::string body;
};
std::optional<Stripped> strip_rows(const std::string& body) {
  const std::size_t i = body.find(kData);
  if (i == std::string::npos) return std::nullopt;
  std::size_t pos = i + 6;
  Stripped s;
  s.body = body.substr(0, pos);
  std::vector<long long> idx;
  while (true) {
    const std::size_t eol = body.find('\n', pos);
    if (eol == std::string::npos) break;
    const std::size_t sp = body.find(' ', pos);
    if (sp == std::string::npos || sp >= eol || sp == pos) break;
    std::size_t d = pos + (body[pos] == '-' ? 1 : 0);
    if (d == sp || body.find_first_not_of("0123456789", d) < sp || sp - d > 18) break;
    idx.push_back(std::stoll(body.substr(pos, sp - pos)));
    s.body.append(body, sp + 1, eol - sp);
    pos = eol + 1;
  }
  if (idx.size() < 3) return std::nullopt;
  s.first = idx[0], s.step = idx[1] - idx[0], s.rows = idx.size();
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] != s.first + static_cast<long long>(k) * s.step) return std::nullopt;
  s.body.append(body, pos, std::string::npos);
  if (restore_rows(s.body, s.first, s.step, s.rows, "pack") != body) return std::nullopt;  // "+5", "007"
  return s;
}

bool is_gzip(const std::string& head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

std::string read_plain(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open (missing file or no permission)");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw std::runtime_error(path + ": read failed");
  return s.str();
}

#ifdef MEMHIER_HAVE_ZLIB
std::string gunzip(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) throw std::runtime_error(path + ": cannot open");
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(g, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  int err = 0;
  const char* msg = gzerror(g, &err);
  const std::string why = n < 0 || (err != Z_OK && err != Z_STREAM_END) ? std::string(msg ? msg : "error") : "";
  gzclose(g);
  if (!why.empty()) throw std::runtime_error(path + ": corrupt or truncated gzip file (" + why + ")");
  return out;
}
#else
// Without zlib: the gzip command (in every Debian base system). The path is quoted for the shell.
std::string gunzip(const std::string& path) {
  std::string q = "'";
  for (char c : path) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  q += "'";
  FILE* p = popen(("gzip -dc -- " + q + " 2>/dev/null").c_str(), "r");
  if (!p) throw std::runtime_error(path + ": built without zlib and cannot run gzip");
  std::string out;
  char buf[1 << 16];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0)
    throw std::runtime_error(path + ": cannot decompress (built without zlib; `gzip -dc` failed: corrupt file or no gzip)");
  return out;
}
#endif

}  // namespace

bool have_zlib() {
#ifdef MEMHIER_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

std::string read_file_maybe_gz(const std::string& path) {
  std::string head;
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open (missing file or no permission)");
    char h[2] = {0, 0};
    f.read(h, 2);
    head.assign(h, static_cast<std::size_t>(f.gcount()));
  }
  return is_gzip(head) ? gunzip(path) : read_plain(path);
}

std::string existing_maybe_gz(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) return path;
  if (fs::exists(path + ".gz", ec)) return path + ".gz";
  return "";
}

std::map<std::string, std::string> parse_pack(const std::string& text, const std::string& label) {
  std::map<std::string, std::string> files;
  std::size_t pos = text.find('\n');
  const bool v2 = pos != std::string::npos && text.compare(0, pos, kPackMagic) == 0;
  if (pos == std::string::npos || (!v2 && text.compare(0, pos, kPackMagicV1) != 0))
    throw std::runtime_error(label + ": not a memhier pack (first line is not '" + kPackMagic + "' or '" + kPackMagicV1 + "')");
  ++pos;
  while (true) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) throw std::runtime_error(label + ": truncated pack (no end line)");
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line == "end") break;
    // file <bytes> <name>, or (version 2) rows <bytes> <first> <step> <rows> <name>
    std::istringstream in(line);
    std::string word, name;
    std::size_t bytes = 0, rows = 0;
    long long first = 0, step = 0;
    const bool ok = (in >> word >> bytes) && (word == "file" || (v2 && word == "rows" && (in >> first >> step >> rows))) &&
                    (in >> std::ws) && std::getline(in, name) && !name.empty() && name.find('/') == std::string::npos;
    if (!ok) throw std::runtime_error(label + ": bad pack entry line '" + line + "'");
    if (pos + bytes > text.size()) throw std::runtime_error(label + ": truncated pack (entry " + name + ")");
    files[name] = word == "rows" ? restore_rows(text.substr(pos, bytes), first, step, rows, label + " (entry " + name + ")")
                                 : text.substr(pos, bytes);
    pos += bytes;
  }
  return files;
}

std::string make_pack(const std::map<std::string, std::string>& files) {
  std::string out = std::string(kPackMagic) + "\n";
  for (const auto& [name, body] : files) {
    if (const auto s = strip_rows(body))
      out += "rows " + std::to_string(s->body.size()) + " " + std::to_string(s->first) + " " + std::to_string(s->step) + " " +
             std::to_string(s->rows) + " " + name + "\n" + s->body;
    else
      out += "file " + std::to_string(body.size()) + " " + name + "\n" + body;
  }
  return out + "end\n";
}

std::string pack_for_dir(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return existing_maybe_gz(d + ".pack");
}

std::optional<std::string> read_archived_file(const std::string& dir, const std::string& name) {
  const std::string plain = existing_maybe_gz(dir + "/" + name);
  if (!plain.empty()) return read_file_maybe_gz(plain);
  const std::string pack = pack_for_dir(dir);
  if (pack.empty()) return std::nullopt;
  static std::mutex m;
  static std::map<std::string, std::map<std::string, std::string>> cache;
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(pack);
  if (it == cache.end()) it = cache.emplace(pack, parse_pack(read_file_maybe_gz(pack), pack)).first;
  auto f = it->second.find(name);
  if (f == it->second.end()) return std::nullopt;
  return f->second;
}

std::vector<std::string> expand_archive_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    const std::string bench = existing_maybe_gz(p + "/bench.json");
    if (bench.empty()) throw std::runtime_error(p + ": a directory without bench.json (not a memhier archive)");
    out.push_back(bench);
    for (int r = 1;; ++r) {
      const std::string refine = existing_maybe_gz(p + "/refine-" + std::to_string(r) + ".json");
      if (refine.empty()) break;
      out.push_back(refine);
    }
  }
  return out;
}

}  // namespace memhier
