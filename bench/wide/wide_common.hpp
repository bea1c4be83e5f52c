// Shared by both implementations of whole-memory chases (bench/wide/wide_cuda.cu, bench/wide/wide_sim.cpp):
// request checks, the address map of each allocation mode, and the statistics of a result.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/backends/backend.hpp"

namespace memhier {

// Recorded accesses are summed in kWideBlocks consecutive blocks (batch means: the interval of the
// mean holds even though neighbouring accesses of a cyclic chase are not independent).
constexpr std::uint64_t kWideBlocks = 64;
constexpr std::uint32_t kWideHistBins = 1024;

// The chain with the address map of the request's allocation mode (chunk and gap from `limits`).
WideChain wide_chain_of(const WideChaseRequest& r, const WideLimits& limits);
// Logical bytes the request needs mapped.
std::uint64_t wide_request_bytes(const WideChaseRequest& r);
// Empty when the request can run under `limits`, else why not.
std::string check_wide_request(const WideChaseRequest& r, const WideLimits& limits);
// Accesses per block: the request's, else iters / 64 rounded up (at most 64 blocks).
std::uint64_t wide_block_len(const WideChaseRequest& r);
// Fills latency_cycles, latency_sd_cycles, block_means and accesses from the raw sums.
void finish_wide_stats(WideChaseResult& o, double sum, double sumsq, const std::vector<double>& block_sums,
                       std::uint64_t iters, std::uint64_t block_len);

}  // namespace memhier
