// Pure fits behind the throughput sections: the shared-memory bank-conflict law, plateaus of a
// bandwidth-by-working-set curve, and least squares. No CUDA, no JSON.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memhier::analysis {

// Wavefronts (serialized bank passes) one warp's access takes when lane l reads the access-width
// element l x stride: the warp is split into phases of banks x bank_width bytes of requests; in a
// phase each lane touches width / bank_width bank words (at least one); lanes touching the same
// bank word share it (broadcast); a phase takes as many passes as its busiest bank has distinct
// words. For 4-byte words on 32 x 4-byte banks this is gcd(stride, 32) (stride 0: 1).
int bank_wavefronts(std::int64_t stride, int width_bytes, int banks, int bank_width_bytes, int lanes = 32);

struct StrideSample {
  int width_bytes = 4;
  std::int64_t stride = 0;
  double latency_cycles = 0;
};

struct BankLawFit {
  bool ok = false;
  std::string reason;            // why not, when !ok
  int banks = 0;
  int bank_width_bytes = 0;
  double base_cycles = 0;        // latency at one wavefront (narrowest access width)
  std::map<int, double> base_by_width;  // intercept per access width (bytes)
  double cycles_per_wavefront = 0;
  double rms_residual = 0;       // cycles
  double r2 = 0;
  struct Departure {
    int width_bytes;
    std::int64_t stride;
    double measured, predicted;
    int wavefronts;
  };
  std::vector<Departure> departures;  // |residual| > max(3 cycles, 10 % of the prediction)
  double runner_up_rms = 0;           // best rms of any other (banks, width) candidate
};

// Fits latency = base[width] + per_wavefront x (wavefronts - 1) (one slope, an intercept per width) for each candidate bank count
// (8, 16, 32, 64) and bank width (4, 8 bytes); the candidate with the smallest residual wins (ties
// within 2 % go to the fewer wavefront-model parameters: more banks x narrower width is not
// preferred, the smaller banks x width product is). Needs at least 8 samples and a slope > 0.
BankLawFit fit_bank_law(const std::vector<StrideSample>& samples);

struct Plateau {
  std::size_t first = 0, last = 0;  // indices into the sorted curve
  double level = 0;                 // median value
};

// Splits a curve (x ascending) into plateaus: a point starts a new plateau when it differs from
// the current plateau's median by more than `rel_step` (relative) and the next point agrees with
// it (a lone outlier does not split). Returns at least one plateau for a non-empty curve.
std::vector<Plateau> find_plateaus(const std::vector<double>& y, double rel_step = 0.15);

struct LineFit {
  double a = 0, b = 0, r2 = 0, rms = 0;
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace memhier::analysis
