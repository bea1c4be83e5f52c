// Reads a memhier archive through the installed library: every JSON file of the archive (plain or
// gzip) into a Dataset, one chase's trace from the trace pack, and the gate run on the archive
// against itself. Prints one line per step; tests/cli/install/run_consumer_test.sh checks them
// against what Python reads from the same files.
#include <cstdio>
#include <exception>
#include <string>

#include "analysis/core/dataset.hpp"
#include "analysis/gate/gate.hpp"
#include "common/archive_files.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: memhier-consumer ARCHIVE-DIR\n");
    return 2;
  }
  try {
    const std::string archive = argv[1];
    const auto inputs = memhier::expand_archive_inputs({archive});
    const auto data = memhier::analysis::Dataset::load(inputs, /*allow_errors=*/true);
    std::size_t entries = 0;
    for (const auto& run : data.runs()) entries += run.entries.size();
    std::printf("library %s: %zu files, %zu benchmarks, gpu '%s'\n", MEMHIER_VERSION, inputs.size(), entries,
                data.runs().front().context_or("gpu_name").c_str());
    std::size_t traced = 0, samples = 0;
    for (const auto& chase : data.chases())
      if (const auto* t = data.trace(chase)) {
        ++traced;
        samples += t->kind == memhier::Trace::Kind::fine ? t->latency.size() : t->hist.total();
      }
    std::printf("traces: %zu chases, %zu samples\n", traced, samples);
    const auto in = memhier::analysis::load_compare_input(archive);
    const auto gate = memhier::analysis::gate_compare(in, in, {});
    std::printf("gate against itself: exit %d, %zu rows, headline %s\n",
                memhier::analysis::gate_exit_code(gate, true, true), gate.rows.size(), gate.headline ? "yes" : "no");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memhier-consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
