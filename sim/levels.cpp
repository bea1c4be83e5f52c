// The `beyond_sm` block of a sim config: parsing and checks. The answers are in levels_answer.cpp.
#include "sim/levels.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace memhier::sim {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error("beyond_sm" + (where.empty() ? std::string() : "." + where) + ": " + what);
}

void keys(const json& j, const std::string& where, const std::set<std::string>& allowed) {
  if (!j.is_object()) fail(where, "must be a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key()) && it.key() != "note") fail(where, "unknown key '" + it.key() + "'");
}

double num(const json& j, const std::string& k, const std::string& where, bool required, double dflt = 0) {
  if (!j.contains(k)) {
    if (required) fail(where, "missing '" + k + "'");
    return dflt;
  }
  if (!j[k].is_number() || !std::isfinite(j[k].get<double>()) || j[k].get<double>() < 0)
    fail(where, "'" + k + "' must be a non-negative number");
  return j[k].get<double>();
}

double positive(const json& j, const std::string& k, const std::string& where) {
  const double v = num(j, k, where, true);
  if (v <= 0) fail(where, "'" + k + "' must be positive");
  return v;
}

double fraction(const json& j, const std::string& k, const std::string& where, double dflt) {
  const double v = num(j, k, where, false, dflt);
  if (v <= 0 || v > 1) fail(where, "'" + k + "' must be in (0, 1]");
  return v;
}

bool flag(const json& j, const std::string& k, const std::string& where, bool dflt) {
  if (!j.contains(k)) return dflt;
  if (!j[k].is_boolean()) fail(where, "'" + k + "' must be true or false");
  return j[k].get<bool>();
}

std::string text(const json& j, const std::string& k, const std::string& where, const std::string& dflt) {
  if (!j.contains(k)) return dflt;
  if (!j[k].is_string()) fail(where, "'" + k + "' must be a string");
  return j[k].get<std::string>();
}

DsmemModel parse_dsmem(const json& j) {
  const std::string w = "dsmem";
  keys(j, w, {"max_cluster", "local_latency_cycles", "remote_latency_cycles", "rank_step_cycles",
              "cluster_step_cycles", "cluster_spread_cycles", "other_tpc_extra_cycles",
              "local_bytes_per_clock_per_sm", "remote_bytes_per_clock_per_sm", "half_rate_warps",
              "write_over_read", "remote_cluster_loss", "banks"});
  DsmemModel d;
  d.max_cluster = static_cast<int>(num(j, "max_cluster", w, true));
  if (d.max_cluster != 0 && d.max_cluster != 8 && d.max_cluster != 16 && d.max_cluster != 2 && d.max_cluster != 4)
    fail(w, "'max_cluster' must be 0, 2, 4, 8 or 16");
  d.local_latency_cycles = positive(j, "local_latency_cycles", w);
  d.remote_latency_cycles = positive(j, "remote_latency_cycles", w);
  d.rank_step_cycles = num(j, "rank_step_cycles", w, false);
  d.cluster_step_cycles = num(j, "cluster_step_cycles", w, false);
  d.cluster_spread_cycles = num(j, "cluster_spread_cycles", w, false);
  d.other_tpc_extra_cycles = j.contains("other_tpc_extra_cycles") ? num(j, "other_tpc_extra_cycles", w, true) : -1;
  d.local_bytes_per_clock_per_sm = positive(j, "local_bytes_per_clock_per_sm", w);
  d.remote_bytes_per_clock_per_sm = positive(j, "remote_bytes_per_clock_per_sm", w);
  d.half_rate_warps = num(j, "half_rate_warps", w, false);
  d.write_over_read = num(j, "write_over_read", w, false, 1);
  d.remote_cluster_loss = num(j, "remote_cluster_loss", w, false);
  if (d.remote_cluster_loss >= 1) fail(w, "'remote_cluster_loss' must be below 1");
  d.banks = static_cast<int>(num(j, "banks", w, false, 32));
  if (d.banks < 1) fail(w, "'banks' must be at least 1");
  return d;
}

CopyMethodModel parse_method(const json& j, const std::string& w) {
  keys(j, w, {"l2_bytes_per_second", "dram_bytes_per_second", "full_rate_bytes_in_flight_per_sm", "latency_cycles",
              "latency_cycles_per_kib"});
  CopyMethodModel m;
  m.l2_bytes_per_second = positive(j, "l2_bytes_per_second", w);
  m.dram_bytes_per_second = positive(j, "dram_bytes_per_second", w);
  m.full_rate_bytes_in_flight_per_sm = num(j, "full_rate_bytes_in_flight_per_sm", w, false);
  m.latency_cycles = positive(j, "latency_cycles", w);
  m.latency_cycles_per_kib = num(j, "latency_cycles_per_kib", w, false);
  return m;
}

AsyncCopyModel parse_async(const json& j) {
  const std::string w = "async_copy";
  keys(j, w, {"methods", "multicast", "multicast_source_bytes_per_second"});
  AsyncCopyModel a;
  a.present = true;
  if (!j.contains("methods") || !j["methods"].is_object()) fail(w, "missing 'methods' (plain, cp_async, bulk, tensor)");
  for (auto it = j["methods"].begin(); it != j["methods"].end(); ++it) {
    const std::string& m = it.key();
    if (m != "plain" && m != "cp_async" && m != "bulk" && m != "tensor")
      fail(w + ".methods", "unknown method '" + m + "' (plain, cp_async, bulk or tensor)");
    a.methods[m] = parse_method(it.value(), w + ".methods." + m);
  }
  if (!a.methods.count("plain")) fail(w + ".methods", "missing 'plain' (the reference every device has)");
  if (a.methods.count("tensor") && !a.methods.count("bulk")) fail(w + ".methods", "'tensor' needs 'bulk'");
  a.multicast = flag(j, "multicast", w, false);
  if (a.multicast && !a.methods.count("bulk")) fail(w, "'multicast' needs the 'bulk' method");
  if (a.multicast) a.multicast_source_bytes_per_second = positive(j, "multicast_source_bytes_per_second", w);
  return a;
}

void parse_efficiencies(const json& j, const std::string& w, double* r, double* wr, double* c, double* b) {
  *r = fraction(j, "read_efficiency", w, 1);
  *wr = fraction(j, "write_efficiency", w, 1);
  *c = fraction(j, "copy_efficiency", w, 1);
  *b = fraction(j, "bidir_efficiency", w, 1);
}

HostModel parse_host(const json& j) {
  const std::string w = "host";
  keys(j, w, {"link", "link_bytes_per_second", "latency_cycles", "l2_caches_host_lines", "host_bytes",
              "read_efficiency", "write_efficiency", "copy_efficiency", "bidir_efficiency", "full_rate_ctas_per_sm",
              "copy_setup_us", "managed"});
  HostModel h;
  h.present = true;
  h.link = text(j, "link", w, "PCIe");
  h.link_bytes_per_second = positive(j, "link_bytes_per_second", w);
  h.latency_cycles = positive(j, "latency_cycles", w);
  h.l2_caches_host_lines = flag(j, "l2_caches_host_lines", w, false);
  h.host_bytes = static_cast<std::uint64_t>(positive(j, "host_bytes", w));
  parse_efficiencies(j, w, &h.read_efficiency, &h.write_efficiency, &h.copy_efficiency, &h.bidir_efficiency);
  h.full_rate_ctas_per_sm = num(j, "full_rate_ctas_per_sm", w, false, 1);
  h.copy_setup_us = num(j, "copy_setup_us", w, false);
  if (j.contains("managed")) {
    const json& m = j["managed"];
    keys(m, w + ".managed", {"fault_latency_cycles", "migration_bytes_per_second", "prefetch_bytes_per_second"});
    h.managed.present = true;
    h.managed.fault_latency_cycles = positive(m, "fault_latency_cycles", w + ".managed");
    h.managed.migration_bytes_per_second = positive(m, "migration_bytes_per_second", w + ".managed");
    h.managed.prefetch_bytes_per_second = positive(m, "prefetch_bytes_per_second", w + ".managed");
  }
  return h;
}

PeerModel parse_peer(const json& j, const std::string& w) {
  keys(j, w, {"device", "link", "link_bytes_per_second", "latency_cycles", "owner_hit_latency_cycles", "cached_in",
              "read_efficiency", "write_efficiency", "copy_efficiency", "bidir_efficiency", "full_rate_ctas_per_sm",
              "copy_setup_us"});
  PeerModel p;
  p.device = static_cast<int>(num(j, "device", w, true));
  p.link = text(j, "link", w, "NVLink");
  p.link_bytes_per_second = positive(j, "link_bytes_per_second", w);
  p.latency_cycles = positive(j, "latency_cycles", w);
  p.cached_in = text(j, "cached_in", w, "none");
  if (p.cached_in != "reader_l2" && p.cached_in != "owner_l2" && p.cached_in != "none")
    fail(w, "'cached_in' must be reader_l2, owner_l2 or none");
  p.owner_hit_latency_cycles = p.cached_in == "owner_l2" ? positive(j, "owner_hit_latency_cycles", w)
                                                         : num(j, "owner_hit_latency_cycles", w, false);
  if (p.cached_in == "owner_l2" && p.owner_hit_latency_cycles >= p.latency_cycles)
    fail(w, "'owner_hit_latency_cycles' must be below 'latency_cycles'");
  parse_efficiencies(j, w, &p.read_efficiency, &p.write_efficiency, &p.copy_efficiency, &p.bidir_efficiency);
  p.full_rate_ctas_per_sm = num(j, "full_rate_ctas_per_sm", w, false, 1);
  p.copy_setup_us = num(j, "copy_setup_us", w, false);
  return p;
}

}  // namespace

