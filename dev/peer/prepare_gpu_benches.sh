#!/usr/bin/env bash
# Exports what gpu-benches' gpu-l2-cache needs (te42kyfo/gpu-benches, the peer figure of
# docs/methodology.md, section requests_sharing_partitions) from a fetched mirror into the ignored
# folder .peer/gpu-benches, unchanged, plus a stub of its metrics header under .peer/gpu-benches/stub
# (see below). dev/device/part_mshr.sh builds and runs it from $ROOT/.peer/gpu-benches.
#
# usage: dev/peer/prepare_gpu_benches.sh [MIRROR_GIT_DIR] [COMMIT]
#   MIRROR_GIT_DIR default: $GPU_BENCHES_MIRROR or /work/.mirror/te42kyfo+gpu-benches/repo
#   COMMIT         default: HEAD of the mirror
# No code of the peer enters the project's tracked files: .peer/ is in .gitignore.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -euo pipefail
MIRROR=${1:-${GPU_BENCHES_MIRROR:-/work/.mirror/te42kyfo+gpu-benches/repo}}
case "$MIRROR" in /*) ;; *) MIRROR=$(pwd)/$MIRROR ;; esac  # relative to the calling directory
cd "$(dirname "$0")/../.."
REV=${2:-HEAD}
OUT=.peer/gpu-benches
if ! git --git-dir="$MIRROR" rev-parse --verify -q "$REV^{commit}" >/dev/null; then
  echo "prepare_gpu_benches: no git mirror with commit $REV at $MIRROR (fetch github:te42kyfo/gpu-benches first)" >&2
  exit 2
fi
commit=$(git --git-dir="$MIRROR" rev-parse "$REV^{commit}")
rm -rf "$OUT"
mkdir -p "$OUT"
# gpu-l2-cache/main.cu includes ../MeasurementSeries.hpp, ../dtime.hpp, ../gpu-error.h and
# ../gpu-metrics/gpu-metrics.hpp (which includes cuda_metrics/measureMetricPW.hpp, CUPTI-based).
git --git-dir="$MIRROR" archive "$commit" LICENSE README.md MeasurementSeries.hpp dtime.hpp gpu-error.h \
  gpu-l2-cache gpu-metrics/gpu-metrics.hpp gpu-metrics/cuda_metrics | tar -x -C "$OUT"
# The stub: gpu-l2-cache calls only initMeasureMetric(), which the peer defines empty
# (gpu-metrics/cuda_metrics/measureMetricPW.hpp: `void initMeasureMetric(){};`); its metric calls
# are commented out. The stub defines the same empty function, so the peer builds without CUPTI and
# runs exactly the code it runs with it.
mkdir -p "$OUT/stub/gpu-metrics"
cat > "$OUT/stub/gpu-metrics/gpu-metrics.hpp" <<'H'
// memhier stub (dev/peer/prepare_gpu_benches.sh): the peer's initMeasureMetric is empty too.
#pragma once
inline void initMeasureMetric() {}
H
{
  echo "repository te42kyfo/gpu-benches"
  echo "commit $commit"
  echo "exported $(date -u +%Y-%m-%dT%H:%M:%SZ) by dev/peer/prepare_gpu_benches.sh"
} > "$OUT/SOURCE"
echo "prepare_gpu_benches: $OUT from $commit ($(find "$OUT" -type f | wc -l) files)"
