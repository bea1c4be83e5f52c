#include "bench/cli/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/bench_json.hpp"

namespace memhier {
namespace {

// The name lives in a fixed buffer: the signal handler may only call async-signal-safe functions.
char g_temp[4096];
std::string g_target;

void on_signal(int sig) {
  if (g_temp[0]) unlink(g_temp);
  std::signal(sig, SIG_DFL);
  raise(sig);  // the exit status says which signal ended the run
}

}  // namespace

std::string begin_atomic_output(const std::string& target) {
  const std::string temp = target + ".incomplete-" + std::to_string(getpid());
  rearm_atomic_output(temp, target);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
  return temp;
}

void rearm_atomic_output(const std::string& temp, const std::string& target) {
  if (temp.size() >= sizeof g_temp) throw std::runtime_error("output file name too long: " + target);
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + target + ": " + std::strerror(errno));
  close(fd);
  std::memcpy(g_temp, temp.c_str(), temp.size() + 1);
  g_target = target;
}

void commit_atomic_output() {
  if (!g_temp[0]) return;
  if (std::rename(g_temp, g_target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    abandon_atomic_output();
    throw std::runtime_error("cannot rename the finished output onto " + g_target + ": " + why);
  }
  g_temp[0] = '\0';
}

void abandon_atomic_output() {
  if (g_temp[0]) unlink(g_temp);
  g_temp[0] = '\0';
}

std::string read_whole_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json parse_benchmark_json(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(json_without_nonfinite(text));  // Google Benchmark's NaN -> null
  } catch (const std::exception&) {
    throw std::runtime_error(what + " is not valid JSON");
  }
}

void replace_whole_file(const std::filesystem::path& target, const std::string& text) {
  const std::filesystem::path tmp = target.string() + ".incomplete-" + std::to_string(getpid());
  {
    std::ofstream o(tmp);
    o << text;
    if (!o.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot rename onto " + target.string());
  }
}

}  // namespace memhier
