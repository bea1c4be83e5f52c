#!/usr/bin/env bash
# The twin round trip of issue 32 on one archive (tests/cli/twin.cmake; docs/simulator.md, "A twin of
# the GPU you measured"):
#   fields: memhier-infer --twin-config ARCHIVE -> twin.json; check_twin_config.py (decided values
#           copied, undetermined ones listed as defaulted); the characterization loop of
#           characterize.sh on the twin (infer_sim_loop.sh); twin_compare.py fields: every value the
#           archive decided must come back
#   curves: twin_compare.py run (every P-chase and TLB benchmark of the archive on the twin) and
#           curves --max-median PCT (paths matching an --except pattern exempt)
# usage: twin_roundtrip.sh <build dir> <archive> <work dir> fields|curves [curves options...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "$1" && pwd) ARCHIVE=$(cd "$2" && pwd) WORK=$3 MODE=$4
shift 4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
"$BUILD/memhier-infer" --twin-config "$ARCHIVE" -o twin.json
python3 "$HERE/check_twin_config.py" "$ARCHIVE/topology.json" twin.json
case $MODE in
  fields)
    bash "$HERE/infer_sim_loop.sh" "$BUILD" twin.json loop
    python3 "$ROOT/scripts/twin_compare.py" fields "$ARCHIVE/topology.json" loop/topology.json ;;
  curves)
    python3 "$ROOT/scripts/twin_compare.py" run "$ARCHIVE" twin.json --bench "$BUILD/memhier-bench" -o twin_bench.json
    python3 "$ROOT/scripts/twin_compare.py" curves "$ARCHIVE" twin_bench.json --json curves.json "$@" ;;
  *) echo "twin_roundtrip: mode fields or curves" >&2; exit 2 ;;
esac
