// The level families beyond one SM (bench/levels/levels.hpp; docs/methodology.md, "Levels beyond one
// SM"): dsmem, async_copy, host, peer. Each benchmark is one LevelRequest answered by the backend;
// its counters are copied into the JSON as they come and its time is the manual time. The sweeps
// are derived from what the device offers (Backend::level_offer): a device without clusters has no
// dsmem benchmarks, one without peers no peer benchmarks. Names (the contract):
//   dsmem/op:latency/cluster:C/rank:R
//   dsmem/op:{read,write}/cluster:C/remote:{0,1}/cta_size:T
//   async_copy/op:bandwidth/method:{plain,cp_async,bulk,tensor}/source:{l2,dram}/chunk:B/ctas_per_sm:K/stages:S
//   async_copy/op:multicast/source:l2/chunk:B/cluster:C
//   async_copy/op:latency/method:M/chunk:B
//   host/op:latency/bytes:B/warm:{0,1}
//   host/op:{read,write}/ctas_per_sm:K
//   host/op:copy/dir:{h2d,d2h,bidir}/bytes:B
//   host/op:managed/bytes:B
//   peer/dst:D/op:latency/bytes:B/state:{cold,warm,owner}
//   peer/dst:D/op:{read,write}/ctas_per_sm:K
//   peer/dst:D/op:copy/dir:{uni,bidir}/bytes:B
//   l2_slices/op:fingerprint/pages:P/bases:B/hits:R/passes:K   (a trace: per SM and test line
//       the cycles of R dependent L2 hits, one record per pass; common/l2_slice_lines.hpp)
//   l2_slices/op:contention/pages:P/bases:B/hits:R/copies:C    (a trace: per reference line that
//       half the SMs hammer, each test line's cycles on C probe SMs, and the quiet cycles)
//   l2_evsets/targets:T/passes:P/pool:F                          (a trace: per target its reduced
//       eviction set; bench/plans/l2_evsets_plan.hpp)
#include <algorithm>
#include <cmath>
#include <set>

#include "bench/families/chase_common.hpp"
#include "bench/families/level_family.hpp"
#include "bench/core/guard.hpp"

