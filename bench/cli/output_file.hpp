// --benchmark_out without a truncated file, ever: Google Benchmark writes into a temporary file
// beside the target (<out>.incomplete-<pid>) and memhier-bench renames it onto the target when
// the run has finished (after adding the end-of-run context). An interrupted run (SIGINT,
// SIGTERM, SIGHUP), a run that stops with an error, or a crash leaves the previous file
// untouched; the temporary file is removed on a signal or an error exit (after SIGKILL it stays,
// with its pid in the name).
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace memhier {

// Creates the temporary file (so that an unwritable place fails now, with the reason) and
// installs the signal handlers that remove it. Returns its name; throws std::runtime_error.
std::string begin_atomic_output(const std::string& target);
// Renames the temporary file onto the target; throws std::runtime_error.
void commit_atomic_output();
// The same temporary file again (emptied), for a later run of the process onto another target
// (--memhier_serve: each refinement round's output); throws std::runtime_error.
void rearm_atomic_output(const std::string& temp, const std::string& target);
// Removes the temporary file (an error exit). Safe to call when there is none.
void abandon_atomic_output();

// Reading back and replacing outputs (memhier-bench adds context to its JSON after a run;
// --memhier_serve merges runs): the whole text of a file, or std::runtime_error("cannot read P");
// Google Benchmark JSON (NaN written as null), or std::runtime_error("<what> is not valid JSON");
// a file written beside the target and renamed onto it (a reader sees the old or the new one).
std::string read_whole_file(const std::filesystem::path& p);
nlohmann::json parse_benchmark_json(const std::string& text, const std::string& what);
void replace_whole_file(const std::filesystem::path& target, const std::string& text);

}  // namespace memhier