PersistModel parse_persist_model(const json& j) {
  auto pfail = [](const std::string& what) -> void { throw std::runtime_error("l2_persisting: " + what); };
  if (!j.is_object()) pfail("must be a JSON object");
  static const std::set<std::string> allowed = {"max_bytes", "max_window_bytes", "set_aside_granularity_bytes",
                                                "minimum_set_aside_bytes", "kept_efficiency", "note"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) pfail("unknown key '" + it.key() + "'");
  auto number = [&](const std::string& k, bool required, double dflt) {
    if (!j.contains(k)) {
      if (required) pfail("missing '" + k + "'");
      return dflt;
    }
    if (!j[k].is_number() || !std::isfinite(j[k].get<double>()) || j[k].get<double>() < 0)
      pfail("'" + k + "' must be a non-negative number");
    return j[k].get<double>();
  };
  PersistModel p;
  p.present = true;
  p.max_bytes = static_cast<std::uint64_t>(number("max_bytes", true, 0));
  if (p.max_bytes == 0) pfail("'max_bytes' must be positive (a device without a set-aside has no l2_persisting)");
  p.max_window_bytes = static_cast<std::uint64_t>(number("max_window_bytes", false, 2.0 * static_cast<double>(p.max_bytes)));
  if (p.max_window_bytes < 128) pfail("'max_window_bytes' must be at least one line (128 bytes)");
  p.granularity_bytes = static_cast<std::uint64_t>(number("set_aside_granularity_bytes", false, 0));
  p.minimum_bytes = static_cast<std::uint64_t>(number("minimum_set_aside_bytes", false, 0));
  if (p.minimum_bytes > p.max_bytes) pfail("'minimum_set_aside_bytes' exceeds 'max_bytes'");
  p.kept_efficiency = number("kept_efficiency", false, 1);
  if (p.kept_efficiency > 1) pfail("'kept_efficiency' must be in [0, 1]");
  return p;
}

