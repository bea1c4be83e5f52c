// parallel_for: fn(i) for i in [0, n) on up to hardware_concurrency threads (at most 16), each index
// exactly once. Callers write only to slot i of their own output, so the result does not depend on
// the number of threads or their order (the analyzer stays deterministic); when calls throw, the
// exception of the lowest index is rethrown (the same error as a serial loop's first).
// MEMHIER_THREADS=N bounds the threads (1: serial).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace memhier::analysis {

inline unsigned analysis_threads() {
  static const unsigned n = [] {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    if (const char* v = std::getenv("MEMHIER_THREADS")) {
      const long k = std::strtol(v, nullptr, 10);
      if (k >= 1) hw = std::min<unsigned>(hw, static_cast<unsigned>(k));
    }
    return std::min(hw, 16u);
  }();
  return n;
}

template <typename Fn>
void parallel_for(std::size_t n, Fn&& fn) {
  const std::size_t threads = std::min<std::size_t>(analysis_threads(), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::size_t error_index = n;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (i < error_index) error = std::current_exception(), error_index = i;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace memhier::analysis
