#include "analysis/report/gpgpusim.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "analysis/report/json_numbers.hpp"
#include "analysis/report/topology_schema.hpp"

namespace memhier::analysis {

using nlohmann::json;

namespace {

std::uint64_t u64(double x) { return static_cast<std::uint64_t>(std::llround(x)); }
std::string str(double x) {
  std::ostringstream o;
  if (std::fabs(x) < 1e15 && x == std::floor(x)) o << static_cast<long long>(x);
  else o << x;
  return o.str();
}
// The sector: GPGPU-Sim's sector caches have 32-byte sectors in 128-byte lines, fixed (SECTOR_SIZE).
std::string sector_note(std::optional<double> sector, std::uint64_t line) {
  if (!sector) return "sector not determined: " + std::string(line == 128 ? "S (32-byte sectors)" : "N");
  if (*sector == 32 && line == 128) return "sector 32 bytes: S";
  return "sector (fill granularity) measured " + str(*sector) + " bytes; GPGPU-Sim's sectors are 32 bytes, fixed: " +
         (line == 128 ? "S" : "N (a sector cache needs 128-byte lines)");
}
std::string n(std::optional<double> x) { return x ? str(*x) : "not determined"; }

// The text: every option preceded by its comment lines.
struct Out {
  std::ostringstream s;
  void opt(const std::string& comment, const std::string& line) {
    std::istringstream c(comment);
    for (std::string l; std::getline(c, l);) s << "# " << l << "\n";
    s << line << "\n\n";
  }
};

// Replacement letter: L or F; anything else becomes the nearest the archive names (replacement_gpgpusim).
char repl_letter(const json& c, std::string* why) {
  const json rv = c.value("replacement", json());
  if (rv.is_array())  // candidates the experiments predict alike (e.g. ["lru", "slru_p1"])
    for (const auto& x : rv)
      if (x == "lru" || x == "fifo") {
        *why = "replacement: candidates " + rv.dump() + " predict the measurements alike; the format says " +
               x.get<std::string>();
        return x == "fifo" ? 'F' : 'L';
      }
  const std::string r = rv.is_string() ? rv.get<std::string>() : "";
  if (r == "lru" || r == "lru_or_fifo" || r == "fifo") *why = "replacement measured " + r;
  if (r == "lru" || r == "lru_or_fifo") return 'L';
  if (r == "fifo") return 'F';
  const json g = c.value("replacement_gpgpusim", json::object());
  const std::string nearest = g.value("nearest", std::string());
  if (!r.empty() && !nearest.empty()) {
    *why = "replacement measured '" + r + "', which the format (L or F) cannot say; the nearest of the two on the " +
           "measured access sequences: " + nearest + " (replacement_gpgpusim.predicted_fraction " +
           g.value("predicted_fraction", json::object()).dump() + ")";
    return nearest == "fifo" ? 'F' : 'L';
  }
  *why = r.empty() ? "replacement not determined: L (LRU)" : "replacement '" + r + "' is neither L nor F: L";
  return 'L';
}

// Set-index letter for `sets` sets: L for measured linear bits, X (bitwise XOR) for a hash.
char index_letter(const json& c, std::uint64_t sets, std::string* why) {
  const json ib = c.value("index_bits", json());
  if (ib.is_array()) {
    *why = "index bits " + ib.dump() + ": L (linear)";
    return 'L';
  }
  if (ib == "hashed" || c.value("index_within_slice", json()).is_string()) {
    *why = "index measured hashed" + (c.contains("index_within_slice") ? " (" + c["index_within_slice"].get<std::string>() + ")" : std::string()) +
           "; the format names fixed hashes only (H: Fermi's, 32/64 sets; P: IPOLY, 16/32/64 sets; X: the upper bits "
           "XORed onto the linear index), not a measured one: X" + (is_pow2(sets) ? "" : " (needs a power-of-two set count)");
    return 'X';
  }
  *why = "index not determined: L (linear)";
  return 'L';
}

// One cache_config value: sets x ways of `line`, and the comment. MSHR and queues are not measured.
std::string cache_value(char type, std::uint64_t sets, std::uint64_t line, std::uint64_t ways, char rp,
                        const char* wr_alloc_wa_idx, char sif, const char* tail) {
  std::ostringstream o;
  o << type << ':' << sets << ':' << line << ':' << ways << ',' << rp << ':' << wr_alloc_wa_idx << ':' << sif << ','
    << tail;
  return o.str();
}

struct Geo {
  std::uint64_t sets = 0, ways = 0, line = 128;
  std::string note;
};

// A first-level cache's sets and ways: measured, or (size only) rounded to a power of two of 4-way sets.
Geo l1_geometry(const json& c, std::uint64_t dflt_line) {
  Geo g;
  g.line = json_number(c, "line_bytes") ? u64(*json_number(c, "line_bytes")) : dflt_line;
  if (c.contains("ways") && c["ways"].is_array() && !c["ways"].empty()) {
    g.sets = c["ways"].size();
    std::uint64_t mx = 0, mn = UINT64_MAX;
    for (const auto& w : c["ways"]) mx = std::max<std::uint64_t>(mx, w), mn = std::min<std::uint64_t>(mn, w);
    g.ways = mx;
    if (mn != mx) g.note = "unequal sets (" + str(mn) + " to " + str(mx) + " ways) cannot be written: every set " + str(mx) + " ways";
    if (!is_pow2(g.sets)) g.note += (g.note.empty() ? "" : "; ") + str(g.sets) + " sets is no power of two";
    return g;
  }
  const double size = json_number(c, "size_bytes").value_or(json_number(c, "size_bytes_lower_bound").value_or(16384));
  g.ways = 4;
  g.sets = 1;
  while (static_cast<double>(g.sets * 2 * g.ways * g.line) <= size * 1.25) g.sets *= 2;
  g.note = "sets and ways not determined (size " + str(size) + " bytes): " + str(g.sets) + " sets x 4 ways (defaulted), " +
           str(g.sets * g.ways * g.line) + " bytes";
  return g;
}

}  // namespace

namespace {

const char* kMshrL1 = "A:512:8,16:0,32";   // GPGPU-Sim's Volta-and-later L1D queues (not measured)
const char* kMshrL2 = "A:192:4,32:0,32";   // its L2 queues
const char* kMshrTex = "T:512:8,128:2";    // its texture FIFO
const char* kMshrConst = "S:2:64,4";       // its constant cache queues

// The L2 banks: slices (l2_slices, or l2_sets' sets / sets_per_slice) over 64-bit channels.
void memory_partitions(const json& topo, Out& o, std::uint64_t* banks) {
  const json& d = topo["device"];
  const json sl = topo.value("l2_slices", json::object()), ls = topo.value("l2_sets", json::object());
  std::uint64_t slices = json_number(sl, "slices") ? u64(*json_number(sl, "slices")) : 0;
  if (!slices && json_number(ls, "sets") && json_number(ls, "sets_per_slice")) slices = u64(*json_number(ls, "sets") / *json_number(ls, "sets_per_slice"));
  const auto bus = device_number(d, "mem_bus_width_bits");
  std::uint64_t chans = bus ? u64(*bus / 64) : 0;
  std::string why;
  if (!slices) {  // the most equal banks (power-of-two sets preferred) of the L2's sets, at most one per channel
    const double ways = json_number(ls, "ways").value_or(16);
    const auto sets = json_number(ls, "sets") ? u64(*json_number(ls, "sets")) : u64(device_number(d, "l2_cache_bytes").value_or(0) / (ways * 128));
    std::uint64_t best = 1;
    for (std::uint64_t b = 1; b <= std::max<std::uint64_t>(chans, 1) && sets; ++b)
      if (sets % b == 0 && (is_pow2(sets / b) || !is_pow2(sets / best))) best = b;
    slices = best;
    why = "L2 slices not measured: " + str(static_cast<double>(best)) + ", the most banks (at most one per channel) that cut the L2's " +
          str(static_cast<double>(sets)) + " sets (" + (json_number(ls, "sets") ? "l2_sets" : "device L2 bytes / 16 ways") +
          ") into equal" + (is_pow2(sets / best) ? " power-of-two" : "") + " parts";
  }
  const std::uint64_t bus_chans = chans;
  if (!chans || slices % chans) chans = slices, why += (why.empty() ? "" : "; ") + std::string("one channel per slice");
  *banks = slices;
  o.opt("memory channels: mem_bus_width_bits " + n(bus) + " / 64-bit channels = " + str(static_cast<double>(bus_chans)) +
            " (the channel width is assumed, not measured)" + (why.empty() ? "" : "; " + why),
        "-gpgpu_n_mem " + str(static_cast<double>(chans)));
  o.opt("L2 slices measured: " + str(static_cast<double>(slices)) + " (l2_slices: " +
            n(json_number(sl, "slices_per_partition")) + " per partition x " +
            n(json_number(topo.value("l2_partitions", json::object()).value("map", json::object()), "partitions")) +
            " partitions); one sub-partition per slice",
        "-gpgpu_n_sub_partition_per_mchannel " + str(static_cast<double>(slices / chans)));
  const json map = topo.value("l2_partitions", json::object()).value("map", json::object());
  const bool linear = map.value("linear_in_offset_bits", false);
  o.opt("partition of a line measured: " + std::string(linear ? "a parity (XOR) of address bits, masks " +
                                                                     map.value("page_offset_masks", json()).dump()
                                                               : "not determined as a function") +
            "; the slice hash within a partition: " +
            (sl.contains("hash") ? sl["hash"].value("reason", std::string("not measured as masks")) : "not measured") +
            ". The format takes a fixed function, not measured masks: " +
            (linear ? "1 (bitwise permutation, an XOR hash)" : "2 (IPOLY, GPGPU-Sim's Hopper choice)"),
        std::string("-gpgpu_memory_partition_indexing ") + (linear ? "1" : "2"));
}

// A first-level cache's geometry, replacement letter and set-index letter, each with its reason.
struct FirstLevel {
  Geo g;
  char rp;
  std::string rwhy;
  char sif;
  std::string iwhy;
};
FirstLevel first_level_cache(const json& c) {
  FirstLevel f{l1_geometry(c, 128), 'L', "", 'L', ""};
  f.rp = repl_letter(c, &f.rwhy);
  f.sif = index_letter(c, f.g.sets, &f.iwhy);
  return f;
}

void first_level(const json& topo, Out& o) {
  const json& c = topo["caches"];
  const json& d = topo["device"];
  const json l1 = c.value("l1", json::object());
  const auto [g, rp, rwhy, sif, iwhy] = first_level_cache(l1);
  const bool sector = g.line == 128;
  o.opt("L1 (unified with readonly/texture: shared_with " + l1.value("shared_with", json()).dump() + ") measured: " +
            n(json_number(l1, "size_bytes")) + " bytes at carveout " + n(json_number(l1, "size_carveout")) + ", line " + str(g.line) +
            ", " + sector_note(json_number(l1, "sector_bytes"), g.line) + ", " + str(g.sets) + " sets x " + str(g.ways) + " ways" +
            (g.note.empty() ? "" : " (" + g.note + ")") + ".\n" + rwhy + ". " + iwhy +
            ".\nSizes by carveout (L1 bytes): " + l1.value("size_bytes_by_carveout", json()).dump() +
            "; GPGPU-Sim keeps the sets and scales the ways with the carveout, the measured L1 keeps its ways.\n"
            "Not measured (GPGPU-Sim's own choices): write-through (T), allocate on miss (m), lazy fetch on read (L), "
            "MSHR and queues " + kMshrL1,
        "-gpgpu_cache:dl1 " + cache_value(sector ? 'S' : 'N', g.sets, g.line, g.ways, rp, "T:m:L", sif, kMshrL1));
  const auto unified = json_number(l1, "size_bytes");
  o.opt("unified L1 + shared memory: the L1 measured at carveout 0 (no shared memory), " + n(unified) + " bytes",
        "-gpgpu_unified_l1d_size " + str(static_cast<double>(u64(unified.value_or(0) / 1024))));
  const auto smem = device_number(d, "smem_per_sm_bytes"), blk = device_number(d, "smem_per_block_optin_bytes");
  o.opt("shared memory per SM (device attribute): " + n(smem) + " bytes", "-gpgpu_shmem_size " + n(smem));
  o.opt("the default carveout's shared memory: the largest (the measured P-chase ran at carveout 0)",
        "-gpgpu_shmem_sizeDefault " + n(smem));
  o.opt("shared memory per block (opt-in device attribute): " + n(blk), "-gpgpu_shmem_per_block " + n(blk));
  const auto l1lat = json_number(l1, "hit_latency_cycles");
  o.opt("L1 hit measured: " + n(l1lat) + " SM cycles (dependent P-chase, clock overhead removed; the tuner's convention)",
        "-gpgpu_l1_latency " + str(static_cast<double>(u64(l1lat.value_or(0)))));
  const auto sml = json_number(topo.value("shared_memory", json::object()), "latency_cycles");
  o.opt("shared-memory load measured: " + n(sml) + " SM cycles", "-gpgpu_smem_latency " + str(static_cast<double>(u64(sml.value_or(0)))));
}

void texture_constant(const json& topo, Out& o) {
  const json& c = topo["caches"];
  const json tx = c.value("texture", json::object());
  const auto [g, rp, rwhy, sif, iwhy] = first_level_cache(tx);
  o.opt("texture path measured: " + n(json_number(tx, "size_bytes")) + " bytes, " + str(g.sets) + " sets x " + str(g.ways) +
            " ways, line " + str(g.line) + ", hit " + n(json_number(tx, "hit_latency_cycles")) + " cycles; shared_with " +
            tx.value("shared_with", json()).dump() + ": on this GPU it is the unified L1, which the format keeps apart "
            "(a separate texture cache of the same structure; its own hit latency has no option).\n" + rwhy + ". " + iwhy +
            ". Not measured: the texture FIFO " + kMshrTex,
        "-gpgpu_tex_cache:l1 " + cache_value('N', g.sets, g.line, g.ways, rp, "R:m:N", sif, kMshrTex));
  const json k = c.value("constant_l1", json::object()), k15 = c.value("constant_l15", json::object());
  Geo h = l1_geometry(k, 64);
  std::string krwhy;
  const char krp = repl_letter(k, &krwhy);
  o.opt("constant L1 measured: " + n(json_number(k, "size_bytes")) + " bytes (bracket " + k.value("size_bracket_bytes", json()).dump() +
            "), line " + n(json_number(k, "line_bytes")) + ", hit " + n(json_number(k, "hit_latency_cycles")) + " cycles" +
            (h.note.empty() ? "" : "; " + h.note) + ". " + krwhy + ".\nThe constant L1.5 (hit " +
            n(json_number(k15, "hit_latency_cycles")) + " cycles, at least " + n(json_number(k15, "size_bytes_lower_bound")) +
            " bytes) has no option: GPGPU-Sim has one constant cache level. Not measured: queues " + kMshrConst,
        "-gpgpu_const_cache:l1 " + cache_value('N', h.sets, h.line, h.ways, krp, "R:f:N", 'L', kMshrConst));
}

// The L2 per sub-partition: the measured sets per slice x ways, re-cut into a power-of-two set count
// of the same lines where the slice's sets are no power of two (GPGPU-Sim masks the index).
void second_level(const json& topo, std::uint64_t banks, Out& o) {
  const json l2 = topo["caches"].value("l2", json::object());
  json ls = topo.value("l2_sets", json::object());
  const auto dev_l2 = device_number(topo["device"], "l2_cache_bytes");
  std::uint64_t line = json_number(l2, "line_bytes") ? u64(*json_number(l2, "line_bytes")) : 128;
  std::uint64_t sets = 0, ways = json_number(ls, "ways") ? u64(*json_number(ls, "ways")) : 0;
  std::string from;
  if (json_number(ls, "sets_per_slice") && ways) {
    sets = u64(*json_number(ls, "sets_per_slice"));
    from = "measured per slice: " + str(sets) + " sets x " + str(ways) + " ways (l2_sets, eviction sets)";
  } else if (json_number(ls, "sets") && ways) {
    sets = std::max<std::uint64_t>(1, u64(*json_number(ls, "sets")) / banks);
    from = "sets per slice not measured: the L2's " + n(json_number(ls, "sets")) + " sets x " + str(ways) +
           " ways (l2_sets, eviction sets) over " + str(banks) + " banks: " + str(sets) + " sets each";
  } else {
    ways = ways ? ways : 16;
    sets = std::max<std::uint64_t>(1, u64(dev_l2.value_or(0) / static_cast<double>(banks * ways * line)));
    from = "sets per slice not measured: the device's L2 bytes " + n(dev_l2) + " / " + str(banks) + " banks / " +
           str(ways) + " ways (" + std::string(json_number(ls, "ways") ? "measured" : "defaulted") + ")";
  }
  const std::uint64_t lines = sets * ways;
  std::uint64_t s2 = 1;
  while (s2 * 2 <= sets && lines % (s2 * 2) == 0) s2 *= 2;
  const std::uint64_t w2 = lines / s2;
  std::string rwhy, iwhy;
  json lc = l2;
  if (lc.value("replacement", json()).is_null()) lc["replacement"] = ls.value("replacement", json()), lc["replacement_gpgpusim"] = ls.value("replacement_gpgpusim", json());
  if (ls.contains("index_within_slice")) lc["index_within_slice"] = ls["index_within_slice"];
  const char rp = repl_letter(lc, &rwhy);
  const char sif = index_letter(lc, s2, &iwhy);
  o.opt("L2 " + from + ", line " + str(line) + ", " + sector_note(json_number(l2, "sector_bytes"), line) + ", " + str(banks) + " sub-partitions: " +
            str(static_cast<double>(lines * line * banks)) + " bytes (device: " + n(dev_l2) + ").\n" +
            (s2 != sets ? str(sets) + " sets is no power of two and GPGPU-Sim masks the set index (nset - 1): the same " +
                              str(lines) + " lines as " + str(s2) + " sets x " + str(w2) + " ways (ways differ from the measured " + str(ways) + ").\n"
                        : std::string()) +
            "Not expressible: one SM sees one partition's copy (near " +
            n(json_number(topo.value("l2_partitions", json::object()).value("map", json::object()), "near_latency_cycles")) + ", far " +
            n(json_number(topo.value("l2_partitions", json::object()).value("map", json::object()), "far_latency_cycles")) +
            " cycles; P-chase capacity " + n(json_number(l2, "size_bytes")) + " bytes).\n" + rwhy + ". " + iwhy +
            ".\nNot measured (GPGPU-Sim's choices): write-back (B), allocate on miss (m), lazy fetch on read (L), queues " + kMshrL2,
        "-gpgpu_cache:dl2 " + cache_value(line == 128 ? 'S' : 'N', s2, line, w2, rp, "B:m:L", sif, kMshrL2));
  const auto l1 = json_number(topo["caches"].value("l1", json::object()), "hit_latency_cycles"), h2 = json_number(l2, "hit_latency_cycles");
  const auto dram = json_number(topo.value("global_memory", json::object()), "dram_latency_cycles");
  o.opt("L2 hit measured " + n(h2) + " SM cycles, L1 hit " + n(l1) + ": the ROP latency is their difference "
        "(Accel-Sim's tuner convention; GPGPU-Sim counts it in L2-clock cycles, these are SM cycles at " +
        n(device_number(topo["device"], "sm_clock_khz")) + " kHz)",
        "-gpgpu_l2_rop_latency " + str(static_cast<double>(u64(h2.value_or(0) - l1.value_or(0)))));
  o.opt("DRAM measured " + n(dram) + " SM cycles (P-chase far beyond the L2): DRAM latency = DRAM - L2 hit (tuner convention)",
        "-dram_latency " + str(static_cast<double>(u64(std::max(0.0, dram.value_or(0) - h2.value_or(0))))));
}

}  // namespace

std::string gpgpusim_config(const json& topology) {
  if (!topology.is_object() || !topology.contains("device") || !topology.contains("caches"))
    throw std::runtime_error("topology: no 'device' or 'caches' block (not a memhier topology?)");
  const json topo = ways_by_set_view(topology);  // memhier-topology/1 and /2 alike: ways by set
  const json& d = topo["device"];
  Out o;
  o.s << "# GPGPU-Sim / Accel-Sim configuration of " << d.value("gpu_name", std::string("a GPU")) << " (driver "
      << d.value("driver_version", std::string("?")) << ", measured " << d.value("date", std::string("?"))
      << "), written by memhier-infer --gpgpusim-config\n# from its topology.json alone (docs/gpgpusim.md). Cache "
         "values in gpu-cache.h's cache_config syntax; latencies in SM cycles.\n# Only the memory-hierarchy options: "
         "add them to a full configuration (e.g. Accel-Sim's SM90_H100).\n\n";
  const auto sms = device_number(d, "sm_count");
  o.opt("SMs (device attribute): " + n(sms) + ", one per cluster", "-gpgpu_n_clusters " + n(sms));
  o.opt("one SM per cluster", "-gpgpu_n_cores_per_cluster 1");
  std::uint64_t banks = 1;
  memory_partitions(topo, o, &banks);
  first_level(topo, o);
  texture_constant(topo, o);
  second_level(topo, banks, o);
  return o.s.str();
}

}  // namespace memhier::analysis
