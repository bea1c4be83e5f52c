// memhier-compare's inputs: an archive directory (bench.json plain or .gz, topology.json when
// present) or a bench.json file.
#include "analysis/gate/compare.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "analysis/report/topology_schema.hpp"
#include "common/archive_files.hpp"

namespace fs = std::filesystem;

namespace memhier::analysis {

CompareInput load_compare_input(const std::string& path) {
  CompareInput in;
  in.label = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::runtime_error(path + ": no such file or directory");
  std::string bench_path = path, topo_path;
  if (fs::is_directory(path, ec)) {
    bench_path = existing_maybe_gz((fs::path(path) / "bench.json").string());  // plain or .gz
    if (bench_path.empty())
      throw std::runtime_error(path + ": a directory without bench.json (not a memhier archive)");
    topo_path = (fs::path(path) / "topology.json").string();
    if (!fs::exists(topo_path, ec)) topo_path.clear();
  }
  in.bench = load_bench_json(bench_path);
  if (!topo_path.empty()) {
    std::ifstream f(topo_path);
    if (!f) throw std::runtime_error(topo_path + ": cannot open");
    try {
      nlohmann::json t = nlohmann::json::parse(f);
      if (!t.is_object() || !t.contains("schema") || !t["schema"].is_string() ||
          t["schema"].get<std::string>().rfind("memhier-topology/", 0) != 0)
        throw std::runtime_error(topo_path + ": not a memhier topology report (no schema memhier-topology/N)");
      upgrade_topology(t);  // memhier-topology/1 read as /2: a /1 and a /2 archive differ in no field by the shape
      in.topology = std::move(t);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number beyond a double (out_of_range 406)
      throw std::runtime_error(topo_path + ": not valid JSON (" + std::string(e.what()) + ")");
    }
  }
  return in;
}

}  // namespace memhier::analysis
