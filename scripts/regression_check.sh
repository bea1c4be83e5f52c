#!/usr/bin/env bash
# Regression check of one GPU against its newest archive: runs `memhier-bench --plan=quick` into a
# temporary directory and compares it (memhier-compare --common-only) with the newest archive of
# the same GPU under results/. docs/ci.md shows how to wire it into a CI job.
# Usage: --help. Every path argument is taken relative to the calling directory.
set -uo pipefail
START=$(pwd)
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$START" "$1" ;; esac; }
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# Installed (cmake --install): this script in P/share/memhier/scripts, the programs in P/bin, the
# archives under ./results of the calling directory (where the installed characterize.sh writes).
if [ ! -f "$ROOT/CMakeLists.txt" ] && [ -x "$ROOT/../../bin/memhier-compare" ]; then
  build=$(cd "$ROOT/../../bin" && pwd) results=$START/results
else
  build=$ROOT/build/release results=$ROOT/results
fi
usage() {
  cat <<USAGE
usage: regression_check.sh [--build DIR] [--results DIR] [--device cuda:N] [--threshold F]
                           [--repetitions N] [--format console|markdown|json] [-o FILE] [--keep DIR]

Regression check of one GPU against its newest archive: runs memhier-bench --plan=quick and
compares it (memhier-compare --common-only) with the newest archive of the same GPU.

  --build DIR        where memhier-bench and memhier-compare are (default $build)
  --results DIR      the archive tree (default $results)
  --device cuda:N    the GPU (default cuda:0)
  --threshold F      relative change that counts (default 0.05, memhier-compare's)
  --repetitions N    --benchmark_repetitions of the quick run (>= 2 enables the spread / U test)
  --format F         console (default), markdown or json
  -o FILE            write the comparison to FILE
  --keep DIR         keep the quick run's bench.json and traces in DIR

Paths are taken relative to the calling directory. Exit status: memhier-compare's (0 pass,
1 worse, 3 structure changed, 4 different GPU), 2 error, 77 skipped (no GPU, no memhier-bench,
or no archive of this GPU).
USAGE
}
bad() { echo "regression_check.sh: $*" >&2; exit 2; }
# value FLAG "$@": the value after FLAG, or one line and exit 2
value() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || bad "$1 needs a value (see --help)"; printf '%s' "$2"; }
device=cuda:0 threshold=0.05 reps=1 format=console out="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(value "$@") || exit 2; build=$(abspath "$build"); shift 2 ;;
    --build=*) build=$(abspath "${1#*=}"); shift ;;
    --results) results=$(value "$@") || exit 2; results=$(abspath "$results"); shift 2 ;;
    --results=*) results=$(abspath "${1#*=}"); shift ;;
    --device) device=$(value "$@") || exit 2; shift 2 ;;  --device=*) device=${1#*=}; shift ;;
    --threshold) threshold=$(value "$@") || exit 2; shift 2 ;;  --threshold=*) threshold=${1#*=}; shift ;;
    --repetitions) reps=$(value "$@") || exit 2; shift 2 ;;  --repetitions=*) reps=${1#*=}; shift ;;
    --format) format=$(value "$@") || exit 2; shift 2 ;;  --format=*) format=${1#*=}; shift ;;
    -o) out=$(value "$@") || exit 2; out=$(abspath "$out"); shift 2 ;;
    --keep) keep=$(value "$@") || exit 2; keep=$(abspath "$keep"); shift 2 ;;
    --keep=*) keep=$(abspath "${1#*=}"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) bad "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || bad "--repetitions must be a positive integer, not '$reps'"
case "$format" in console|markdown|json) ;; *) bad "--format must be console, markdown or json, not '$format'" ;; esac
[[ "$threshold" =~ ^[0-9]*\.?[0-9]+$ ]] || bad "--threshold must be a number, not '$threshold'"
skip() { echo "SKIP: $*"; exit 77; }
BENCH=$build/memhier-bench COMPARE=$build/memhier-compare
[ -x "$COMPARE" ] || bad "$COMPARE missing (build memhier-compare, or give --build DIR)"
[ -x "$BENCH" ] || skip "no memhier-bench in $build (built without CUDA?)"
case "$device" in cuda:*) idx=${device#cuda:} ;; *) bad "--device must be cuda:N, not '$device'" ;; esac
[[ "$idx" =~ ^[0-9]+$ ]] || bad "--device must be cuda:N, not '$device'"

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