LevelsModel parse_levels_model(const json& j) {
  keys(j, "", {"dsmem", "async_copy", "host", "peers", "noise"});
  LevelsModel m;
  m.present = true;
  if (j.contains("dsmem")) m.dsmem = parse_dsmem(j["dsmem"]);
  if (j.contains("async_copy")) m.async_copy = parse_async(j["async_copy"]);
  if (j.contains("host")) m.host = parse_host(j["host"]);
  if (j.contains("peers")) {
    if (!j["peers"].is_array()) fail("peers", "must be a list of peer devices");
    std::set<int> seen;
    for (std::size_t i = 0; i < j["peers"].size(); ++i) {
      m.peers.push_back(parse_peer(j["peers"][i], "peers[" + std::to_string(i) + "]"));
      if (!seen.insert(m.peers.back().device).second) fail("peers[" + std::to_string(i) + "]", "device listed twice");
    }
  }
  if (j.contains("noise")) {
    keys(j["noise"], "noise", {"latency_jitter_cycles", "rate_jitter", "seed"});
    m.noise.latency_jitter_cycles = num(j["noise"], "latency_jitter_cycles", "noise", false);
    m.noise.rate_jitter = num(j["noise"], "rate_jitter", "noise", false);
    if (m.noise.rate_jitter >= 1) fail("noise", "'rate_jitter' must be below 1");
    m.noise.seed = static_cast<std::uint64_t>(num(j["noise"], "seed", "noise", false, 1));
  }
  return m;
}

}  // namespace memhier::sim
