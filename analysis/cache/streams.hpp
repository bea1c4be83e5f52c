// The replacement policy tested on random streams (docs/methodology.md, inference "Replacement",
// "From random streams"; the cache_streams family, issue 30 item 2): per candidate policy of
// common/policy.hpp, P(evicted | k) predicted by Monte-Carlo over one set of the decided geometry for
// exactly the trials that ran, scored against the measured fractions (binomial z per point, chi2),
// then joined with the access sequences' verdict: `replacement` names a policy only where it predicts
// both.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "analysis/core/field.hpp"

namespace memhier::analysis {

struct CacheJob;

// One measured point: the entries of one cache, variant, loads and k (their trials added), and which
// count: "evicted" (the timed target; two_ages: T1), "evicted_second" (two_ages: T2) or "mid_missed"
// (mid: the re-read after k/2 lines).
struct StreamPoint {
  std::string variant, loads, measure;
  std::uint64_t k = 0, pool_bytes = 0, line_bytes = 0;
  double trials = 0, observed = 0;  // observed: the count (fraction = observed / trials)
  // How the trials began (counters warm_lines, trials_per_sm, start_empty): start_empty 1 when the
  // cache held none of the array's lines at the launch's start (the counter, or else cache_sequences'
  // check:launch of the path: kept_across_launch 0); then the prediction replays the launch: the
  // warm stream, the hit references, the SM's earlier trials, this one. Else (0 or -1: not known)
  // the set starts in the state a long random stream leaves.
  double warm_lines = 0, trials_per_sm = 1, targets_per_trial = 1;
  int start_empty = -1;
  std::vector<std::string> names;   // the benchmarks
};

// The cache_streams points of cache `cache` (the name's cache: key). Entries at carveout `primary`
// only where some are (primary < 0: all). *note: what was left out and why ("" when nothing).
std::vector<StreamPoint> stream_points(const Dataset& data, const std::string& cache, int primary,
                                       std::string* note = nullptr);

// A candidate's prediction per point (probability of the count per trial) and its Monte-Carlo variance.
struct StreamPrediction {
  std::vector<double> p, var;
};
// Monte-Carlo over one set of `sets` x `ways` (docs/methodology.md): `runs` per point (`runs_per_k`
// for mid and two_ages, whose runs serve one k each; 0: `runs`); `seed` fixes the draws (the same for
// every policy: common random numbers). Throws std::invalid_argument on a policy that cannot serve
// `ways`.
// density: the stream lines' arrival rate into one set in units of 1/S (1: an index that spreads
// random lines evenly over the decided sets).
StreamPrediction predict_streams(const std::string& policy, std::uint32_t sets, std::uint32_t ways,
                                 const std::vector<StreamPoint>& points, unsigned runs, std::uint64_t seed,
                                 unsigned runs_per_k = 0, double density = 1);

struct StreamFit {
  std::string policy;
  std::vector<double> predicted, z;  // per point: p' (with the noise) and z
  double chi2 = 0, worst_z = 0, mean_abs_miss = 0;
  std::size_t dof = 0;
  unsigned runs = 0;  // per point (the screen's where the candidate stopped there)
  bool fits = false;
  std::optional<bool> fits_sequences;  // null: no sequence verdict
  // The stream density the scores are at (1: 1/S per line); another where it was fitted for a
  // sequence-consistent candidate that did not fit at 1 (then dof counts it: one point fewer).
  double density = 1;
};
// Every candidate scored (in stages of more runs, stream_stages; the nearest always to the last),
// sorted best first (fits first, then chi2 / dof, then candidate order). noise: spurious misses per access.
std::vector<StreamFit> fit_streams(const std::vector<StreamPoint>& points, std::uint32_t sets, std::uint32_t ways,
                                   const std::vector<std::string>& candidates, double noise);
// Monte-Carlo runs per stage: {runs of fresh / reread* (shared by their ks), runs per k of mid /
// two_ages}; the last stage's scores are the ones that decide. Its runs: 4 x the most trials of a
// point (the model's variance at most a quarter of the measurement's), within [kStreamRunsMin,
// kStreamRuns].
constexpr unsigned kStreamRuns = 4000, kStreamRunsMin = 1000;
std::vector<std::pair<unsigned, unsigned>> stream_stages(const std::vector<StreamPoint>& points);
constexpr double kStreamWorstZ = 4, kStreamScreenZ = 6, kStreamChi2Alpha = 0.001;
// The cache's curves against each other, before any model of the cache: the fresh target after j
// lines and mid's re-read after the same j lines (k = 2j; same loads and pool) begin from one state
// (mid's trials stream more lines only after that point, or in the launch's earlier trials). Per pair
// z of (fresh - mid) - (what a candidate predicts for the same difference; both variances), combined
// over the pairs (sum / sqrt(pairs)), for each candidate of `fits` scored at the last stage. A
// sentence (the largest pair, the smallest combined |z|) only where every one of them is refuted
// (combined |z| > kStreamWorstZ, one sign).
struct OwnCurves {
  std::size_t pairs = 0;        // 0: no pair measured, or no candidate at the last stage
  double z_min = 0, z_max = 0;  // the combined z over those candidates
  std::string nearest;          // the candidate of the smallest combined |z|
  std::string sentence;         // "" unless every candidate is refuted
};
OwnCurves own_curves_disagree(const std::vector<StreamPoint>& pts, const std::vector<StreamFit>& fits);
// The 1 - alpha quantile of chi2 with `dof` degrees of freedom (Wilson-Hilferty).
double chi2_quantile(std::size_t dof, double alpha);

// What the sequences (or the P-chase) said: decided, and the candidates they found consistent.
struct SequenceVerdict {
  bool decided = false;
  std::vector<std::string> consistent;  // in the sequence decision's order
  std::string source;                   // "access sequences", "P-chase (replacement_cyclic_class)"
};
// Writes cache.streams and, where the verdict decided, the joint `replacement` (docs/methodology.md).
// Nothing at all where the data hold no cache_streams entry of `name`. Returns true when it wrote.
bool judge_streams(nlohmann::json& cache, const Dataset& data, const std::string& name, int primary, double noise,
                   const SequenceVerdict& seq);
// The same for a cache job (its sequence verdict from the job, else replacement_cyclic_class).
void judge_streams(CacheJob& job);
// The L2's streams (topology t after merge_l2_story): the targets of the reader's own partition
// (the benchmark's near_* counters) on one set of that partition (l2_sets' sets over
// l2_partitions' partitions, its ways), joined with l2_sets' policy verdict into caches.l2.streams
// and caches.l2.replacement; the stream density fitted for every sequence-consistent candidate (the
// reader's partition holds its own lines and copies of the other's). Nothing without L2 entries.
void judge_l2_streams(nlohmann::json& t, const Dataset& data);
// A file that keeps each judgement by its inputs (the points, geometry, noise, the sequences'
// verdict, the replacement before, the analyzer's revision): an analysis of the same stream data
// reuses it (memhier-infer --streams-cache; characterize.sh's rounds and last analysis). "" : none.
void set_stream_memo(const std::string& path);
// false: judge_streams(CacheJob&) does nothing (memhier-infer --skip-streams: the request rounds of
// characterize.sh; the judgement decides no request, and the early and last analyses make it).
void set_stream_judgement(bool on);

}  // namespace memhier::analysis
