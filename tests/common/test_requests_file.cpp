// The requests file (common/requests_file.hpp): every value checked, one line naming the item.
#include <gtest/gtest.h>

#include "common/requests_file.hpp"

using namespace memhier;

namespace {
std::string error_of(const std::string& items) {
  try {
    parse_requests(R"({"format": "memhier-requests/1", )" + items + "}", "req.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
const char* kGood = R"("path": "global_cg", "mode": "count", "bytes": 65536, "stride": 128, "iters": 512, "warm": 1, "carveout": -1)";
std::string pchase(const std::string& extra) { return std::string(R"("pchase": [{)") + kGood + extra + "}]"; }
}  // namespace

TEST(RequestsFile, AcceptsWhatTheAnalyzerWrites) {
  auto r = parse_requests(std::string(R"({"format": "memhier-requests/1", )") + pchase(R"(, "max_records": 64)") +
                              R"(, "tlb": [{"bytes": 138412032, "stride": 2097152}]})",
                          "req.json");
  ASSERT_EQ(r["pchase"].size(), 1u);
  EXPECT_EQ(r["pchase"][0].get("max_records", 0), 64);
  EXPECT_EQ(r["tlb"][0].get("bytes", 0), 138412032);
  EXPECT_EQ(error_of(pchase("")), "");
}

TEST(RequestsFile, RefusesImpossibleValuesNamingTheItem) {
  struct Case {
    std::string items, says;
  } cases[] = {
      {pchase(R"(, "stride": -32)"), "req.json: pchase[0].stride: -32 is outside [4, "},
      {pchase(R"(, "stride": 0)"), "stride: 0 is outside"},
      {pchase(R"(, "stride": 30)"), "not a multiple of 4"},
      {pchase(R"(, "stride": 131072)"), "larger than the array"},
      {pchase(R"(, "iters": 4000000000000)"), "iters: 4000000000000 is outside"},
      {pchase(R"(, "iters": -1)"), "iters: -1 is outside"},
      {pchase(R"(, "bytes": 65536.5)"), "must be an integer, not 65536.5"},
      {pchase(R"(, "bytes": 18446744073709551615)"), "integer out of range"},
      {pchase(R"(, "warm": 2)"), "warm: 2 is outside [0, 1]"},
      {pchase(R"(, "carveout": 101)"), "carveout: 101 is outside [-1, 100]"},
      {pchase(R"(, "max_records": 0)"), "max_records: 0 is outside"},
      {pchase(R"(, "path": "l3")"), "pchase[0].path: unknown path 'l3'"},
      {pchase(R"(, "mode": "fast")"), "unknown mode 'fast'"},
      {pchase(R"(, "colour": 1)"), "unknown key 'colour'"},
      {pchase(R"(, "bytes": [1])"), "must be an integer or a string"},
      {pchase(R"(, "bytes": "many")"), "bytes: must be an integer"},
      {R"("pchase": [{"path": "global_cg", "stride": 4}])", "missing key 'bytes'"},
      {R"("pchase": [3])", "pchase[0]: must be an object"},
      {R"("pchase": {"path": "global_cg"})", "'pchase' must be a list"},
      {R"("pchase": [{"path": "global_cg", "bytes": 1099511627776, "stride": 4}])", "more than 2^32 elements"},
      {R"("tlb": [{"bytes": 4096, "stride": 8192}])", "larger than the array"},
  };
  for (const auto& c : cases) {
    const std::string m = error_of(c.items);
    EXPECT_NE(m.find(c.says), std::string::npos) << c.items << " -> " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(RequestsFile, RefusesOtherFiles) {
  for (const char* text : {"", "{", "[]", R"({"format": "memhier-requests/2"})", R"({"pchase": []})", R"({"format": 1})"}) {
    try {
      parse_requests(text, "x.json");
      FAIL() << text;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x.json: ", 0), 0u) << e.what();
    }
  }
}

TEST(RequestsFile, ReadsFamiliesItDoesNotKnowGenerically) {
  auto r = parse_requests(R"({"format": "memhier-requests/1", "sequences": [{"cache": "l1", "budget": 3}]})", "x.json");
  EXPECT_EQ(r["sequences"][0].str.at("cache"), "l1");
  EXPECT_EQ(r["sequences"][0].get("budget", 0), 3);
}

#include "common/bench_json.hpp"

TEST(GoogleBenchmarkJson, NonFiniteTokensBecomeNullOutsideStrings) {
  const std::string in = R"({"name": "a NaN \"Infinity\" b", "cv": NaN, "x": -NaN, "y": Infinity, "z": -Infinity, "w": 1.5})";
  EXPECT_EQ(json_without_nonfinite(in),
            R"({"name": "a NaN \"Infinity\" b", "cv": null, "x": null, "y": null, "z": null, "w": 1.5})");
}
