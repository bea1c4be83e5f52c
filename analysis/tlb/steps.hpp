// TLB sweep data and its latency steps (docs/methodology.md, inference "TLBs"). The tlb family
// measures, per allocation mode and stride, the mean latency of whole-memory chases at growing
// footprints, each with the 95 % interval of its mean (batch means over 64 blocks). A TLB level
// shows as a rise of that curve where the footprint outgrows its reach: all accesses pay its miss
// penalty once every access has an entry of its own (stride >= the reach of one entry), the
// fraction stride / entry_reach of them below. Rises are found by binary segmentation of each
// curve into plateaus, judged against the measured noise: the interval of each mean plus the
// scatter between footprints beyond it, estimated from all curves, plus the placement of the data
// behind a few slots (near and far L2 partitions, slices: a footprint of n slots averages n slots'
// placements, so its mean scatters by sigma/sqrt(n); on the H100 two slots scatter by ~1 cycle).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "analysis/core/stats.hpp"

namespace memhier::analysis {

struct TlbFootprint {
  std::uint64_t bytes = 0, slots = 0;
  double mean = 0;          // cycles per access (overhead removed)
  double se = 0;            // standard error of the mean (from its 95 % interval)
  double accesses = 0;
  std::vector<WeightedValue> samples;  // histogram or fine latencies (when a trace was kept)
  std::vector<std::string> evidence;   // benchmark names
  std::vector<std::pair<double, double>> runs;  // each run pooled here: (mean, se), in reading order
};

struct TlbSeries {
  std::string alloc;        // malloc, vmm, vmm_gap
  std::uint64_t stride = 0;
  std::vector<TlbFootprint> points;  // by footprint, repetitions pooled
};

// The tlb entries of the dataset (count and fine runs of every allocation mode), by (alloc, stride).
std::vector<TlbSeries> tlb_series(const Dataset& data);

// A rise of one curve: the footprint brackets where it starts, its height with the interval.
struct TlbRise {
  std::string alloc;
  std::uint64_t stride = 0;
  std::uint64_t lo = 0, hi = 0;  // the plateau's last footprint and the first above it: reach in [lo, hi)
  double before = 0, after = 0;  // plateau means below and above (cycles)
  double before_se = 0;          // standard error of the plateau below
  double height = 0, ci95 = 0;   // after - before, and the half-width of its 95 % interval
  double z = 0;                  // height / its standard error
  std::size_t i_lo = 0, i_hi = 0;  // indices of lo and of the top plateau's first point
  bool shared = false;           // also the rise of another level (their reaches coincide at this stride)
  bool combined = false;         // heights from here on hold another level's misses too (levels.cpp, mixed_from)
  std::vector<std::string> evidence;
};

struct TlbSteps {
  double tau = 0;             // scatter between footprints beyond each mean's own interval (cycles)
  double placement = 0;       // scatter of one slot's data placement (cycles): n slots scatter by placement/sqrt(n)
  double z_crit = 0;          // a rise must exceed this many standard errors
  double resolution = 0;      // smallest step detectable between two single footprints (cycles)
  std::map<std::pair<std::string, std::uint64_t>, std::vector<TlbRise>> rises;  // by (alloc, stride)
  // Each curve's smallest and largest footprint (bytes), by (alloc, stride): where a rise could show.
  std::map<std::pair<std::string, std::uint64_t>, std::pair<std::uint64_t, std::uint64_t>> extent;
  std::vector<std::string> notes;  // falls, outliers
};

TlbSteps find_tlb_steps(const std::vector<TlbSeries>& series);

}  // namespace memhier::analysis
