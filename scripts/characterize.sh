#!/usr/bin/env bash
# Characterizes a GPU in one command: builds `release` if needed, runs every family's plan on the
# chosen device, runs the analyzer's refinement rounds, the analyzer and the plots, and writes one
# new archive results/<sm_XX>/<gpu-slug>/<driver-version>/<UTC timestamp>/ (bench.json, traces/,
# refine-*.json, topology.json, report.md, plots/). The archive is assembled in a temporary
# directory and renamed into place only when everything succeeded; an existing archive is never
# touched.
#
# usage: scripts/characterize.sh [--device cuda:N|sim:<config.json>] [--all] [--plan full|quick]
#                                [--rounds N] [--results DIR] [--no-build | --build-dir DIR]
#                                [-- extra memhier-bench flags]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

device=cuda:0; all=0; plan=full; rounds=6; results=$ROOT/results; build=1; extra=(); BIN=$ROOT/build/release
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=${2:?--device needs a value}; shift 2 ;;
    --device=*) device=${1#*=}; shift ;;
    --all) all=1; shift ;;
    --plan) plan=${2:?--plan needs a value}; shift 2 ;;
    --plan=*) plan=${1#*=}; shift ;;
    --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
    --rounds=*) rounds=${1#*=}; shift ;;
    --results) results=${2:?--results needs a value}; shift 2 ;;
    --results=*) results=${1#*=}; shift ;;
    --no-build) build=0; shift ;;
    --build-dir) BIN=$(cd "${2:?--build-dir needs a value}" && pwd); build=0; shift 2 ;;
    --build-dir=*) BIN=$(cd "${1#*=}" && pwd); build=0; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "characterize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$plan" in full|quick) ;; *) echo "characterize.sh: --plan must be full or quick" >&2; exit 2 ;; esac

say() { printf '[characterize %5ss] %s\n' "$SECONDS" "$*" >&2; }

# 1. What is missing: Debian packages when we are root with apt (failures are not fatal: CMake
#    says what it cannot find), nvcc on the PATH.
if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  need=()
  # tools by command (they may come from elsewhere than Debian packages), libraries by package
  command -v cmake >/dev/null 2>&1 || need+=(cmake)
  command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
  command -v g++ >/dev/null 2>&1 || need+=(g++)
  python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
  for p in libbenchmark-dev libgtest-dev nlohmann-json3-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null) ||
      say "could not install ${need[*]}; going on with what is there"
  fi
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# 2. Build release (the GPU of this machine, or CUDAARCHS).
if [ "$build" = 1 ]; then
  if [ ! -f "$BIN/build.ninja" ]; then
    say "configuring release"
    if ! command -v nvidia-smi >/dev/null 2>&1 && [ -z "${CUDAARCHS:-}" ]; then
      export CUDAARCHS=90  # no GPU to detect: build for sm_90 (a sim run needs no GPU code anyway)
    fi
    mkdir -p "$ROOT/build"
    cmake --preset release >"$ROOT/build/release-configure.log" 2>&1 || { cat "$ROOT/build/release-configure.log" >&2; exit 1; }
  fi
  say "building release"
  mkdir -p "$ROOT/build"
  cmake --build --preset release --target memhier-bench memhier-infer memhier-compare >"$ROOT/build/release-build.log" 2>&1 ||
    cmake --build --preset release --target memhier-bench >>"$ROOT/build/release-build.log" 2>&1 ||
    { tail -30 "$ROOT/build/release-build.log" >&2; exit 1; }
fi
BENCH=$BIN/memhier-bench
INFER=$BIN/memhier-infer
[ -x "$BENCH" ] || { echo "characterize.sh: $BENCH missing (build failed?)" >&2; exit 1; }

tmp=""
ctx() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["context"]; print(c.get(sys.argv[2], sys.argv[3]))' "$1" "$2" "$3"; }
safe() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

