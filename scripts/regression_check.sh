#!/usr/bin/env bash
# Regression check of one GPU against its newest archive: runs `memhier-bench --plan=quick` into a
# temporary directory and compares it (memhier-compare --common-only) with the newest archive of
# the same GPU under results/. docs/ci.md shows how to wire it into a CI job.
#
# usage: scripts/regression_check.sh [--build DIR] [--results DIR] [--device cuda:N]
#                                    [--threshold F] [--repetitions N] [--format console|markdown|json]
#                                    [-o FILE] [--keep DIR]
#   --build        where memhier-bench and memhier-compare are (default build/release)
#   --results      archive tree (default results/)
#   --threshold    relative change that counts (default 0.05, memhier-compare's)
#   --repetitions  --benchmark_repetitions for the quick run (>= 2 enables the spread / U test)
#   --keep DIR     keep the quick run's bench.json and traces in DIR
# exit: memhier-compare's (0 pass, 1 worse, 3 structure changed, 4 different GPU), 2 error,
# 77 skipped (no GPU, no memhier-bench, or no archive of this GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
build=$ROOT/build/release results=$ROOT/results device=cuda:0 threshold=0.05 reps=1 format=console out="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?}; shift 2 ;;  --build=*) build=${1#*=}; shift ;;
    --results) results=${2:?}; shift 2 ;;  --results=*) results=${1#*=}; shift ;;
    --device) device=${2:?}; shift 2 ;;  --device=*) device=${1#*=}; shift ;;
    --threshold) threshold=${2:?}; shift 2 ;;  --threshold=*) threshold=${1#*=}; shift ;;
    --repetitions) reps=${2:?}; shift 2 ;;  --repetitions=*) reps=${1#*=}; shift ;;
    --format) format=${2:?}; shift 2 ;;  --format=*) format=${1#*=}; shift ;;
    -o) out=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;  --keep=*) keep=${1#*=}; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "regression_check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
skip() { echo "SKIP: $*"; exit 77; }
BENCH=$build/memhier-bench COMPARE=$build/memhier-compare
[ -x "$COMPARE" ] || { echo "regression_check.sh: $COMPARE missing (build memhier-compare)" >&2; exit 2; }
[ -x "$BENCH" ] || skip "no memhier-bench in $build (built without CUDA?)"
case "$device" in cuda:*) idx=${device#cuda:} ;; *) echo "regression_check.sh: --device must be cuda:N" >&2; exit 2 ;; esac

# The GPU: name and compute capability from nvidia-smi, slug as memhier-bench writes it.
command -v nvidia-smi >/dev/null 2>&1 || skip "no GPU (nvidia-smi not found)"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$idx" 2>/dev/null | head -1) || true
[ -n "$name" ] || skip "no GPU $device (nvidia-smi lists none)"
slug=$(printf '%s' "$name" | tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-*//' -e 's/-*$//')
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i "$idx" 2>/dev/null | head -1 | tr -d ' .') || cc=""
sm_args=()
[[ "$cc" =~ ^[0-9]+$ ]] && sm_args=(--sm "sm_$cc")
base=$(python3 scripts/archive_index.py "$results" --newest --gpu-slug "$slug" "${sm_args[@]}") ||
  skip "no archive of $name ($slug) under $results; run scripts/characterize.sh once"
echo "regression_check: $name, base archive $base" >&2

tmp=${keep:-$(mktemp -d)}
mkdir -p "$tmp"
[ -n "$keep" ] || trap 'rm -rf "$tmp"' EXIT
"$BENCH" --device="$device" --plan=quick --benchmark_repetitions="$reps" --benchmark_out="$tmp/bench.json" \
  --benchmark_out_format=json >"$tmp/bench.log" 2>&1 || {
  tail -20 "$tmp/bench.log" >&2
  echo "regression_check.sh: memhier-bench failed" >&2
  exit 2
}
# the quick run's headline (topology.json) so that the gate judges figures, not single counters
[ -x "$build/memhier-infer" ] && "$build/memhier-infer" --allow-errors "$tmp/bench.json" -o "$tmp/topology.json" >/dev/null 2>&1
args=(--common-only --threshold="$threshold" --format="$format")
[ -n "$out" ] && args+=(-o "$out")
"$COMPARE" "${args[@]}" "$base" "$tmp"
