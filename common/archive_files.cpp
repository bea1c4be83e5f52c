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

constexpr const char* kPackMagic = "memhier-pack 1";

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
  if (pos == std::string::npos || text.compare(0, pos, kPackMagic) != 0)
    throw std::runtime_error(label + ": not a memhier pack (first line is not '" + kPackMagic + "')");
  ++pos;
  while (true) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) throw std::runtime_error(label + ": truncated pack (no end line)");
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line == "end") break;
    // file <bytes> <name>
    std::istringstream in(line);
    std::string word, name;
    std::size_t bytes = 0;
    if (!(in >> word >> bytes) || word != "file" || !(in >> std::ws) || !std::getline(in, name) || name.empty() ||
        name.find('/') != std::string::npos)
      throw std::runtime_error(label + ": bad pack entry line '" + line + "'");
    if (pos + bytes > text.size()) throw std::runtime_error(label + ": truncated pack (entry " + name + ")");
    files[name] = text.substr(pos, bytes);
    pos += bytes;
  }
  return files;
}

std::string make_pack(const std::map<std::string, std::string>& files) {
  std::string out = std::string(kPackMagic) + "\n";
  for (const auto& [name, body] : files) out += "file " + std::to_string(body.size()) + " " + name + "\n" + body;
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