characterize_one() {
  local dev=$1 t0=$SECONDS
  mkdir -p "$results"
  tmp=$(mktemp -d "$results/.incomplete-XXXXXX")  # global: the EXIT trap needs it after return
  trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT INT TERM
  say "device $dev: plan $plan"
  local total
  total=$("$BENCH" --device="$dev" --plan="$plan" --benchmark_list_tests=true "${extra[@]}" | wc -l)
  "$BENCH" --device="$dev" --plan="$plan" --memhier_progress="$total" \
    --benchmark_out="$tmp/bench.json" --benchmark_out_format=json "${extra[@]}"
  local inputs=("$tmp/bench.json")
  if [ -x "$INFER" ]; then
    for r in $(seq 1 "$rounds"); do
      # MEMHIER_INFER_FLAGS: e.g. "--max-rounds 3 --budget-total-seconds 5" (the refinement budget)
      # shellcheck disable=SC2086
      "$INFER" --allow-errors "${inputs[@]}" --next-requests "$tmp/requests-$r.json" ${MEMHIER_INFER_FLAGS:-} >/dev/null
      local asked
      asked=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join(f"{len(v)} {k}" for k, v in d.items() if k != "format" and v))' "$tmp/requests-$r.json")
      if [ -n "$asked" ]; then
        say "refinement round $r: $asked (memhier-infer's budget: docs/methodology.md, Refinement)"
        "$BENCH" --device="$dev" --plan=none --memhier_extra="$tmp/requests-$r.json" --memhier_progress=0 \
          --memhier_trace_dir="$tmp/traces" --benchmark_out="$tmp/refine-$r.json" --benchmark_out_format=json
        inputs+=("$tmp/refine-$r.json")
      else
        rm -f "$tmp/requests-$r.json"
        break
      fi
    done
  fi
  # the analyzer's request files, kept to document the loop, compact
  for q in "$tmp"/requests-*.json; do
    [ -f "$q" ] && python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); json.dump(d, open(p, "w"), separators=(",", ":"))' "$q"
  done
  # The wall time of measuring (plan + refinement) goes into the context before the final analysis.
  python3 - "$tmp/bench.json" "$((SECONDS - t0))" <<'PY'
import json, sys
p, s = sys.argv[1], float(sys.argv[2])
d = json.load(open(p)); d["context"]["characterize_wall_seconds"] = s
json.dump(d, open(p, "w"), separators=(",", ":"))
PY
  # plots first, so that report.md can embed them
  if [ -f scripts/plot.py ]; then
    say "plotting"
    python3 scripts/plot.py "$tmp" >/dev/null || say "plot.py failed (is matplotlib installed?); archive has no plots"
  fi
  if [ -x "$INFER" ]; then
    say "analyzing"
    "$INFER" --allow-errors "${inputs[@]}" -o "$tmp/topology.json" --report "$tmp/report.md"
  fi
  local sm slug drv ts dest
  sm=$(safe "$(ctx "$tmp/bench.json" sm_tag sim)")
  slug=$(safe "$(ctx "$tmp/bench.json" gpu_slug "$(ctx "$tmp/bench.json" gpu_name unknown-gpu)")")
  drv=$(safe "$(ctx "$tmp/bench.json" driver_version unknown-driver)")
  ts=$(date -u +%Y%m%dT%H%M%SZ)
  dest="$results/$sm/$slug/$drv/$ts"
  [ -e "$dest" ] && { echo "characterize.sh: $dest exists; not overwriting" >&2; exit 1; }
  mkdir -p "$(dirname "$dest")"
  mv "$tmp" "$dest"
  trap - EXIT INT TERM
  [ -f scripts/archive_index.py ] && python3 scripts/archive_index.py "$results" >/dev/null || true
  say "done in $((SECONDS - t0)) s"
  if [ -f "$dest/topology.json" ]; then python3 scripts/topology_table.py "$dest" || true; fi
  echo "report:  $dest/report.md"
  echo "archive: $dest"
}

if [ "$all" = 1 ]; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "${n:-0}" -gt 0 ] || { echo "characterize.sh: --all found no GPU (nvidia-smi -L)" >&2; exit 1; }
  for i in $(seq 0 $((n - 1))); do characterize_one "cuda:$i"; done
else
  characterize_one "$device"
fi
