// Bad input: one clear error, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/core/dataset.hpp"
#include "analysis/report/topology.hpp"

using namespace memhier;
namespace fs = std::filesystem;

namespace {
std::string tmp(const std::string& name, const std::string& text) {
  fs::path d = fs::temp_directory_path() / "memhier_infer_malformed";
  fs::create_directories(d);
  std::ofstream(d / name) << text;
  return (d / name).string();
}
std::string error_of(const std::vector<std::string>& files) {
  try {
    analysis::Dataset::load(files);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
const char* kCtx = R"("context":{"memhier_version":"1","device_backend":"sim:a","gpu_name":"A","trace_dir":"traces"})";
}  // namespace

TEST(Malformed, MissingFile) { EXPECT_NE(error_of({"/nonexistent/x.json"}).find("cannot open"), std::string::npos); }

TEST(Malformed, NotJson) { EXPECT_NE(error_of({tmp("a.json", "{nope")}).find("not valid JSON"), std::string::npos); }

TEST(Malformed, OtherTool) {
  EXPECT_NE(error_of({tmp("b.json", R"({"context":{},"benchmarks":[]})")}).find("not written by memhier-bench"),
            std::string::npos);
}

TEST(Malformed, DifferentDevices) {
  auto a = tmp("c1.json", std::string("{") + kCtx + R"(,"benchmarks":[]})");
  auto b = tmp("c2.json", R"({"context":{"memhier_version":"1","device_backend":"sim:b","gpu_name":"B"},"benchmarks":[]})");
  EXPECT_NE(error_of({a, b}).find("another device"), std::string::npos);
}

TEST(Malformed, FailedBenchmark) {
  auto a = tmp("d.json", std::string("{") + kCtx +
                             R"(,"benchmarks":[{"name":"pchase/path:texture/mode:count/bytes:1024/stride:32","error_occurred":true,"error_message":"boom"}]})");
  EXPECT_NE(error_of({a}).find("boom"), std::string::npos);
  EXPECT_NO_THROW(analysis::Dataset::load({a}, true));
}

TEST(Malformed, TruncatedTrace) {
  const std::string name = "pchase/path:texture/mode:count/bytes:1024/stride:32/iters:32/warm:1/carveout:0";
  auto a = tmp("e.json", std::string("{") + kCtx + R"(,"benchmarks":[{"name":")" + name +
                             R"(","run_type":"iteration","latency_cycles":30}]})");
  fs::create_directories(fs::path(a).parent_path() / "traces");
  std::ofstream(fs::path(a).parent_path() / "traces" / (sanitize_for_file(name) + ".trace"))
      << "memhier-trace 1\nbenchmark " << name << "\nkind histogram\nbin_width 4\nbins 10\nrecords 2\ndata\n7 30\n";
  auto d = analysis::Dataset::load({a});
  analysis::Requests r;
  try {
    analysis::build_topology(d, r);
    FAIL() << "no error for a truncated trace";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}
