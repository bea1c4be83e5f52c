// The simulated levels beyond one SM answering a benchmark (sim/levels.hpp): counters of each name
// from the model, times as bytes / rate or accesses x latency / clock, noise from the seed.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/policy.hpp"
#include "sim/levels.hpp"

namespace memhier::sim {

namespace {

constexpr double KiB = 1024, MiB = 1024 * KiB;

std::uint64_t mix(std::uint64_t x) { return policy::splitmix64_mix(x); }

// A uniform number in [0, 1) of this benchmark, call and salt: the same in every process.
double uniform(const LevelsModel& m, const LevelQuery& q, std::uint64_t call, std::uint64_t salt) {
  std::uint64_t h = mix(m.noise.seed);
  auto add = [&h](const std::string& s) {
    for (unsigned char c : s) h = mix(h ^ c);
    h = mix(h ^ 0xff);
  };
  add(q.family);
  for (const auto& [k, v] : q.params) add(k + "=" + v);
  h = mix(h ^ call);
  h = mix(h ^ salt);
  return policy::unit_interval(h);
}

// Mean jitter of `accesses` accesses of uniform jitter in [0, J]: J/2, moved by ~J/sqrt(accesses).
double latency_jitter(const LevelsModel& m, const LevelQuery& q, std::uint64_t call, std::uint64_t salt, double accesses) {
  const double J = m.noise.latency_jitter_cycles;
  if (J <= 0) return 0;
  return J * (0.5 + (uniform(m, q, call, salt) - 0.5) / std::sqrt(std::max(1.0, accesses)));
}

double rate_factor(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  return 1 - m.noise.rate_jitter * uniform(m, q, call, 7);
}

long long param(const LevelQuery& q, const std::string& k, long long dflt = -1) {
  auto it = q.params.find(k);
  if (it == q.params.end()) return dflt;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(it->second, &used);
    return used == it->second.size() ? v : dflt;
  } catch (...) {
    return dflt;
  }
}

std::string param_text(const LevelQuery& q, const std::string& k) {
  auto it = q.params.find(k);
  return it == q.params.end() ? "" : it->second;
}

double log2_over_2(long long c) { return std::log2(static_cast<double>(c) / 2); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

LevelAnswer dsmem_latency(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  LevelAnswer a;
  const DsmemModel& d = m.dsmem;
  const long long C = param(q, "cluster"), R = param(q, "rank");
  if (C < 2 || C > d.max_cluster || R < 0 || R >= C) {
    a.error = "cluster " + std::to_string(C) + " rank " + std::to_string(R) + " is not offered (max_cluster " +
              std::to_string(d.max_cluster) + ")";
    return a;
  }
  const double base = R == 0 ? d.local_latency_cycles
                             : d.remote_latency_cycles + d.rank_step_cycles * static_cast<double>(R - 1) +
                                   d.cluster_step_cycles * log2_over_2(C);
  const int clusters = std::max(1, m.sm_count / static_cast<int>(C));
  const double accesses = 16 * KiB / 32;
  std::vector<double> per;
  for (int k = 0; k < clusters; ++k)
    per.push_back(base + d.cluster_spread_cycles * uniform(m, q, 0, 100 + k) + latency_jitter(m, q, call, 1000 + k, accesses));
  const double med = median(per);
  a.counters = {{"latency_cycles", med},
                {"latency_min_cycles", *std::min_element(per.begin(), per.end())},
                {"latency_max_cycles", *std::max_element(per.begin(), per.end())},
                {"clusters", clusters},
                {"accesses", accesses},
                {"clock_overhead_cycles", m.clock_fine_cycles}};
  if (d.other_tpc_extra_cycles >= 0 && R > 0) {
    a.counters["latency_same_tpc_cycles"] = med - d.other_tpc_extra_cycles / 2;
    a.counters["latency_other_tpc_cycles"] = med + d.other_tpc_extra_cycles / 2;
  }
  a.seconds = accesses * med / m.sm_clock_hz;
  return a;
}

LevelAnswer dsmem_bandwidth(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  LevelAnswer a;
  const DsmemModel& d = m.dsmem;
  const long long C = param(q, "cluster"), remote = param(q, "remote"), T = param(q, "cta_size");
  if (C < 2 || C > d.max_cluster || (remote != 0 && remote != 1) || T < 32) {
    a.error = "dsmem bandwidth configuration not offered";
    return a;
  }
  const double warps = static_cast<double>(T) / 32;
  const double occupancy = d.half_rate_warps > 0 ? warps / (warps + d.half_rate_warps) : 1;
  double peak = remote ? d.remote_bytes_per_clock_per_sm * std::pow(1 - d.remote_cluster_loss, log2_over_2(C))
                       : d.local_bytes_per_clock_per_sm;
  if (q.params.at("op") == "write") peak *= d.write_over_read;
  const double bpc = peak * occupancy * rate_factor(m, q, call);
  const double bps = bpc * m.sm_count * m.sm_clock_hz;
  a.counters = {{"bytes_per_clock_per_sm", bpc},
                {"bytes_per_second", bps},
                {"pct_of_peak", bpc / (d.banks * 4.0) * 100},
                {"warps_per_sm", warps}};
  a.seconds = m.sm_count * 4 * MiB / bps;
  return a;
}

LevelAnswer dsmem(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  if (m.dsmem.max_cluster == 0) return {"the simulated device has no clusters (beyond_sm.dsmem)", {}, 0};
  const std::string op = param_text(q, "op");
  if (op == "latency") return dsmem_latency(m, q, call);
  if (op == "read" || op == "write") return dsmem_bandwidth(m, q, call);
  return {"unknown dsmem op '" + op + "'", {}, 0};
}

LevelAnswer copy_bandwidth(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  LevelAnswer a;
  auto it = m.async_copy.methods.find(param_text(q, "method"));
  const std::string src = param_text(q, "source");
  const long long chunk = param(q, "chunk"), K = param(q, "ctas_per_sm"), S = param(q, "stages");
  if (it == m.async_copy.methods.end() || (src != "l2" && src != "dram") || chunk <= 0 || K <= 0 || S <= 0) {
    a.error = "async_copy bandwidth configuration not offered";
    return a;
  }
  const CopyMethodModel& c = it->second;
  const double in_flight = static_cast<double>(chunk * K * S);
  const double f = c.full_rate_bytes_in_flight_per_sm > 0 ? std::min(1.0, in_flight / c.full_rate_bytes_in_flight_per_sm) : 1;
  const double bps = (src == "l2" ? c.l2_bytes_per_second : c.dram_bytes_per_second) * f * rate_factor(m, q, call);
  a.counters = {{"bytes_per_second", bps}, {"bytes_per_clock_per_sm", bps / (m.sm_count * m.sm_clock_hz)}};
  if (src == "dram" && m.dram_bytes_per_second > 0) a.counters["pct_of_peak"] = bps / m.dram_bytes_per_second * 100;
  const double bytes = src == "l2" ? m.l2_bytes / 4.0 : 8.0 * m.l2_bytes;
  a.seconds = std::max(bytes, 1.0) / bps;
  return a;
}

LevelAnswer copy_multicast(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  LevelAnswer a;
  const long long C = param(q, "cluster");
  if (!m.async_copy.multicast || C < 2 || C > m.dsmem.max_cluster) {
    a.error = "multicast not offered";
    return a;
  }
  const double source = m.async_copy.multicast_source_bytes_per_second * rate_factor(m, q, call);
  const double bps = source * static_cast<double>(C);
  a.counters = {{"bytes_per_second", bps},
                {"source_bytes_per_second", source},
                {"bytes_per_clock_per_sm", bps / (m.sm_count * m.sm_clock_hz)}};
  a.seconds = std::max(m.l2_bytes / 4.0, 1.0) / source;
  return a;
}

LevelAnswer copy_latency(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  LevelAnswer a;
  auto it = m.async_copy.methods.find(param_text(q, "method"));
  const long long chunk = param(q, "chunk");
  if (it == m.async_copy.methods.end() || chunk <= 0) {
    a.error = "async_copy latency configuration not offered";
    return a;
  }
  const double chunks = 256;
  const double lat = it->second.latency_cycles +
                     it->second.latency_cycles_per_kib * std::max(0.0, static_cast<double>(chunk) / KiB - 1) +
                     latency_jitter(m, q, call, 1, chunks);
  a.counters = {{"latency_cycles", lat}, {"clock_overhead_cycles", m.clock_fine_cycles}, {"accesses", chunks}};
  a.seconds = chunks * lat / m.sm_clock_hz;
  return a;
}

LevelAnswer async_copy(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  if (!m.async_copy.present) return {"the simulated device has no async copies (beyond_sm.async_copy)", {}, 0};
  const std::string op = param_text(q, "op");
  if (op == "bandwidth") return copy_bandwidth(m, q, call);
  if (op == "multicast") return copy_multicast(m, q, call);
  if (op == "latency") return copy_latency(m, q, call);
  return {"unknown async_copy op '" + op + "'", {}, 0};
}

// A P-chase over a link (host or peer): `cycles` per access over bytes / 128 accesses.
LevelAnswer link_latency(const LevelsModel& m, const LevelQuery& q, std::uint64_t call, double cycles, double bytes) {
  LevelAnswer a;
  const double accesses = std::max(1.0, bytes / 128);
  const double lat = cycles + latency_jitter(m, q, call, 2, accesses);
  a.counters = {{"latency_cycles", lat}, {"latency_ns", lat / m.sm_clock_hz * 1e9}, {"accesses", accesses},
                {"clock_overhead_cycles", m.clock_fine_cycles}};
  a.seconds = accesses * lat / m.sm_clock_hz;
  return a;
}

// SM-initiated streams over a link: the link x efficiency, reached from `full` CTAs per SM.
LevelAnswer link_stream(const LevelsModel& m, const LevelQuery& q, std::uint64_t call, double link, double eff, double full) {
  LevelAnswer a;
  const long long K = param(q, "ctas_per_sm");
  if (K <= 0) return {"ctas_per_sm missing", {}, 0};
  const double bps = link * eff * std::min(1.0, static_cast<double>(K) / std::max(full, 1e-9)) * rate_factor(m, q, call);
  a.counters = {{"bytes_per_second", bps}, {"pct_of_peak", bps / link * 100}};
  a.seconds = 256 * MiB / bps;
  return a;
}

// Copy engines over a link: one direction or both at once; a copy costs `setup_us` beside its bytes.
LevelAnswer link_copy(const LevelsModel& m, const LevelQuery& q, std::uint64_t call, double link, double eff,
                      double bidir_eff, double setup_us, bool bidir) {
  LevelAnswer a;
  const long long B = param(q, "bytes");
  if (B <= 0) return {"bytes missing", {}, 0};
  const double total = static_cast<double>(B) * (bidir ? 2 : 1);
  const double rate = (bidir ? 2 * link * bidir_eff : link * eff) * rate_factor(m, q, call);
  a.seconds = total / rate + setup_us * 1e-6;
  const double bps = total / a.seconds;
  a.counters = {{"bytes_per_second", bps}, {"pct_of_peak", bps / (link * (bidir ? 2 : 1)) * 100}, {"bytes", total}};
  return a;
}

LevelAnswer host(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  const HostModel& h = m.host;
  if (!h.present) return {"the simulated device has no host link (beyond_sm.host)", {}, 0};
  const std::string op = param_text(q, "op");
  if (op == "latency") {
    const double bytes = static_cast<double>(param(q, "bytes", 0));
    const bool hit = param(q, "warm", 0) == 1 && h.l2_caches_host_lines && bytes <= static_cast<double>(m.l2_bytes);
    return link_latency(m, q, call, hit ? m.l2_hit_latency_cycles : h.latency_cycles, bytes);
  }
  if (op == "read" || op == "write")
    return link_stream(m, q, call, h.link_bytes_per_second, op == "read" ? h.read_efficiency : h.write_efficiency,
                       h.full_rate_ctas_per_sm);
  if (op == "copy") {
    const std::string dir = param_text(q, "dir");
    if (dir != "h2d" && dir != "d2h" && dir != "bidir") return {"unknown copy direction '" + dir + "'", {}, 0};
    return link_copy(m, q, call, h.link_bytes_per_second, h.copy_efficiency, h.bidir_efficiency, h.copy_setup_us,
                     dir == "bidir");
  }
  if (op == "managed") {
    if (!h.managed.present) return {"the simulated device has no managed memory (beyond_sm.host.managed)", {}, 0};
    LevelAnswer a;
    const double f = rate_factor(m, q, call), bytes = static_cast<double>(param(q, "bytes", 0));
    a.counters = {{"fault_latency_cycles", h.managed.fault_latency_cycles + latency_jitter(m, q, call, 3, bytes / 65536)},
                  {"bytes_per_second", h.managed.migration_bytes_per_second * f},
                  {"prefetch_bytes_per_second", h.managed.prefetch_bytes_per_second * f}};
    a.seconds = std::max(bytes, 1.0) / (h.managed.migration_bytes_per_second * f);
    return a;
  }
  return {"unknown host op '" + op + "'", {}, 0};
}

double peer_latency_cycles(const LevelsModel& m, const PeerModel& p, const std::string& state) {
  if (state == "warm" && p.cached_in == "reader_l2") return m.l2_hit_latency_cycles;
  if ((state == "warm" || state == "owner") && p.cached_in == "owner_l2") return p.owner_hit_latency_cycles;
  return p.latency_cycles;
}

LevelAnswer peer(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  const long long D = param(q, "dst");
  auto it = std::find_if(m.peers.begin(), m.peers.end(), [D](const PeerModel& p) { return p.device == D; });
  if (it == m.peers.end()) return {"device " + std::to_string(D) + " is no peer of the simulated device", {}, 0};
  const PeerModel& p = *it;
  const std::string op = param_text(q, "op");
  if (op == "latency") {
    const std::string state = param_text(q, "state");
    if (state != "cold" && state != "warm" && state != "owner") return {"unknown state '" + state + "'", {}, 0};
    return link_latency(m, q, call, peer_latency_cycles(m, p, state), static_cast<double>(param(q, "bytes", 0)));
  }
  if (op == "read" || op == "write")
    return link_stream(m, q, call, p.link_bytes_per_second, op == "read" ? p.read_efficiency : p.write_efficiency,
                       p.full_rate_ctas_per_sm);
  if (op == "copy") {
    const std::string dir = param_text(q, "dir");
    if (dir != "uni" && dir != "bidir") return {"unknown copy direction '" + dir + "'", {}, 0};
    return link_copy(m, q, call, p.link_bytes_per_second, p.copy_efficiency, p.bidir_efficiency, p.copy_setup_us,
                     dir == "bidir");
  }
  return {"unknown peer op '" + op + "'", {}, 0};
}

// l2_persist/request:S/window:W/ratio:R[/policy:none]: the set-aside granted (S rounded up to the
// granularity, as the H100's driver grants it, at most max_bytes; under a persisting window at
// least the minimum) keeps efficiency x min(set-aside, R/100 x W) bytes of the window; without a
// window (policy:none) nothing persists and the co-runner evicts every line. The probe's samples
// (as the CUDA backend: up to 65 536 lines) hit at the L2's latency, miss at DRAM's.
LevelAnswer l2_persist(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  const PersistModel& p = m.persist;
  const long long S = param(q, "request"), W = param(q, "window"), R = param(q, "ratio", 100);
  const std::string policy = param_text(q, "policy").empty() ? "persisting" : param_text(q, "policy");
  if (policy != "persisting" && policy != "none")
    return {"policy must be persisting (an access policy window, the default) or none (no window: the control)", {}, 0};
  if (policy == "none" && R != 0) return {"policy:none marks no line persisting: its ratio must be 0", {}, 0};
  const bool window_on = policy == "persisting";
  if (S < 0 || static_cast<std::uint64_t>(S) > p.max_bytes)
    return {"request must lie in [0, " + std::to_string(p.max_bytes) + "] bytes (persistingL2CacheMaxSize)", {}, 0};
  if (W < 128 || static_cast<std::uint64_t>(W) > p.max_window_bytes || W % 16 != 0)
    return {"window must be a multiple of 16 bytes in [128, " + std::to_string(p.max_window_bytes) + "]", {}, 0};
  if (R < 0 || R > 100) return {"ratio must be a percentage in [0, 100]", {}, 0};
  std::uint64_t granted = static_cast<std::uint64_t>(S);
  if (p.granularity_bytes)
    granted = std::min(p.max_bytes, (granted + p.granularity_bytes - 1) / p.granularity_bytes * p.granularity_bytes);
  const double window = static_cast<double>(W), lines = std::floor(window / 128);
  const double samples = std::min(lines, 65536.0);
  const double set_aside = static_cast<double>(window_on && R > 0 ? std::max(granted, p.minimum_bytes) : granted);
  const double kept_bytes = window_on ? p.kept_efficiency * std::min(set_aside, static_cast<double>(R) / 100 * window) : 0;
  const double kept = std::round(samples * std::min(1.0, kept_bytes / window));
  const double hit = m.l2_hit_latency_cycles + latency_jitter(m, q, call, 11, std::max(kept, 1.0));
  const double miss = std::max(m.dram_latency_cycles, m.l2_hit_latency_cycles * 2) + latency_jitter(m, q, call, 12, 1);
  LevelAnswer a;
  auto& c = a.counters;
  c["requested_bytes"] = static_cast<double>(S);
  c["set_aside_bytes"] = static_cast<double>(granted);
  c["limit_before_bytes"] = 0;
  c["set_aside_after_bytes"] = static_cast<double>(granted);
  c["access_policy_window"] = window_on ? 1 : 0;
  c["window_bytes"] = window;
  c["hit_ratio"] = static_cast<double>(R) / 100;
  c["max_persisting_bytes"] = static_cast<double>(p.max_bytes);
  c["accesses"] = samples;
  c["probe_span_bytes"] = lines * 128;  // the samples are drawn from the whole window, as on the device
  c["misses"] = samples - kept;
  c["miss_rate"] = 1 - kept / samples;
  c["kept_fraction"] = kept / samples;
  c["kept_bytes"] = kept / samples * window;
  c["kept_bytes_min"] = c["kept_bytes"];
  c["kept_bytes_max"] = c["kept_bytes"];
  if (kept > 0) c["hit_latency_cycles"] = hit;
  if (kept < samples) c["miss_latency_cycles"] = miss;
  c["ref_hit_latency_cycles"] = m.l2_hit_latency_cycles;
  c["ref_miss_latency_cycles"] = miss;
  c["threshold_cycles"] = (m.l2_hit_latency_cycles + miss) / 2;
  c["separated"] = 1;
  c["corunner_bytes"] = 8.0 * static_cast<double>(m.l2_bytes);
  c["trials"] = 3;
  // flush, warm, co-runner at the DRAM rate (1 TB/s without one), the probe's serial accesses
  const double rate = m.dram_bytes_per_second > 0 ? m.dram_bytes_per_second : 1e12;
  const double per_sm = std::ceil(samples / std::max(1, m.sm_count));
  a.seconds = 3 * ((16.0 * static_cast<double>(m.l2_bytes) + window) / rate +
                   per_sm * (kept / samples * hit + (1 - kept / samples) * miss) / m.sm_clock_hz);
  return a;
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(15);
  s << v;
  return s.str();
}

}  // namespace

std::map<std::string, std::string> levels_context(const LevelsModel& m) {
  std::map<std::string, std::string> c;
  if (m.persist.present) {
    c["l2_persisting_max_bytes"] = std::to_string(m.persist.max_bytes);
    c["access_policy_max_window_bytes"] = std::to_string(m.persist.max_window_bytes);
  }
  if (!m.present) return c;
  c["max_cluster_size"] = std::to_string(m.dsmem.max_cluster);
  if (m.host.present) {
    c["host_link"] = m.host.link;
    c["host_link_bytes_per_second"] = number(m.host.link_bytes_per_second);
    c["host_link_source"] = "sim config";
  }
  std::string devices;
  for (const auto& p : m.peers) devices += (devices.empty() ? "" : ",") + std::to_string(p.device);
  c["peer_devices"] = devices;
  if (!m.peers.empty()) {  // the first peer's link (the families' pct_of_peak uses each peer's own)
    c["peer_link"] = m.peers.front().link;
    c["peer_link_bytes_per_second"] = number(m.peers.front().link_bytes_per_second);
    c["peer_link_source"] = "sim config";
  }
  return c;
}

LevelAnswer answer_level(const LevelsModel& m, const LevelQuery& q, std::uint64_t call) {
  if (q.family == "l2_persist") {
    if (!m.persist.present) return {"the simulated device has no persisting L2 set-aside (no l2_persisting in its config)", {}, 0};
    return l2_persist(m, q, call);
  }
  if (!m.present) return {"the simulated device models no levels beyond one SM (no beyond_sm in its config)", {}, 0};
  if (q.family == "dsmem") return dsmem(m, q, call);
  if (q.family == "async_copy") return async_copy(m, q, call);
  if (q.family == "host") return host(m, q, call);
  if (q.family == "peer") return peer(m, q, call);
  return {"unknown level family '" + q.family + "'", {}, 0};
}

}  // namespace memhier::sim
