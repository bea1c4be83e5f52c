#include <gtest/gtest.h>

#include <fstream>

#include "bench/backends/backend.hpp"
#include "bench/core/registry.hpp"

using namespace memhier;

namespace {
std::string write(const std::string& name, const std::string& text) {
  std::string p = ::testing::TempDir() + "/" + name;
  std::ofstream(p) << text;
  return p;
}
}  // namespace

TEST(ExtraRequests, ParsesPchaseAndTlbLists) {
  auto p = write("req.json", R"({"format": "memhier-requests/1",
    "pchase": [{"path": "global_ca", "mode": "fine", "bytes": 16512, "stride": 128, "iters": 4096, "warm": 1, "carveout": 0}],
    "tlb": [{"bytes": 138412032, "stride": 2097152}]})");
  auto r = load_extra_requests(p);
  ASSERT_EQ(r["pchase"].size(), 1u);
  EXPECT_EQ(r["pchase"][0].str.at("path"), "global_ca");
  EXPECT_EQ(r["pchase"][0].get("bytes", 0), 16512);
  EXPECT_EQ(r["tlb"][0].get("stride", 0), 2097152);
}

TEST(ExtraRequests, RejectsOtherFilesWithAClearReason) {
  try {
    load_extra_requests(write("bad.json", R"({"benchmarks": []})"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("memhier-requests/1"), std::string::npos);
  }
  EXPECT_THROW(load_extra_requests(write("notjson.json", "{")), std::runtime_error);
  EXPECT_THROW(load_extra_requests("/nonexistent/requests.json"), std::runtime_error);
  EXPECT_THROW(load_extra_requests(write("nested.json", R"({"format": "memhier-requests/1", "pchase": [{"bytes": [1]}]})")),
               std::runtime_error);
}

TEST(PathsAndModes, NamesRoundTrip) {
  for (Path p : {Path::global_ca, Path::global_cg, Path::ldg, Path::texture, Path::constant, Path::shared}) {
    Path q;
    ASSERT_TRUE(parse_path(path_name(p), &q));
    EXPECT_EQ(p, q);
  }
  Mode m;
  EXPECT_TRUE(parse_mode("count", &m));
  EXPECT_EQ(m, Mode::count);
  EXPECT_FALSE(parse_mode("fast", &m));
  Path q;
  EXPECT_FALSE(parse_path("l3", &q));
}