namespace memhier {

void register_level(const BenchName& n) {
  LevelRequest req;
  req.family = n.family();
  for (const auto& [k, v] : n.params()) req.params[k] = v;
  const std::string name = n.str();
  register_guarded(name, [req, name](benchmark::State& state) {
    LevelResult res;
    for (auto _ : state) {
      res = backend().run_level(req);
      if (!res.error.empty()) {
        state.SkipWithError(res.error.c_str());
        return;
      }
      state.SetIterationTime(std::max(res.seconds, 1e-9));
    }
    if (res.trace) {
      res.trace->benchmark = name;
      write_bench_trace(name, *res.trace);
    }
    for (const auto& [k, v] : res.counters)
      if (std::isfinite(v)) state.counters[k] = v;
  })->UseManualTime()->Iterations(1);
}

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;


// Cluster sizes 2, 4, 8 (and 16) up to what the device offers.
std::vector<int> cluster_sizes(const LevelOffer& o, bool quick) {
  std::vector<int> v;
  for (int c : {2, 4, 8, 16})
    if (c <= o.max_cluster && (!quick || c == 2)) v.push_back(c);
  return v;
}

void register_dsmem(Backend& be) {
  if (plan() == Plan::none) return;
  const LevelOffer o = be.level_offer();
  const bool quick = plan() == Plan::quick;
  for (int c : cluster_sizes(o, quick)) {
    std::set<int> ranks = {0, 1};
    if (!quick) ranks.insert({c / 2, c - 1});
    for (int r : ranks)
      register_level(BenchName("dsmem").add("op", "latency").add("cluster", c).add("rank", r));
  }
  for (const char* op : {"read", "write"}) {
    if (quick && std::string(op) == "write") continue;
    for (int c : cluster_sizes(o, quick))
      for (int remote : {0, 1}) {
        if (remote == 0 && c != 2) continue;  // local shared memory: the reference, once
        for (int t : {256, 1024}) {
          if (quick && t != 1024) continue;
          register_level(BenchName("dsmem").add("op", op).add("cluster", c).add("remote", remote).add("cta_size", t));
        }
      }
  }
}

std::vector<std::string> copy_methods(const LevelOffer& o) {
  std::vector<std::string> m = {"plain"};
  if (o.cp_async) m.push_back("cp_async");
  if (o.bulk_copies) m.push_back("bulk");
  if (o.tensor_copies) m.push_back("tensor");
  return m;
}

void register_async_copy(Backend& be) {
  if (plan() == Plan::none) return;
  const LevelOffer o = be.level_offer();
  if (!o.cp_async && !o.bulk_copies) return;  // plain loads alone are the gmem/l2 families' business
  const bool quick = plan() == Plan::quick;
  auto bw = [](const std::string& m, const char* src, std::uint64_t chunk, int k, int s) {
    register_level(BenchName("async_copy").add("op", "bandwidth").add("method", m).add("source", src)
                       .add("chunk", static_cast<std::int64_t>(chunk)).add("ctas_per_sm", k).add("stages", s));
  };
  for (const auto& m : copy_methods(o)) {
    for (const char* src : {"l2", "dram"}) {
      if (quick) {
        bw(m, src, 4 * KiB, 1, 2);
        continue;
      }
      for (std::uint64_t chunk : {1 * KiB, 4 * KiB, 16 * KiB})
        for (int k : {1, 2}) bw(m, src, chunk, k, 2);
      for (int s : {1, 4}) bw(m, src, 4 * KiB, 1, s);
    }
    for (std::uint64_t chunk : {1 * KiB, 16 * KiB}) {
      if (quick && chunk != 1 * KiB) continue;
      register_level(BenchName("async_copy").add("op", "latency").add("method", m).add("chunk", static_cast<std::int64_t>(chunk)));
    }
  }
  if (o.multicast && !quick)
    for (int c : cluster_sizes(o, false)) {
      if (c > 4) continue;
      register_level(BenchName("async_copy").add("op", "multicast").add("source", "l2")
                         .add("chunk", static_cast<std::int64_t>(4 * KiB)).add("cluster", c));
    }
}

void register_host(Backend& be) {
  if (plan() == Plan::none) return;
  const LevelOffer o = be.level_offer();
  if (!o.host_mapped || o.host_bytes == 0) return;
  const bool quick = plan() == Plan::quick;
  for (std::uint64_t b : {256 * KiB, 64 * MiB}) {
    if (b > o.host_bytes || (quick && b != 256 * KiB)) continue;
    for (int w : {0, 1})
      register_level(BenchName("host").add("op", "latency").add("bytes", static_cast<std::int64_t>(b)).add("warm", w));
  }
  for (const char* op : {"read", "write"})
    for (int k : {1, 4}) {
      if (quick && k != 4) continue;
      register_level(BenchName("host").add("op", op).add("ctas_per_sm", k));
    }
  for (const char* dir : {"h2d", "d2h", "bidir"})
    for (std::uint64_t b : {1 * MiB, 64 * MiB}) {
      if (b > o.host_bytes || (quick && b != 64 * MiB)) continue;
      register_level(BenchName("host").add("op", "copy").add("dir", dir).add("bytes", static_cast<std::int64_t>(b)));
    }
  if (o.managed && !quick) register_level(BenchName("host").add("op", "managed").add("bytes", static_cast<std::int64_t>(256 * MiB)));
}

void register_peer(Backend& be) {
  if (plan() == Plan::none) return;
  const LevelOffer o = be.level_offer();
  const bool quick = plan() == Plan::quick;
  for (int d : o.peers) {
    for (const char* state : {"cold", "warm", "owner"})
      register_level(BenchName("peer").add("dst", d).add("op", "latency").add("bytes", static_cast<std::int64_t>(1 * MiB)).add("state", state));
    for (const char* op : {"read", "write"})
      for (int k : {1, 4}) {
        if (quick && k != 4) continue;
        register_level(BenchName("peer").add("dst", d).add("op", op).add("ctas_per_sm", k));
      }
    for (const char* dir : {"uni", "bidir"})
      for (std::uint64_t b : {1 * MiB, 64 * MiB}) {
        if (quick && b != 64 * MiB) continue;
        register_level(BenchName("peer").add("dst", d).add("op", "copy").add("dir", dir).add("bytes", static_cast<std::int64_t>(b)));
      }
  }
}

// The fingerprint: 1 page x 8 bases x 15 lines (120 lines), 24 dependent hits per record, 2 passes
// (132 SMs: 32 k records); the contention run: 2 pages x 16 bases (480 lines, ~416 independent of
// each other: a slice of 48 missed by all with probability e^-8.7), each line timed on 4 probe SMs
// per reference (references until every line slowed down with one; 40 per partition on the H100:
// 79 k records). Together ~0.5 MB of an archive's 2 MB. The quick plan 1 page x 4 bases.
// (`hits`, not `repeats`: Google Benchmark's names end in repeats:N for repetitions.)
void register_l2_slices(Backend& be) {
  if (plan() == Plan::none || !be.level_offer().l2_slices) return;
  const bool quick = plan() == Plan::quick;
  register_level(BenchName("l2_slices").add("op", "fingerprint").add("pages", 1).add("bases", quick ? 4 : 8).add("hits", 24)
                     .add("passes", 2));
  register_level(BenchName("l2_slices").add("op", "contention").add("pages", quick ? 1 : 2).add("bases", quick ? 4 : 16)
                     .add("hits", 6).add("copies", 4));
}

// Six targets (two in the quick plan), reads twice per test, a pool of 3 x the L2: on the H100 a
// target took 600 - 900 tests, 0.06 - 0.11 s (development runs).
void register_l2_evsets(Backend& be) {
  if (plan() == Plan::none || be.level_offer().l2_evsets_bytes == 0) return;
  register_level(BenchName("l2_evsets").add("targets", plan() == Plan::quick ? 2 : 6).add("passes", 2).add("pool", 3));
}

FamilyRegistrar reg_dsmem("dsmem", false, register_dsmem);
FamilyRegistrar reg_async("async_copy", false, register_async_copy);
FamilyRegistrar reg_host("host", false, register_host);
FamilyRegistrar reg_peer("peer", false, register_peer);
FamilyRegistrar reg_slices("l2_slices", false, register_l2_slices);
FamilyRegistrar reg_evsets("l2_evsets", false, register_l2_evsets);

}  // namespace
}  // namespace memhier
