// Checks of the Google Benchmark flags memhier-bench passes through. Google Benchmark 1.7/1.8
// accept some bad values silently (--benchmark_color=purple, --benchmark_enable_random_interleaving=maybe),
// abort on others (--benchmark_repetitions=-3), print the whole usage and exit 0 on others
// (--benchmark_time_unit=xx), and leave a value they cannot parse on the command line, where it
// reads as an unknown flag. Each check returns "" or one line saying what is wrong and what is
// allowed. The same values may come from the environment (BENCHMARK_FORMAT=...), checked alike.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace memhier {

// arg: one command-line argument starting with "--benchmark_" or "--v". "" when fine (or not a
// Google Benchmark flag at all: the caller reports unknown flags).
std::string check_benchmark_flag(const std::string& arg);
// Every BENCHMARK_<FLAG> environment variable Google Benchmark reads, checked like the flag.
std::string check_benchmark_environment();
// Truthy as Google Benchmark reads a bool flag ("", 1, t, true, y, yes, on; case-insensitive).
bool benchmark_flag_true(const std::string& value);
// --benchmark_context=k=v,k=v: the pairs (checked by check_benchmark_flag).
std::map<std::string, std::string> benchmark_context_pairs(const std::string& value);
// A number of seconds for memhier's own --memhier_budget_s: "" when fine.
std::string check_budget_seconds(const std::string& value, double* out);
// A non-negative integer (--memhier_progress): "" when fine.
std::string check_count(const std::string& flag, const std::string& value, long* out);

}  // namespace memhier
