// Backend::run_sequence on the simulated device (bench/backends/backend_sim.cpp): errors, records, the
// carveout and start state it reports.
#include <gtest/gtest.h>

#include "bench/backends/backend.hpp"
#include "bench/backends/backend_sim.hpp"

namespace memhier {
namespace {

std::string config(const std::string& name) { return std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/" + name + ".json"; }

TEST(SequenceBackend, SimRunsASequence) {
  auto be = make_sim_backend(config("plain_lru"));
  SequenceRequest r;
  r.array_bytes = 1 << 20;
  SequenceBuilder b;
  b.access(0, static_cast<std::uint8_t>(Path::global_ca), true);    // cold: L1 miss, L2 miss
  b.access(0, static_cast<std::uint8_t>(Path::global_ca), true);    // L1 hit
  b.access(4096, static_cast<std::uint8_t>(Path::global_cg), true); // L2 only: miss
  b.access(0, static_cast<std::uint8_t>(Path::global_cg), true);    // L2 hit
  r.seq = b.take();
  SequenceResult o = be->run_sequence(r);
  ASSERT_EQ(o.error, "");
  // plain_lru translates: the first access also misses both TLBs (80 + 220 cycles).
  EXPECT_EQ(o.records, (std::vector<std::uint32_t>{450 + 300, 30, 450, 200}));
  EXPECT_EQ(o.start_state, "empty");
  EXPECT_EQ(o.carveout, 0);
  EXPECT_EQ(o.launches, 1);
  EXPECT_EQ(o.clock_overhead_cycles, 10);
  EXPECT_GT(o.seconds, 0);
}

TEST(SequenceBackend, SimRefusesWhatItCannotRun) {
  auto be = make_sim_backend(config("fermi_l1_16k"));
  SequenceRequest r;
  r.array_bytes = 4096;
  SequenceBuilder b;
  b.access(8192, 0, true);
  r.seq = b.take();
  EXPECT_NE(be->run_sequence(r).error.find("outside the array"), std::string::npos);
  SequenceBuilder t;
  t.access(0, static_cast<std::uint8_t>(Path::texture), true);
  r.seq = t.take();
  EXPECT_NE(be->run_sequence(r).error.find("does not map"), std::string::npos);
}

}  // namespace
}  // namespace memhier
