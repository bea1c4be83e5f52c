// Archive files (common/archive_files.hpp): packs round-trip and reject damage; gzip files read
// the same as plain ones (zlib or the gzip command); a trace read from a pack equals the file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/archive_files.hpp"

namespace fs = std::filesystem;
using namespace memhier;

namespace {
fs::path scratch(const std::string& name) {
  fs::path d = fs::path(MEMHIER_BINARY_DIR) / "test_archive_files" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }
}  // namespace

TEST(ArchiveFiles, PackRoundTripsEveryByte) {
  std::map<std::string, std::string> files = {{"a.trace", "memhier-trace 1\nx\nend\n"},
                                              {"b.trace", std::string("\0\n\xff end\n", 8)},
                                              {"empty", ""}};
  EXPECT_EQ(parse_pack(make_pack(files), "t"), files);
}

// A trace's data rows that begin with an index or an offset in steps are stored without it (a
// `rows` entry) and come back byte for byte; rows that are not such a progression, or whose numbers
// are written otherwise ("007", "+5"), are stored as they are. Version 1 packs still read.
TEST(ArchiveFiles, RowsEntriesRestoreTheIndexColumn) {
  const std::string head = "memhier-trace 1\nkind fine\ncolumns index latency\ndata\n";
  std::map<std::string, std::string> files = {
      {"steps.trace", head + "0 440\n32 33\n64 33\n96 263\nend\n"},
      {"down.trace", head + "-5 1 0\n-7 2 1\n-9 3 0\nend\n"},
      {"jump.trace", head + "0 1\n1 1\n5 1\nend\n"},
      {"zeros.trace", head + "007 1\n8 1\n9 1\nend\n"},
      {"short.trace", head + "0 1\n1 1\nend\n"},
      {"nodata", "0 1\n1 2\n2 3\n"}};
  const std::string p = make_pack(files);
  EXPECT_EQ(p.rfind("memhier-pack 2\n", 0), 0u);
  // the rows entries: the body without "0 ", "32 ", "64 ", "96 " (11 bytes fewer)
  EXPECT_NE(p.find("rows " + std::to_string(files["steps.trace"].size() - 11) + " 0 32 4 steps.trace\n"), std::string::npos) << p;
  EXPECT_NE(p.find(" -5 -2 3 down.trace\n"), std::string::npos) << p;
  for (const char* plain : {"jump.trace", "zeros.trace", "short.trace", "nodata"})
    EXPECT_NE(p.find("file " + std::to_string(files[plain].size()) + " " + plain + "\n"), std::string::npos) << plain << "\n" << p;
  EXPECT_EQ(parse_pack(p, "t"), files);
  EXPECT_EQ(parse_pack("memhier-pack 1\nfile 3 a\nabcend\n", "t").at("a"), "abc");
  // a rows entry is version 2 only, and must hold its rows
  EXPECT_THROW(parse_pack("memhier-pack 1\nrows 3 0 1 1 a\nabcend\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_pack("memhier-pack 2\nrows 12 0 1 3 a\nx\ndata\n1\n2\nend\n", "t"), std::runtime_error);
}

TEST(ArchiveFiles, DamagedPacksAreRejectedWithTheirName) {
  const std::string p = make_pack({{"a.trace", "0123456789"}});
  EXPECT_THROW(parse_pack("not a pack\n", "x.pack"), std::runtime_error);
  EXPECT_THROW(parse_pack(p.substr(0, p.size() - 8), "x.pack"), std::runtime_error);  // body cut
  EXPECT_THROW(parse_pack(p.substr(0, p.size() - 4), "x.pack"), std::runtime_error);  // no end line
  try {
    parse_pack("memhier-pack 2\nfile 3 ../evil\nabcend\n", "x.pack");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.pack"), std::string::npos);
  }
}

TEST(ArchiveFiles, GzipAndPlainReadTheSame) {
  const fs::path d = scratch("gz");
  const std::string text = "{\"context\": {}, \"benchmarks\": []}\n";
  write(d / "plain.json", text);
  write(d / "z.json", text);
  ASSERT_EQ(std::system(("gzip -n -f " + (d / "z.json").string()).c_str()), 0) << "gzip needed for this test";
  EXPECT_EQ(read_file_maybe_gz((d / "plain.json").string()), text);
  EXPECT_EQ(read_file_maybe_gz((d / "z.json.gz").string()), text);
  EXPECT_EQ(existing_maybe_gz((d / "z.json").string()), (d / "z.json.gz").string());
  EXPECT_EQ(existing_maybe_gz((d / "none.json").string()), "");
  write(d / "bad.gz", std::string("\x1f\x8b garbage", 10));
  EXPECT_THROW(read_file_maybe_gz((d / "bad.gz").string()), std::runtime_error);
}

TEST(ArchiveFiles, FilesOfADirectoryComeFromItsPackWhenTheDirectoryIsGone) {
  const fs::path d = scratch("pack");
  write(d / "traces.pack", make_pack({{"x.trace", "hello"}}));
  EXPECT_EQ(read_archived_file((d / "traces").string(), "x.trace").value_or("?"), "hello");
  EXPECT_FALSE(read_archived_file((d / "traces").string(), "y.trace").has_value());
  fs::create_directories(d / "plain");
  write(d / "plain" / "x.trace", "plain file");
  EXPECT_EQ(read_archived_file((d / "plain").string(), "x.trace").value_or("?"), "plain file");
}

TEST(ArchiveFiles, AnArchiveDirectoryExpandsToItsRunsInOrder) {
  const fs::path d = scratch("archive");
  write(d / "bench.json.gz", "");
  write(d / "refine-1.json", "");
  write(d / "refine-2.json.gz", "");
  write(d / "refine-4.json", "");  // after a gap: not a round of this archive
  const auto v = expand_archive_inputs({d.string(), "other.json"});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], (d / "bench.json.gz").string());
  EXPECT_EQ(v[1], (d / "refine-1.json").string());
  EXPECT_EQ(v[2], (d / "refine-2.json.gz").string());
  EXPECT_EQ(v[3], "other.json");
  EXPECT_THROW(expand_archive_inputs({scratch("empty").string()}), std::runtime_error);
}
