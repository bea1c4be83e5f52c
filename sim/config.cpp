#include "sim/config.hpp"

#include "common/policy.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace memhier::sim {

using nlohmann::json;

const char* index_kind_name(IndexKind k) {
  switch (k) {
    case IndexKind::modulo: return "modulo";
    case IndexKind::bits: return "bits";
    case IndexKind::xor_fold: return "xor";
    case IndexKind::table: return "table";
    case IndexKind::gf2: return "gf2";
  }
  return "?";
}

const std::vector<std::string>& known_paths() {
  static const std::vector<std::string> p = {"global_ca", "global_cg", "ldg", "texture", "constant", "shared"};
  return p;
}

std::uint64_t LevelSpec::capacity_bytes() const {
  std::uint64_t lines = 0;
  for (auto w : ways) lines += w;
  return lines * line_bytes;
}

namespace {

bool pow2(std::uint64_t x) { return x && !(x & (x - 1)); }
unsigned log2u(std::uint64_t x) {
  unsigned n = 0;
  while ((1ull << n) < x) ++n;
  return n;
}

// Errors carry the JSON location ("levels[1] (l2): ...") and are prefixed with the file later.
struct Err : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Err(where.empty() ? what : where + ": " + what);
}

void check_keys(const json& j, const std::string& where, const std::set<std::string>& allowed) {
  if (!j.is_object()) fail(where, "must be a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key()) && it.key() != "note")
      fail(where, "unknown key '" + it.key() + "'");
}

std::uint64_t get_u64(const json& j, const std::string& key, const std::string& where, bool required,
                      std::uint64_t dflt = 0) {
  if (!j.contains(key)) {
    if (required) fail(where, "missing '" + key + "'");
    return dflt;
  }
  const json& v = j[key];
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(where, "'" + key + "' must be a non-negative integer");
  return v.get<std::uint64_t>();
}

double get_num(const json& j, const std::string& key, const std::string& where, bool required, double dflt = 0) {
  if (!j.contains(key)) {
    if (required) fail(where, "missing '" + key + "'");
    return dflt;
  }
  if (!j[key].is_number() || j[key].get<double>() < 0) fail(where, "'" + key + "' must be a non-negative number");
  return j[key].get<double>();
}

std::string get_str(const json& j, const std::string& key, const std::string& where, bool required,
                    const std::string& dflt = "") {
  if (!j.contains(key)) {
    if (required) fail(where, "missing '" + key + "'");
    return dflt;
  }
  if (!j[key].is_string()) fail(where, "'" + key + "' must be a string");
  return j[key].get<std::string>();
}

ReplacementSpec parse_replacement(const json& j, const std::string& where) {
  ReplacementSpec r;
  std::string name;
  const json* obj = nullptr;
  if (j.is_string()) {
    name = j.get<std::string>();
  } else {
    check_keys(j, where, {"policy", "weights", "seed"});
    name = get_str(j, "policy", where, true);
    obj = &j;
  }
  r.policy = policy::canonical_policy_name(name);
  if (r.policy.empty())
    fail(where, "unknown replacement policy '" + name +
                    "' (use lru, fifo, plru, plru_tree, bit_plru, bit_plru_n, nru, srrip, qlru_hXY_mZ_rR_uU[_umo], "
                    "brrip or random; docs/methodology.md, section policy)");
  if (obj) {
    if (obj->contains("weights") && r.policy != "random") fail(where, "'weights' apply to the random policy only");
    if (obj->contains("seed") && policy::policy_is_deterministic(r.policy))
      fail(where, "'seed' applies to the policies that draw (random, brrip) only");
    if (obj->contains("weights")) {
      const json& w = (*obj)["weights"];
      if (!w.is_array() || w.empty()) fail(where, "'weights' must be a non-empty array of numbers");
      for (const auto& x : w) {
        if (!x.is_number() || x.get<double>() <= 0) fail(where, "every weight must be a positive number");
        r.weights.push_back(x.get<double>());
      }
    }
    r.seed = get_u64(*obj, "seed", where, false, 1);
  }
  return r;
}

// gf2 rows: numbers or strings ("0x1f80", decimal) so that 64-bit masks survive any JSON writer.
std::vector<std::uint64_t> parse_gf2_rows(const json& j, const std::string& where) {
  if (!j.contains("rows") || !j["rows"].is_array() || j["rows"].empty() || j["rows"].size() > 24)
    fail(where, "function 'gf2' needs 'rows': 1 to 24 address masks (set bit j = parity(addr & rows[j]))");
  std::vector<std::uint64_t> rows;
  for (const auto& r : j["rows"]) {
    std::uint64_t v = 0;
    if (r.is_number_unsigned()) {
      v = r.get<std::uint64_t>();
    } else if (r.is_string()) {
      const std::string t = r.get<std::string>();
      std::size_t used = 0;
      try {
        v = std::stoull(t, &used, 0);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != t.size()) fail(where, "gf2 row '" + t + "' is not a number (e.g. \"0x3f80\")");
    } else {
      fail(where, "gf2 rows must be non-negative integers or strings like \"0x3f80\"");
    }
    if (v == 0) fail(where, "a gf2 row is 0 (that set bit would never be set)");
    rows.push_back(v);
  }
  return rows;
}

// Rank of the rows over GF(2) (Gaussian elimination on 64-bit masks).
unsigned gf2_rank(std::vector<std::uint64_t> rows) {
  unsigned rank = 0;
  for (int bit = 63; bit >= 0; --bit) {
    const std::uint64_t m = 1ull << bit;
    auto pivot = std::find_if(rows.begin() + rank, rows.end(), [m](std::uint64_t r) { return r & m; });
    if (pivot == rows.end()) continue;
    std::swap(rows[rank], *pivot);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (i != rank && (rows[i] & m)) rows[i] ^= rows[rank];
    ++rank;
  }
  return rank;
}

IndexSpec parse_index(const json& j, const std::string& where) {
  IndexSpec ix;
  check_keys(j, where, {"function", "shift", "bits", "groups", "table", "rows"});
  const std::string f = get_str(j, "function", where, true);
  if (j.contains("shift")) {
    ix.shift = static_cast<unsigned>(get_u64(j, "shift", where, true));
    ix.shift_given = true;
    if (ix.shift > 63) fail(where, "'shift' must be below 64");
  }
  if (f == "modulo") {
    ix.kind = IndexKind::modulo;
  } else if (f == "bits") {
    ix.kind = IndexKind::bits;
    if (!j.contains("bits") || !j["bits"].is_array() || j["bits"].empty())
      fail(where, "function 'bits' needs 'bits': a non-empty list of address bit numbers");
    std::set<unsigned> seen;
    for (const auto& b : j["bits"]) {
      if (!b.is_number_unsigned() || b.get<unsigned>() > 63) fail(where, "'bits' must hold bit numbers 0..63");
      if (!seen.insert(b.get<unsigned>()).second) fail(where, "'bits' lists bit " + std::to_string(b.get<unsigned>()) + " twice");
      ix.bits.push_back(b.get<unsigned>());
    }
  } else if (f == "xor") {
    ix.kind = IndexKind::xor_fold;
    if (!j.contains("groups") || !j["groups"].is_array() || j["groups"].empty())
      fail(where, "function 'xor' needs 'groups': a list of {\"lo\": bit, \"width\": bits}");
    for (const auto& g : j["groups"]) {
      check_keys(g, where + ": groups[]", {"lo", "width"});
      IndexSpec::Group gr;
      gr.lo = static_cast<unsigned>(get_u64(g, "lo", where + ": groups[]", true));
      gr.width = static_cast<unsigned>(get_u64(g, "width", where + ": groups[]", true));
      if (gr.width == 0 || gr.lo + gr.width > 64) fail(where, "xor group must lie inside bits 0..63 and be at least 1 bit wide");
      ix.groups.push_back(gr);
    }
  } else if (f == "table") {
    ix.kind = IndexKind::table;
    if (!j.contains("table") || !j["table"].is_array() || j["table"].empty())
      fail(where, "function 'table' needs 'table': a non-empty list of set numbers");
    for (const auto& t : j["table"]) {
      if (!t.is_number_unsigned()) fail(where, "'table' must hold set numbers");
      ix.table.push_back(t.get<std::uint32_t>());
    }
  } else if (f == "gf2") {
    ix.kind = IndexKind::gf2;
    ix.rows = parse_gf2_rows(j, where);
  } else {
    fail(where, "unknown index function '" + f + "' (use modulo, bits, xor, table or gf2)");
  }
  return ix;
}

// "hit_latency_map": {"rows": [gf2 masks], "add_cycles": [2^rows extra cycles]}.
void parse_latency_map(const json& j, const std::string& where, LevelSpec& L) {
  if (!j.is_object()) fail(where, "must be an object with 'rows' and 'add_cycles'");
  check_keys(j, where, {"rows", "add_cycles"});
  L.latency_rows = parse_gf2_rows(j, where);
  if (L.latency_rows.size() > 8) fail(where, "at most 8 rows (256 latencies)");
  const json& a = j.contains("add_cycles") ? j["add_cycles"] : json();
  if (!a.is_array() || a.size() != (1ull << L.latency_rows.size()))
    fail(where, "'add_cycles' must list 2^rows = " + std::to_string(1ull << L.latency_rows.size()) + " numbers");
  for (const auto& x : a) {
    if (!x.is_number_unsigned() || x.get<std::uint64_t>() > 100000) fail(where, "'add_cycles' must hold integers 0..100000");
    L.latency_add.push_back(x.get<std::uint32_t>());
  }
}

LevelSpec parse_level(const json& j, const std::string& where0, bool tlb) {
  LevelSpec L;
  if (!j.is_object()) fail(where0, "must be a JSON object");
  L.name = get_str(j, "name", where0, true);
  const std::string where = where0 + " (" + L.name + ")";
  if (tlb)
    check_keys(j, where, {"name", "page_bytes", "entry_bytes", "entries", "sets", "ways", "index", "replacement",
                          "miss_penalty_cycles", "entry_scope"});
  else
    check_keys(j, where, {"name", "kind", "size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "index",
                          "replacement", "hit_latency_cycles", "launch_invalidates", "hit_latency_map"});
  const std::string kind = tlb ? "cache" : get_str(j, "kind", where, false, "cache");
  if (kind == "scratchpad") {
    L.scratchpad = true;
    for (const char* k : {"size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "index", "replacement"})
      if (j.contains(k)) fail(where, std::string("a scratchpad takes no '") + k + "'");
    L.hit_latency_cycles = static_cast<std::uint32_t>(get_u64(j, "hit_latency_cycles", where, true));
    return L;
  }
  if (kind != "cache") fail(where, "unknown kind '" + kind + "' (use cache or scratchpad)");

  L.line_bytes = get_u64(j, tlb ? "page_bytes" : "line_bytes", where, true);
  if (!pow2(L.line_bytes)) fail(where, std::string(tlb ? "'page_bytes'" : "'line_bytes'") + " must be a power of two");
  if (tlb) {  // an entry may cover several pages (entry_bytes, a power-of-two multiple of the page)
    L.page_bytes = L.line_bytes;
    L.line_bytes = get_u64(j, "entry_bytes", where, false, L.page_bytes);
    if (!pow2(L.line_bytes) || L.line_bytes < L.page_bytes)
      fail(where, "'entry_bytes' must be a power of two, at least 'page_bytes'");
  }
  L.sector_bytes = tlb ? L.line_bytes : get_u64(j, "sector_bytes", where, false, L.line_bytes);
  if (!pow2(L.sector_bytes) || L.sector_bytes > L.line_bytes || L.line_bytes / L.sector_bytes > 64)
    fail(where, "'sector_bytes' must be a power of two dividing line_bytes, at most 64 sectors per line");

  // Geometry: ways (one number or one per set), sets, and the capacity (bytes or TLB entries).
  if (!j.contains("ways")) fail(where, "missing 'ways' (a number, or a list with the ways of each set)");
  const std::uint64_t sets_given = get_u64(j, "sets", where, false, 0);
  const std::uint64_t cap_given = tlb ? get_u64(j, "entries", where, false, 0) * L.line_bytes
                                      : get_u64(j, "size_bytes", where, false, 0);
  const json& w = j["ways"];
  if (w.is_array()) {
    if (w.empty()) fail(where, "'ways' list is empty");
    for (const auto& x : w) {
      if (!x.is_number_unsigned() || x.get<std::uint64_t>() == 0 || x.get<std::uint64_t>() > 4096)
        fail(where, "every entry of 'ways' must be an integer 1..4096");
      L.ways.push_back(x.get<std::uint32_t>());
    }
    if (sets_given && sets_given != L.ways.size())
      fail(where, "'sets' is " + std::to_string(sets_given) + " but 'ways' lists " + std::to_string(L.ways.size()) + " sets");
  } else {
    if (!w.is_number_unsigned() || w.get<std::uint64_t>() == 0 || w.get<std::uint64_t>() > 4096)
      fail(where, "'ways' must be an integer 1..4096 or a list of them");
    const std::uint64_t ways = w.get<std::uint64_t>();
    std::uint64_t sets = sets_given;
    if (!sets) {
      if (!cap_given) fail(where, std::string("give 'sets' or ") + (tlb ? "'entries'" : "'size_bytes'"));
      if (cap_given % (ways * L.line_bytes))
        fail(where, "capacity " + std::to_string(cap_given) + " bytes is not a multiple of ways x line");
      sets = cap_given / (ways * L.line_bytes);
    }
    if (sets == 0 || sets > (1u << 24)) fail(where, "'sets' must be 1..16777216");
    L.ways.assign(sets, static_cast<std::uint32_t>(ways));
  }
  if (cap_given && cap_given != L.capacity_bytes())
    fail(where, "capacity " + std::to_string(cap_given) + " does not match sets x ways x " +
                    (tlb ? "page" : "line") + " = " + std::to_string(L.capacity_bytes()));

  L.index = j.contains("index") ? parse_index(j["index"], where + ": index") : IndexSpec{};
  if (!L.index.shift_given) L.index.shift = log2u(L.line_bytes);
  const std::size_t sets = L.ways.size();
  const std::string iw = where + ": index";
  switch (L.index.kind) {
    case IndexKind::modulo: break;
    case IndexKind::bits:
      if ((1ull << L.index.bits.size()) != sets)
        fail(iw, std::to_string(L.index.bits.size()) + " index bits choose among " +
                     std::to_string(1ull << L.index.bits.size()) + " sets, but the level has " + std::to_string(sets));
      break;
    case IndexKind::xor_fold:
      if (!pow2(sets)) fail(iw, "function 'xor' needs a power-of-two number of sets");
      for (const auto& g : L.index.groups)
        if ((1ull << g.width) > sets) fail(iw, "an xor group is wider than log2(sets) = " + std::to_string(log2u(sets)));
      break;
    case IndexKind::table:
      for (auto t : L.index.table)
        if (t >= sets) fail(iw, "table entry " + std::to_string(t) + " is not a set (the level has " + std::to_string(sets) + ")");
      break;
    case IndexKind::gf2:
      if ((1ull << L.index.rows.size()) != sets)
        fail(iw, std::to_string(L.index.rows.size()) + " gf2 rows choose among " +
                     std::to_string(1ull << L.index.rows.size()) + " sets, but the level has " + std::to_string(sets));
      for (auto r : L.index.rows)
        if (r & (L.line_bytes - 1))
          fail(iw, "a gf2 row uses address bits below the line (bit < " + std::to_string(log2u(L.line_bytes)) +
                       "): one line would span several sets");
      if (gf2_rank(L.index.rows) != L.index.rows.size())
        fail(iw, "the gf2 rows are linearly dependent: only " + std::to_string(1ull << gf2_rank(L.index.rows)) +
                     " of the " + std::to_string(sets) + " sets could be reached");
      break;
  }

  L.replacement = j.contains("replacement") ? parse_replacement(j["replacement"], where + ": replacement") : ReplacementSpec{};
  const std::uint32_t max_ways = *std::max_element(L.ways.begin(), L.ways.end());
  for (auto wy : L.ways) {
    const std::string problem = policy::policy_ways_problem(L.replacement.policy, wy);
    if (!problem.empty()) fail(where, problem);
  }
  if (!L.replacement.weights.empty() && L.replacement.weights.size() < max_ways)
    fail(where, "random replacement lists " + std::to_string(L.replacement.weights.size()) +
                    " weights for sets of up to " + std::to_string(max_ways) + " ways");
  if (tlb)
    L.miss_penalty_cycles = static_cast<std::uint32_t>(get_u64(j, "miss_penalty_cycles", where, true));
  else
    L.hit_latency_cycles = static_cast<std::uint32_t>(get_u64(j, "hit_latency_cycles", where, true));
  if (tlb) {
    const std::string scope = get_str(j, "entry_scope", where, false, "pages");
    if (scope != "pages" && scope != "virtual") fail(where, "'entry_scope' must be 'pages' or 'virtual'");
    L.entry_virtual = scope == "virtual";
  }
  if (j.contains("hit_latency_map")) parse_latency_map(j["hit_latency_map"], where + ": hit_latency_map", L);
  if (j.contains("launch_invalidates")) {
    if (!j["launch_invalidates"].is_boolean()) fail(where, "'launch_invalidates' must be true or false");
    L.launch_invalidates = j["launch_invalidates"].get<bool>();
  }
  return L;
}

int parse_cc(const std::string& s, int* minor) {
  auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= s.size()) return -1;
  try {
    *minor = std::stoi(s.substr(dot + 1));
    return std::stoi(s.substr(0, dot));
  } catch (...) {
    return -1;
  }
}

// The device figures the level answers take from the config (beyond_sm, l2_persisting).
void levels_device_figures(Config& c) {
  LevelsModel& m = c.beyond_sm;
  m.sm_clock_hz = static_cast<double>(c.device.sm_clock_khz) * 1e3;
  m.sm_count = c.device.sm_count;
  m.l2_bytes = c.device.l2_bytes;
  m.clock_fine_cycles = c.clock_fine_cycles;
  m.dram_latency_cycles = c.dram_latency_cycles;
  for (const auto& l : c.levels)
    if (l.name == "l2") m.l2_hit_latency_cycles = l.hit_latency_cycles;
  auto it = c.context.find("theoretical_dram_bytes_per_second");
  if (it != c.context.end()) m.dram_bytes_per_second = std::strtod(it->second.c_str(), nullptr);
}

// The persisting L2 set-aside (sim/levels.hpp PersistModel): the l2_persist family's answers.
void parse_l2_persisting(const json& j, Config& c) {
  try {
    c.beyond_sm.persist = parse_persist_model(j);
  } catch (const std::runtime_error& e) {
    fail("", e.what());
  }
  levels_device_figures(c);
  if (c.beyond_sm.l2_hit_latency_cycles <= 0)
    fail("l2_persisting", "a persisting set-aside needs a cache level named 'l2' (its hit latency)");
  if (c.beyond_sm.persist.max_bytes > c.device.l2_bytes)
    fail("l2_persisting", "'max_bytes' exceeds the device's l2_bytes");
}

// The levels beyond one SM (sim/levels.hpp) and the device figures they take from the config.
void parse_beyond_sm(const json& j, Config& c) {
  try {
    c.beyond_sm = parse_levels_model(j);
  } catch (const std::runtime_error& e) {
    fail("", e.what());
  }
  LevelsModel& m = c.beyond_sm;
  levels_device_figures(c);
  if ((m.host.l2_caches_host_lines || std::any_of(m.peers.begin(), m.peers.end(), [](const PeerModel& p) {
         return p.cached_in == "reader_l2";
       })) && m.l2_hit_latency_cycles <= 0)
    fail("beyond_sm", "an L2 that caches host or peer lines needs a cache level named 'l2' (its hit latency)");
}

Config parse(const json& root) {
  Config c;
  check_keys(root, "", {"format", "name", "description", "device", "context", "clock_overhead",
                        "dram_latency_cycles", "array_base", "latency_noise", "levels", "tlbs", "paths", "noise",
                        "sequence_start", "beyond_sm", "l2_persisting", "l2_slices", "l2_evsets",
                        "defaulted", "derived"});
  // A twin (memhier-infer --twin-config) lists the fields it filled by default or derived: notes for people.
  for (const char* k : {"defaulted", "derived"})
    if (root.contains(k) && (!root[k].is_array() || !std::all_of(root[k].begin(), root[k].end(), [](const json& x) { return x.is_string(); })))
      fail(k, "must be a list of strings");
  if (!root.contains("format")) fail("", std::string("missing 'format' (expected \"") + kConfigFormat + "\")");
  const std::string fmt = get_str(root, "format", "", true);
  if (fmt != kConfigFormat) fail("", "unsupported format '" + fmt + "' (this build reads " + kConfigFormat + ")");
  c.name = get_str(root, "name", "", true);
  if (c.name.empty() || c.name.find_first_of(" /:\t") != std::string::npos)
    fail("", "'name' must be a non-empty word without spaces, ':' or '/'");
  c.description = get_str(root, "description", "", false);

  if (!root.contains("device")) fail("", "missing 'device'");
  const json& d = root["device"];
  check_keys(d, "device", {"gpu_name", "compute_capability", "sm_count", "sm_clock_khz", "smem_per_sm_bytes",
                           "smem_per_block_optin_bytes", "l2_bytes", "global_mem_bytes", "const_bytes",
                           "vmm_granularity_bytes"});
  c.device.gpu_name = get_str(d, "gpu_name", "device", false, "Simulated GPU (" + c.name + ")");
  const std::string cc = get_str(d, "compute_capability", "device", true);
  c.device.cc_major = parse_cc(cc, &c.device.cc_minor);
  if (c.device.cc_major < 0) fail("device", "'compute_capability' must look like \"2.0\"");
  c.device.sm_count = static_cast<int>(get_u64(d, "sm_count", "device", true));
  if (c.device.sm_count < 1) fail("device", "'sm_count' must be at least 1");
  c.device.sm_clock_khz = get_u64(d, "sm_clock_khz", "device", true);
  if (c.device.sm_clock_khz == 0) fail("device", "'sm_clock_khz' must be positive");
  c.device.smem_per_sm_bytes = get_u64(d, "smem_per_sm_bytes", "device", true);
  c.device.smem_per_block_optin_bytes = get_u64(d, "smem_per_block_optin_bytes", "device", false, c.device.smem_per_sm_bytes);
  c.device.l2_bytes = get_u64(d, "l2_bytes", "device", true);
  c.device.global_mem_bytes = get_u64(d, "global_mem_bytes", "device", true);
  if (c.device.global_mem_bytes == 0) fail("device", "'global_mem_bytes' must be positive");
  c.device.const_bytes = get_u64(d, "const_bytes", "device", false, 65536);

  if (root.contains("context")) {
    const json& cx = root["context"];
    if (!cx.is_object()) fail("context", "must be an object of strings");
    for (auto it = cx.begin(); it != cx.end(); ++it) {
      if (it.value().is_string()) c.context[it.key()] = it.value().get<std::string>();
      else if (it.value().is_number()) c.context[it.key()] = it.value().dump();
      else fail("context", "value of '" + it.key() + "' must be a string or a number");
    }
  }
  if (!root.contains("clock_overhead")) fail("", "missing 'clock_overhead' ({\"pair_cycles\": .., \"fine_cycles\": ..})");
  const json& co = root["clock_overhead"];
  check_keys(co, "clock_overhead", {"pair_cycles", "fine_cycles"});
  c.clock_pair_cycles = get_num(co, "pair_cycles", "clock_overhead", true);
  c.clock_fine_cycles = get_num(co, "fine_cycles", "clock_overhead", true);
  c.dram_latency_cycles = static_cast<std::uint32_t>(get_u64(root, "dram_latency_cycles", "", true));
  c.array_base = get_u64(root, "array_base", "", false, 0);
  const std::string start = get_str(root, "sequence_start", "", false, "empty");
  if (start != "empty" && start != "as_left") fail("", "'sequence_start' must be \"empty\" or \"as_left\"");
  c.sequences_as_left = start == "as_left";
  if (root.contains("noise")) {
    const json& nz = root["noise"];
    if (!nz.is_object()) fail("noise", "must be an object (jitter_cycles, outlier_rate, outlier_cycles, seed)");
    check_keys(nz, "noise", {"jitter_cycles", "outlier_rate", "outlier_cycles", "seed"});
    c.noise.jitter_cycles = static_cast<std::uint32_t>(get_u64(nz, "jitter_cycles", "noise", false, 0));
    c.noise.outlier_rate = get_num(nz, "outlier_rate", "noise", false, 0);
    if (!(c.noise.outlier_rate >= 0 && c.noise.outlier_rate <= 1)) fail("noise", "'outlier_rate' must be in [0, 1]");
    c.noise.outlier_cycles = static_cast<std::uint32_t>(get_u64(nz, "outlier_cycles", "noise", false, 0));
    c.noise.seed = get_u64(nz, "seed", "noise", false, 1);
  }
  if (root.contains("latency_noise")) {
    const json& nz = root["latency_noise"];
    check_keys(nz, "latency_noise", {"sd_cycles", "seed"});
    c.noise_sd_cycles = get_num(nz, "sd_cycles", "latency_noise", true);
    if (!(c.noise_sd_cycles >= 0 && c.noise_sd_cycles <= 1000)) fail("latency_noise", "'sd_cycles' must be 0..1000");
    c.noise_seed = get_u64(nz, "seed", "latency_noise", false, 1);
  }

  std::set<std::string> names;
  if (!root.contains("levels") || !root["levels"].is_array() || root["levels"].empty())
    fail("", "missing 'levels' (a non-empty list of cache levels)");
  for (std::size_t i = 0; i < root["levels"].size(); ++i) {
    c.levels.push_back(parse_level(root["levels"][i], "levels[" + std::to_string(i) + "]", false));
    if (!names.insert(c.levels.back().name).second) fail("levels[" + std::to_string(i) + "]", "duplicate name '" + c.levels.back().name + "'");
  }
  if (root.contains("tlbs")) {
    if (!root["tlbs"].is_array()) fail("tlbs", "must be a list of TLB levels");
    for (std::size_t i = 0; i < root["tlbs"].size(); ++i) {
      c.tlbs.push_back(parse_level(root["tlbs"][i], "tlbs[" + std::to_string(i) + "]", true));
      if (!names.insert(c.tlbs.back().name).second) fail("tlbs[" + std::to_string(i) + "]", "duplicate name '" + c.tlbs.back().name + "'");
    }
  }

  std::uint64_t largest_page = 0;
  for (const auto& t : c.tlbs) largest_page = std::max(largest_page, t.page_bytes);
  c.device.vmm_granularity_bytes =
      get_u64(d, "vmm_granularity_bytes", "device", false, largest_page ? largest_page : 2ull << 20);
  if (!pow2(c.device.vmm_granularity_bytes) || c.device.vmm_granularity_bytes < largest_page)
    fail("device", "'vmm_granularity_bytes' must be a power of two, at least every TLB's page");
  if (!root.contains("paths") || !root["paths"].is_object() || root["paths"].empty())
    fail("", "missing 'paths' (an object: load path -> {\"levels\": [...]})");
  const std::uint64_t global_max = std::min<std::uint64_t>(c.device.global_mem_bytes / 2, 0xFFFFFFFFull * 4);
  for (auto it = root["paths"].begin(); it != root["paths"].end(); ++it) {
    const std::string pw = "paths." + it.key();
    const auto& kp = known_paths();
    if (std::find(kp.begin(), kp.end(), it.key()) == kp.end())
      fail(pw, "unknown load path (use global_ca, global_cg, ldg, texture, constant or shared)");
    const json& pj = it.value();
    check_keys(pj, pw, {"levels", "translated", "max_array_bytes"});
    PathSpec p;
    if (!pj.contains("levels") || !pj["levels"].is_array() || pj["levels"].empty())
      fail(pw, "missing 'levels' (a non-empty list of level names)");
    for (const auto& l : pj["levels"]) {
      if (!l.is_string()) fail(pw, "'levels' must list level names");
      const std::string ln = l.get<std::string>();
      auto lv = std::find_if(c.levels.begin(), c.levels.end(), [&](const LevelSpec& s) { return s.name == ln; });
      if (lv == c.levels.end()) fail(pw, "level '" + ln + "' is not defined in 'levels'");
      if (std::find(p.levels.begin(), p.levels.end(), ln) != p.levels.end()) fail(pw, "level '" + ln + "' listed twice");
      p.levels.push_back(ln);
    }
    if (pj.contains("translated")) {
      if (!pj["translated"].is_boolean()) fail(pw, "'translated' must be true or false");
      p.translated = pj["translated"].get<bool>();
    }
    if (p.translated && c.tlbs.empty()) fail(pw, "'translated' is true but the config defines no 'tlbs'");
    std::uint64_t dflt = global_max;
    if (it.key() == "shared") dflt = c.device.smem_per_block_optin_bytes;
    if (it.key() == "constant") dflt = c.device.const_bytes;
    p.max_array_bytes = get_u64(pj, "max_array_bytes", pw, false, dflt);
    if (p.max_array_bytes < 4) fail(pw, "'max_array_bytes' must be at least 4");
    c.paths[it.key()] = p;
  }
  if (root.contains("beyond_sm")) parse_beyond_sm(root["beyond_sm"], c);
  if (root.contains("l2_persisting")) parse_l2_persisting(root["l2_persisting"], c);
  if (root.contains("l2_slices")) {
    try {
      c.l2_slices = parse_l2_slices_model(root["l2_slices"], c.device.sm_count, static_cast<double>(c.device.sm_clock_khz) * 1e3);
    } catch (const std::runtime_error& e) {
      fail("", e.what());
    }
  }
  if (root.contains("l2_evsets")) {
    try {
      c.l2_evsets = parse_l2_evsets_model(root["l2_evsets"]);
    } catch (const std::runtime_error& e) {
      fail("", e.what());
    }
  }
  return c;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& origin) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers beyond a double (1e999)
    std::string what = e.what();
    throw std::runtime_error(origin + ": not valid JSON (" + what.substr(what.find(']') == std::string::npos ? 0 : what.find(']') + 2) + ")");
  }
  try {
    Config c = parse(root);
    c.source_path = origin;
    return c;
  } catch (const Err& e) {
    throw std::runtime_error(origin + ": " + e.what());
  } catch (const json::exception& e) {
    throw std::runtime_error(origin + ": " + e.what());
  }
}

Config load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the simulator config (no such file or not readable)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path);
}

}  // namespace memhier::sim
