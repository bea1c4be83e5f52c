#include "bench/backends/backend.hpp"

#include <algorithm>
#include <stdexcept>

namespace memhier {

const char* path_name(Path p) {
  switch (p) {
    case Path::global_ca: return "global_ca";
    case Path::global_cg: return "global_cg";
    case Path::ldg: return "ldg";
    case Path::texture: return "texture";
    case Path::constant: return "constant";
    case Path::shared: return "shared";
  }
  return "?";
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::classic: return "classic";
    case Mode::fine: return "fine";
    case Mode::count: return "count";
  }
  return "?";
}

bool parse_path(const std::string& s, Path* out) {
  for (Path p : {Path::global_ca, Path::global_cg, Path::ldg, Path::texture, Path::constant, Path::shared})
    if (s == path_name(p)) {
      *out = p;
      return true;
    }
  return false;
}

bool parse_mode(const std::string& s, Mode* out) {
  for (Mode m : {Mode::classic, Mode::fine, Mode::count})
    if (s == mode_name(m)) {
      *out = m;
      return true;
    }
  return false;
}

bool path_is_per_sm(Path p) { return p != Path::global_cg; }
bool path_uses_carveout(Path p) {
  return p == Path::global_ca || p == Path::ldg || p == Path::texture;
}

std::vector<ChaseResult> Backend::run_chase_batch(const std::vector<ChaseRequest>& rs) {
  std::vector<ChaseResult> out;
  out.reserve(rs.size());
  for (const auto& r : rs) out.push_back(run_chase(r));
  return out;
}

static_assert(static_cast<int>(Path::global_ca) == 0 && static_cast<int>(Path::global_cg) == 1 &&
                  static_cast<int>(Path::ldg) == 2 && static_cast<int>(Path::texture) == 3,
              "sequence path codes (common/sequence.hpp) are the first four Path values");

SequenceResult Backend::run_sequence(const SequenceRequest&) {
  SequenceResult r;
  r.error = "the " + name() + " backend does not run access sequences";
  return r;
}

LevelResult Backend::run_level(const LevelRequest& r) {
  LevelResult res;
  res.error = "the " + name() + " backend does not offer the " + r.family + " family";
  return res;
}

std::string LevelRequest::text(const std::string& key) const {
  auto it = params.find(key);
  return it == params.end() ? std::string() : it->second;
}

long long LevelRequest::num(const std::string& key, long long dflt) const {
  auto it = params.find(key);
  if (it == params.end()) return dflt;
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size())
    throw std::invalid_argument(family + ": parameter " + key + " is not an integer: '" + it->second + "'");
  return v;
}

StreamsResult Backend::run_streams(const StreamsRequest&) {
  StreamsResult o;
  o.error = "the " + name() + " backend does not run random-stream trials";
  return o;
}

double Backend::predicted_seconds(double accesses) const {
  const double hz = static_cast<double>(figures().sm_clock_khz) * 1e3;
  return hz > 0 ? accesses * kWorstCyclesPerAccess / hz : 0.0;
}

const char* wide_alloc_name(WideAlloc a) {
  switch (a) {
    case WideAlloc::malloc: return "malloc";
    case WideAlloc::vmm: return "vmm";
    case WideAlloc::vmm_gap: return "vmm_gap";
  }
  return "?";
}

bool parse_wide_alloc(const std::string& s, WideAlloc* out) {
  for (WideAlloc a : {WideAlloc::malloc, WideAlloc::vmm, WideAlloc::vmm_gap})
    if (s == wide_alloc_name(a)) {
      *out = a;
      return true;
    }
  return false;
}

std::vector<WideChaseResult> Backend::run_wide_batch(const std::vector<WideChaseRequest>& rs) {
  std::vector<WideChaseResult> out(rs.size());
  for (auto& o : out) o.error = "whole-memory chases are not offered by the " + name() + " backend";
  return out;
}

double Backend::hit_baseline(Path p) {
  auto it = baselines_.find(p);
  if (it != baselines_.end()) return it->second;
  ChaseRequest r;
  r.path = p;
  r.mode = Mode::fine;
  r.array_bytes = 1024;  // below the smallest first-level cache (H100 constant L1: ~2 KiB)
  r.chain = uniform_chain(1024, 32);
  r.iters = 1024;
  r.max_records = 1024;
  r.warm = true;
  r.carveout = path_uses_carveout(p) ? 0 : -1;
  ChaseResult res = run_chase(r);
  double b = 0;
  if (res.error.empty() && !res.latency.empty()) {
    std::vector<std::uint32_t> v = res.latency;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    b = v[v.size() / 2];
  }
  baselines_[p] = b;
  return b;
}

namespace {
std::unique_ptr<Backend>& slot() {
  static std::unique_ptr<Backend> b;
  return b;
}
}  // namespace

Backend& backend() {
  if (!slot()) throw std::logic_error("memhier: no backend selected");
  return *slot();
}
void set_backend(std::unique_ptr<Backend> b) { slot() = std::move(b); }
bool has_backend() { return static_cast<bool>(slot()); }

}  // namespace memhier
