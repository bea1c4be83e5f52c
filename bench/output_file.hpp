// --benchmark_out without a truncated file, ever: Google Benchmark writes into a temporary file
// beside the target (<out>.incomplete-<pid>) and memhier-bench renames it onto the target when
// the run has finished (after adding the end-of-run context). An interrupted run (SIGINT,
// SIGTERM, SIGHUP), a run that stops with an error, or a crash leaves the previous file
// untouched; the temporary file is removed on a signal or an error exit (after SIGKILL it stays,
// with its pid in the name).
#pragma once
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

}  // namespace memhier
