#!/usr/bin/env bash
# Regression check of one GPU against its newest archive: characterizes the check plan (the full
# plan's benchmarks of the figures a check gates, exactly as the full plan measures them, with the
# refinement rounds: `characterize.sh --plan check`) into a temporary directory and compares it with
# the newest full archive of the same GPU under results/ (memhier-compare judges the figures both
# plans measure alike; the rest is "not comparable across plans"). docs/ci.md shows how to wire it
# into a CI job. Usage: --help. Every path argument is taken relative to the calling directory.
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
usage: regression_check.sh [--build-dir DIR] [--results DIR] [--device cuda:N] [--threshold F]
                           [--repetitions N] [--format console|markdown|json] [-o FILE] [--keep DIR]
                           [--baseline FLEET.json]

Regression check of one GPU against its newest archive: characterizes the check plan (the full
plan's benchmarks of the L1, constant caches, shared memory, DRAM read bandwidth and latency,
latency spectrum, L1 bandwidth and warp access, measured as the full plan measures them) and
compares it with the newest full archive of this board (its GPU UUID) under the results, else of
the same GPU model (memhier-compare). Boards of one model differ (H200s by 21 cycles of L2 miss
penalty): a board's own archive is its best base; --baseline takes a fleet's board-to-board
spread as SAME (docs/fleet.md).

  --build-dir DIR    where memhier-bench, memhier-infer and memhier-compare are (default $build;
                     --build DIR is the same)
  --results DIR      the archive tree holding the base (default $results)
  --device cuda:N    the GPU (default cuda:0)
  --threshold F      relative change that counts (default: memhier-compare's, 0.05)
  --repetitions N    --benchmark_repetitions of the check run (>= 2 adds the spread of repetitions)
  --format F         console (default), markdown or json
  -o FILE            write the comparison to FILE
  --keep DIR         keep the check run's archive (and its log) in DIR
  --baseline FILE    a fleet report (memhier-compare --fleet --format=json): a change within its
                     board-to-board spread is SAME

Paths are taken relative to the calling directory. Exit status: memhier-compare's (0 pass,
1 worse, 3 structure changed, 4 different GPU, 7 contended or throttled), 2 error, 77 skipped (no
GPU, no memhier-bench, or no archive of this GPU).
USAGE
}
bad() { echo "regression_check.sh: $*" >&2; exit 2; }
# value FLAG "$@": the value after FLAG, or one line and exit 2
value() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || bad "$1 needs a value (see --help)"; printf '%s' "$2"; }
device=cuda:0 threshold="" reps=1 format=console out="" keep="" baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build|--build-dir) build=$(value "$@") || exit 2; build=$(abspath "$build"); shift 2 ;;
    --build=*|--build-dir=*) build=$(abspath "${1#*=}"); shift ;;
    --results) results=$(value "$@") || exit 2; results=$(abspath "$results"); shift 2 ;;
    --results=*) results=$(abspath "${1#*=}"); shift ;;
    --device) device=$(value "$@") || exit 2; shift 2 ;;  --device=*) device=${1#*=}; shift ;;
    --threshold) threshold=$(value "$@") || exit 2; shift 2 ;;  --threshold=*) threshold=${1#*=}; shift ;;
    --repetitions) reps=$(value "$@") || exit 2; shift 2 ;;  --repetitions=*) reps=${1#*=}; shift ;;
    --format) format=$(value "$@") || exit 2; shift 2 ;;  --format=*) format=${1#*=}; shift ;;
    -o) out=$(value "$@") || exit 2; out=$(abspath "$out"); shift 2 ;;
    --keep) keep=$(value "$@") || exit 2; keep=$(abspath "$keep"); shift 2 ;;
    --keep=*) keep=$(abspath "${1#*=}"); shift ;;
    --baseline) baseline=$(value "$@") || exit 2; baseline=$(abspath "$baseline"); shift 2 ;;
    --baseline=*) baseline=$(abspath "${1#*=}"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) bad "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || bad "--repetitions must be a positive integer, not '$reps'"
case "$format" in console|markdown|json) ;; *) bad "--format must be console, markdown or json, not '$format'" ;; esac
[ -z "$threshold" ] || [[ "$threshold" =~ ^[0-9]*\.?[0-9]+$ ]] || bad "--threshold must be a number, not '$threshold'"
[ -z "$baseline" ] || [ -f "$baseline" ] || bad "--baseline $baseline: no such file"
skip() { echo "SKIP: $*"; exit 77; }
BENCH=$build/memhier-bench COMPARE=$build/memhier-compare
[ -x "$COMPARE" ] || bad "$COMPARE missing (build memhier-compare, or give --build-dir DIR)"
[ -x "$BENCH" ] || skip "no memhier-bench in $build (built without CUDA?)"
[ -x "$build/memhier-infer" ] || bad "$build/memhier-infer missing (build it, or give --build-dir DIR)"
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
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "$idx" 2>/dev/null | head -1 | tr -d ' ') || uuid=""
[ -n "$uuid" ] && sm_args+=(--prefer-board "$uuid")
said=$(mktemp)
base=$(python3 scripts/archive_index.py "$results" --newest --gpu-slug "$slug" --plan full "${sm_args[@]}" 2>"$said") || {
  rm -f "$said"; skip "no full archive of $name ($slug) under $results; run scripts/characterize.sh once"; }
board=$(sed 's/^archive_index.py: //' "$said"); rm -f "$said"
echo "regression_check: $name, base archive $base${board:+ ($board)}" >&2

t0=${EPOCHREALTIME/[.,]/}
tmp=${keep:-$(mktemp -d)}
mkdir -p "$tmp"
[ -n "$keep" ] || trap 'rm -rf "$tmp"' EXIT
rep_args=()
[ "$reps" -gt 1 ] && rep_args=(-- --benchmark_repetitions="$reps")
scripts/characterize.sh --device "$device" --plan check --no-plots --no-build --build-dir "$build" \
  --results "$tmp/results" "${rep_args[@]}" > "$tmp/characterize.log" 2>&1 || {
  tail -20 "$tmp/characterize.log" >&2
  echo "regression_check.sh: the check run failed (log above)" >&2
  exit 2
}
new=$(grep -o 'archive: .*' "$tmp/characterize.log" | tail -1 | cut -d' ' -f2)
[ -n "$new" ] && [ -d "$new" ] || bad "the check run left no archive ($tmp/characterize.log)"
args=(--common-only --format="$format")
[ -n "$threshold" ] && args+=(--threshold="$threshold")
[ -n "$baseline" ] && args+=(--baseline "$baseline")
[ -n "$out" ] && args+=(-o "$out")
rc=0
"$COMPARE" "${args[@]}" "$base" "$new" || rc=$?
t1=${EPOCHREALTIME/[.,]/}
echo "regression_check: $(grep -o 'done in [0-9.]* s' "$tmp/characterize.log" | tail -1 | sed 's/done in/measured and analyzed in/'), $(( (t1 - t0) / 1000000 )).$(( (t1 - t0) % 1000000 / 100000 )) s in all; memhier-compare exit $rc" >&2
exit $rc
