// Bad configs give one clear line: the file, where in it, and what is wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "cfg.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string good_with(const std::string& from, const std::string& to) {
  std::string t = R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "7.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 4096, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l1", "line_bytes": 32, "sets": 4, "ways": 2, "replacement": "lru", "hit_latency_cycles": 20}],
    "paths": {"global_ca": {"levels": ["l1"]}}})";
  if (!from.empty()) {
    auto p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    t.replace(p, from.size(), to);
  }
  return t;
}

void expect_one_line(const std::string& msg, const std::string& part) {
  EXPECT_EQ(msg.rfind("cfg.json: ", 0), 0u) << msg;
  EXPECT_NE(msg.find(part), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(SimConfigErrors, TheBaseConfigIsValid) { EXPECT_EQ(error_of(good_with("", "")), ""); }

TEST(SimConfigErrors, MissingFile) {
  try {
    load_config("/nonexistent/dir/none.json");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("/nonexistent/dir/none.json"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
  }
}

TEST(SimConfigErrors, BadJson) { expect_one_line(error_of("{\"format\": "), "not valid JSON"); }

TEST(SimConfigErrors, WrongOrMissingFormat) {
  expect_one_line(error_of(good_with("memhier-sim-config/1", "memhier-sim-config/9")), "unsupported format");
  expect_one_line(error_of(good_with(R"("format": "memhier-sim-config/1",)", "")), "missing 'format'");
}

TEST(SimConfigErrors, UnknownPolicy) {
  expect_one_line(error_of(good_with(R"("replacement": "lru")", R"("replacement": "lfu")")),
                  "levels[0] (l1): replacement: unknown replacement policy 'lfu'");
}

TEST(SimConfigErrors, Geometry) {
  expect_one_line(error_of(good_with(R"("sets": 4, "ways": 2)", R"("sets": 3, "ways": [2, 2])")), "'sets' is 3");
  expect_one_line(error_of(good_with(R"("line_bytes": 32)", R"("line_bytes": 48)")), "power of two");
  expect_one_line(error_of(good_with(R"("sets": 4, "ways": 2)", R"("size_bytes": 300, "ways": 2)")), "not a multiple");
  expect_one_line(error_of(good_with(R"("sets": 4, "ways": 2)", R"("size_bytes": 512, "sets": 4, "ways": 2)")), "does not match");
  expect_one_line(error_of(good_with(R"("sets": 4, "ways": 2, "replacement": "lru")", R"("sets": 4, "ways": 3, "replacement": "plru")")),
                  "tree-PLRU");
}

TEST(SimConfigErrors, IndexFunctions) {
  expect_one_line(error_of(good_with(R"("sets": 4,)", R"("sets": 4, "index": {"function": "bits", "bits": [7]},)")),
                  "1 index bits choose among 2 sets");
  expect_one_line(error_of(good_with(R"("sets": 4,)", R"("sets": 4, "index": {"function": "hash"},)")),
                  "unknown index function 'hash'");
  expect_one_line(error_of(good_with(R"("sets": 4,)", R"("sets": 4, "index": {"function": "table", "table": [0, 4]},)")),
                  "table entry 4 is not a set");
}

TEST(SimConfigErrors, RandomWeights) {
  expect_one_line(error_of(good_with(R"("replacement": "lru")", R"("replacement": {"policy": "random", "weights": [1]})")),
                  "lists 1 weights");
  expect_one_line(error_of(good_with(R"("replacement": "lru")", R"("replacement": {"policy": "lru", "seed": 3})")),
                  "the policies that draw");
  expect_one_line(error_of(good_with(R"("replacement": "lru")", R"("replacement": {"policy": "brrip", "weights": [1, 1]})")),
                  "random policy only");
  EXPECT_EQ(error_of(good_with(R"("replacement": "lru")", R"("replacement": {"policy": "brrip", "seed": 3})")), "");
}

TEST(SimConfigErrors, SequenceStart) {
  EXPECT_EQ(error_of(good_with("\"dram_latency_cycles\": 500,", "\"dram_latency_cycles\": 500, \"sequence_start\": \"as_left\",")), "");
  expect_one_line(error_of(good_with("\"dram_latency_cycles\": 500,", "\"dram_latency_cycles\": 500, \"sequence_start\": \"warm\",")),
                  "'sequence_start' must be");
}

TEST(SimConfigErrors, PathsAndKeys) {
  expect_one_line(error_of(good_with(R"("levels": ["l1"])", R"("levels": ["l3"])")), "level 'l3' is not defined");
  expect_one_line(error_of(good_with(R"("global_ca":)", R"("global_xx":)")), "unknown load path");
  expect_one_line(error_of(good_with(R"("levels": ["l1"]})", R"("levels": ["l1"], "translated": true})")), "no 'tlbs'");
  expect_one_line(error_of(good_with(R"("hit_latency_cycles": 20)", R"("hit_latency": 20)")), "unknown key 'hit_latency'");
  expect_one_line(error_of(good_with(R"("dram_latency_cycles": 500,)", "")), "missing 'dram_latency_cycles'");
}

}  // namespace
}  // namespace memhier::sim
