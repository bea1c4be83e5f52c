#!/usr/bin/env bash
# Characterizes a GPU in one command: builds `release` if needed, runs every family's plan on the
# chosen device and the analyzer's refinement rounds in one memhier-bench process (--memhier_serve;
# the families no request depends on run while the analyzer works), the analyzer and the plots, and writes one
# new archive results/<sm_XX>/<gpu-slug>/<driver-version>/<UTC timestamp>/ (bench.json.gz,
# traces.pack.gz, refine-*.json.gz, topology.json, report.md, plots/). The archive is assembled in a temporary
# directory and renamed into place only when everything succeeded; an existing archive is never
# touched. SIGINT/SIGTERM/SIGHUP end every child, remove the temporary directory, print one line
# and exit with 128 + the signal; a later run removes the temporary directories of runs that were
# killed (SIGKILL, power loss), never one of a run still alive (docs/methodology.md, reliability).
# The wall time of the whole run (up to the packed archive) and of each stage go into the archive
# (characterize_wall_seconds, characterize_stages) exactly as the last line prints them.
# Usage: --help (usage() below). Every path argument is taken relative to the calling directory.
set -euo pipefail
START=$(pwd)
# A path argument as the caller meant it: relative to the directory the script was called from
# (the script works from the repository root or the install prefix).
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$START" "$1" ;; esac; }
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# Installed (cmake --install): this script in P/share/memhier/scripts, the programs in P/bin;
# archives go to ./results of the calling directory and nothing is built.
installed=0
if [ ! -f "$ROOT/CMakeLists.txt" ] && [ -x "$ROOT/../../bin/memhier-bench" ]; then installed=1; fi

usage() {
  cat <<USAGE
usage: characterize.sh [--device cuda:N|sim:CONFIG.json ...] [--all] [--plan full|quick|check] [--rounds N]
                       [--results DIR] [--no-build | --build-dir DIR] [--full-traces DIR] [--no-plots]
                       [--parallel] [--wait-idle[=S]] [-- memhier-bench flags]

Characterizes a GPU in one command: $([ "$installed" = 1 ] && echo "runs the installed programs ($ROOT/../../bin)" || echo "builds build/release if needed"), measures
the plan and the refinement rounds, analyzes, draws the plots and writes one new archive
  <results>/<sm_XX>/<gpu-slug>/<driver-version>/<UTC timestamp>/
(bench.json.gz, refine-N.json.gz, traces.pack.gz, topology.json, report.md, plots/), then prints
the topology. The archive appears only when every step succeeded; an existing one is never touched.

  --device D        cuda:N (default cuda:0) or sim:CONFIG.json (the simulated device); given more
                    than once, each device in turn, one archive each
  --all             every GPU of the host at once (nvidia-smi -L), one archive each, host threads
                    shared out; the links first (each GPU's host and peer families alone, one
                    GPU at a time, merged into its archive); then the GPUs of one model are
                    compared with each other and any sibling WORSE or CHANGED is named
  --parallel        several --device at once, as --all does
  --wait-idle[=S]   wait up to S seconds (default 600) until no other process uses the GPU; without
                    it a busy GPU is a warning at the start (the archive is marked contended)
  --plan P          full (default), quick (a small plan of every family, a smoke test) or check
                    (the regression check's part of the full plan: scripts/regression_check.sh)
  --rounds N        at most N refinement rounds, 0 to 20 (default: the analyzer's budget, 4 rounds
                    and 8 s of measuring; memhier-infer --max-rounds, docs/methodology.md Refinement)
  --results DIR     where archives go (default: $([ "$installed" = 1 ] && echo "./results of the calling directory" || echo "results/ of the repository");
                    a simulated device's: $([ "$installed" = 1 ] && echo "./sim-results of the calling directory" || echo "sim-results/ of the repository, ignored by git"))
  --no-build        use the existing build/release
  --build-dir DIR   use the programs of another build (e.g. build/ci)
  --full-traces DIR keep the unpacked traces (and plots left out of the archive) in DIR/<archive path>/
  --no-plots        no plots (plot.py <archive> draws them later)
  -- FLAGS          passed to memhier-bench (e.g. -- --benchmark_filter=^pchase)

Paths are taken relative to the calling directory. The last line before the tables says how long
the run took and where the time went; the archive keeps the same figures (characterize_wall_seconds,
characterize_stages). Exit status: 0 done, 1 a step failed, 2 bad arguments, 128+N a signal.
USAGE
}
usage_error() { echo "characterize.sh: $*" >&2; exit 2; }
# value FLAG "$@": the value after FLAG, or one line and exit 2
value() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || usage_error "$1 needs a value (see --help)"; printf '%s' "$2"; }

devices=(); all=0; plan=full; rounds=""; results=$ROOT/results; build=1; extra=(); BIN=$ROOT/build/release
build_dir=""
full_traces=""; plots=1; limit=2000000  # bytes on disk of one archive
wait_idle=0; parallel=0; results_given=0
if [ "$installed" = 1 ]; then BIN=$(cd "$ROOT/../../bin" && pwd); build=0; results=$START/results; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --device) d=$(value "$@") || exit 2; devices+=("$d"); shift 2 ;;
    --device=*) devices+=("${1#*=}"); shift ;;
    --all) all=1; shift ;;
    --plan) plan=$(value "$@") || exit 2; shift 2 ;;
    --plan=*) plan=${1#*=}; shift ;;
    --rounds) rounds=$(value "$@") || exit 2; shift 2 ;;
    --rounds=*) rounds=${1#*=}; shift ;;
    --results) results=$(value "$@") || exit 2; results=$(abspath "$results"); results_given=1; shift 2 ;;
    --results=*) results=$(abspath "${1#*=}"); results_given=1; shift ;;
    --no-build) build=0; shift ;;
    --no-plots) plots=0; shift ;;
    --parallel) parallel=1; shift ;;
    --wait-idle) wait_idle=600; shift ;;
    --wait-idle=*) wait_idle=${1#*=}; case "$wait_idle" in ''|*[!0-9]*) usage_error "--wait-idle=S needs whole seconds, not '$wait_idle'" ;; esac; shift ;;
    --full-traces) full_traces=$(value "$@") || exit 2; full_traces=$(abspath "$full_traces"); shift 2 ;;
    --full-traces=*) full_traces=$(abspath "${1#*=}"); shift ;;
    --build-dir) build_dir=$(value "$@") || exit 2; build_dir=$(abspath "$build_dir"); shift 2 ;;
    --build-dir=*) build_dir=$(abspath "${1#*=}"); shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
# Every value checked before anything runs: one line and exit 2.
case "$plan" in full|quick|check) ;; *) usage_error "--plan must be full, quick or check, not '$plan'" ;; esac
[ -z "$rounds" ] || { [[ "$rounds" =~ ^[0-9]+$ ]] && [ "$rounds" -le 20 ]; } || usage_error "--rounds must be an integer from 0 to 20, not '$rounds'"
[ "$all" = 1 ] && [ ${#devices[@]} -gt 0 ] && usage_error "--all runs every GPU; it does not take --device"
[ "$all" = 1 ] || [ ${#devices[@]} -gt 0 ] || devices=(cuda:0)
for i in "${!devices[@]}"; do
  d=${devices[$i]}
  case "$d" in
    cuda:*) [[ "${d#cuda:}" =~ ^[0-9]+$ ]] || usage_error "bad device '$d': use cuda:N (N a device index) or sim:<config.json>" ;;
    sim:*) [ -n "${d#sim:}" ] || usage_error "bad device '$d': use sim:<config.json>"
           cfg=$(abspath "${d#sim:}")  # relative to the calling directory, like every path
           [ -f "$cfg" ] && [ -r "$cfg" ] || usage_error "sim config ${d#sim:}: no such readable file ($cfg)"
           devices[$i]=sim:$cfg ;;
    *) usage_error "unknown device '$d': use cuda:N or sim:<config.json>" ;;
  esac
done
# A simulated device archives outside the tracked results/ unless --results says where (results/README.md).
sim_default=0
n_sim=$(printf '%s\n' "${devices[@]}" | grep -c '^sim:' || true)
if [ "$results_given" = 0 ] && [ "$n_sim" -gt 0 ]; then
  [ "$n_sim" = ${#devices[@]} ] || usage_error "simulated and real devices in one run need --results DIR (by default a simulated device's archives go to ${results%/results}/sim-results, a GPU's to $results)"
  results=${results%/results}/sim-results; sim_default=1
fi
if [ -n "$full_traces" ]; then
  mkdir -p "$full_traces" 2>/dev/null && [ -w "$full_traces" ] || usage_error "--full-traces $full_traces: cannot create or write this directory"
  full_traces=$(cd "$full_traces" && pwd)
fi
if [ -n "$build_dir" ]; then
  [ -d "$build_dir" ] || usage_error "--build-dir $build_dir: no such directory"
  BIN=$(cd "$build_dir" && pwd); build=0
  [ -x "$BIN/memhier-bench" ] || usage_error "--build-dir $BIN has no memhier-bench (build it first)"
fi
mkdir -p "$results" 2>/dev/null && [ -w "$results" ] || usage_error "--results $results: cannot create or write this directory"
results=$(cd "$results" && pwd)
for a in "${extra[@]}"; do
  case "$a" in
    --benchmark_out=*|--benchmark_out_format=*|--benchmark_format=*|--memhier_progress*|--memhier_trace_dir*|--device*|--plan*|--memhier_extra*|--benchmark_list_tests*)
      usage_error "'$a' is set by characterize.sh itself; pass only other memhier-bench flags after --" ;;
  esac
done

T0US=${EPOCHREALTIME/[.,]/}
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $(( (t - T0US) / 1000 )); }
say() { local ms; ms=$(now_ms); printf '[characterize %5d.%ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" >&2; }
# Wall time per stage ("plan 17.41, infer-1 1.30, ..."), into the archive with the total. `stages`
# and `stage_ms` are characterize_one's locals (bash scoping is dynamic): each device its own.
stage_begin() { stage_ms=$(now_ms); }
stage_end() { local d=$(( $(now_ms) - stage_ms )); stages="${stages:+$stages, }$1 $((d / 1000)).$(printf '%03d' $((d % 1000)) | cut -c1-2)"; }
# Milliseconds as the seconds printed and archived (one decimal, truncated): one formatter for both.
seconds() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

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

# --- Interruption and clean-up ------------------------------------------------------------
# Children run in the background and the script waits for them, so that a signal is handled at
# once (bash runs a trap only after a foreground child has finished). setpriv gives each child
# SIGTERM when this script dies, even by SIGKILL, so that no child outlives it.
tmp=""; reserved=""; child=""; committing=0; pending_sig=""
PDEATH=(); command -v setpriv >/dev/null 2>&1 && setpriv --pdeathsig TERM true 2>/dev/null && PDEATH=(setpriv --pdeathsig TERM --)
run() {
  "${PDEATH[@]}" "$@" <&0 &
  child=$!
  local rc=0
  wait "$child" || rc=$?
  child=""
  return $rc
}
end_children() {
  local p i
  for p in $child $(jobs -p); do
    kill -TERM "$p" 2>/dev/null || continue
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
  { wait; } 2>/dev/null || true  # no job-status lines from the shell
  child=""
}
on_signal() {  # on_signal NAME NUMBER
  if [ "$committing" = 1 ]; then pending_sig="$1 $2"; return; fi  # the commit finishes first
  trap '' INT TERM HUP
  end_children
  [ -n "$tmp" ] && rm -rf "$tmp"
  [ -n "$reserved" ] && rm -rf "$reserved"
  echo "characterize.sh: interrupted by SIG$1; no archive written, nothing under $results changed" >&2
  exit $((128 + $2))
}
# The traps of this script, and of each --all subshell (a subshell starts without them).
set_traps() {
  trap 'on_signal INT 2' INT
  trap 'on_signal TERM 15' TERM
  trap 'on_signal HUP 1' HUP
  trap 'end_children; [ -n "$tmp" ] && rm -rf "$tmp"; [ -n "$reserved" ] && rm -rf "$reserved"' EXIT
}
set_traps

# Start time of a process (/proc/PID/stat field 22, after the command name), so that a reused pid
# is not taken for the run that created a directory.
proc_start() { [ -r "/proc/$1/stat" ] && sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
# Temporary directories of runs that no longer exist: the owner file names pid, start and host;
# a directory without one (a run killed before writing it, or an older memhier) counts as stale
# after 10 minutes. Directories of other hosts (a shared results directory) are left alone.
remove_stale() {
  local d pid start host now
  for d in "$results"/.incomplete-*; do
    [ -d "$d" ] || continue
    if [ -f "$d/.owner" ]; then
      read -r pid start host < "$d/.owner" || true
      [ "$host" = "$(hostname)" ] || continue
      now=$(proc_start "$pid" || true)
      if kill -0 "$pid" 2>/dev/null && { [ -z "$now" ] || [ "$now" = "$start" ]; }; then continue; fi
    else
      [ -n "$(find "$d" -maxdepth 0 -mmin +10 2>/dev/null)" ] || continue
    fi
    rm -rf "$d" && say "removed $d: left by an interrupted run that is no longer running"
  done
}

safe() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

# A process that has not exited (a zombie counts as exited: it is waited for next).
alive() { local st; st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1); [ -n "$st" ] && [ "$st" != Z ]; }
# Waits until FILE exists or process PID has exited; true when the file is there.
wait_for() { while [ ! -e "$1" ]; do alive "$2" || { [ -e "$1" ]; return; }; sleep 0.005; done; }

# The plan's families that no refinement request depends on (requests computed without them are
# identical: checked on H100 archives, docs/methodology.md "Wall time"): memhier-bench runs them
# while the analyzer works on the rounds (--memhier_defer), so that the GPU is not idle meanwhile.
# cache_sharing and caches_per_sm stay in the plan's first part: run after the throughput families,
# caches_per_sm's other-warp evictions at 64 KiB read 7 % instead of 0 % (l1 slices_per_sm 1, not 32).
# The level families beyond one SM (dsmem, async_copy, host, peer) are deferred as well, and
# l2_persist (its set-aside is reset and its limit restored after each benchmark), and the L2
# slices (l2_slices: the fingerprint and the contention run).
DEFER=gmem_throughput,l1_throughput,l2_throughput,l2_partitions,outstanding_requests,smem_throughput,smem_bank_conflict,warp_access,dsmem,async_copy,host,peer,l2_persist,l2_slices,l2_evsets

# One device, start to archive. Everything a device's run keeps is local here or reset here, so
# that each device of --all (or of several --device) has its own stages and wall time.
characterize_one() {
  local dev=$1 t0ms stages="" stage_ms=0
  tmp=""; reserved=""; child=""; committing=0; pending_sig=""  # the traps' globals, reset per device
  t0ms=$(now_ms)
  remove_stale
  tmp=$(mktemp -d "$results/.incomplete-XXXXXX")  # global: the traps need it after return
  echo "$$ $(proc_start $$ || true) $(hostname)" > "$tmp/.owner"
  check_idle "$dev"
  say "device $dev: plan $plan"
  # One memhier-bench process for the plan and every refinement round (--memhier_serve: no CUDA
  # start-up per round); the deferred families run while the analyzer works (bench/cli/serve.hpp).
  local serve_dir="$tmp/.serve" defer=$DEFER rc=0 server skip=()
  for a in "${extra[@]}"; do case "$a" in --benchmark_filter*) defer="" ;; esac; done
  # --all: the link families were measured before, one GPU at a time (LINKS_DIR, characterize_all)
  [ -n "${LINKS_DIR:-}" ] && skip=(--memhier_skip=host,peer)
  mkdir -p "$serve_dir"
  stage_begin
  "${PDEATH[@]}" "$BENCH" --device="$dev" --plan="$plan" --memhier_progress=auto \
    --benchmark_out="$tmp/bench.json" --benchmark_out_format=json --memhier_serve="$serve_dir" \
    ${defer:+--memhier_defer=$defer} "${skip[@]}" "${extra[@]}" <&0 &
  server=$!
  wait_for "$tmp/bench.json" "$server" || { wait "$server" || rc=$?; exit "$((rc ? rc : 1))"; }
  stage_end plan
  local inputs=("$tmp/bench.json") fresh=0 threads=""
  # The analysis shares the CPU with the deferred families' launches: four cores are left to them.
  [ -n "$defer" ] && [ -z "${MEMHIER_THREADS:-}" ] && threads=$(( $(nproc) > 5 ? $(nproc) - 4 : 1 ))
  if [ -x "$INFER" ] && alive "$server"; then
    # --rounds N is the analyzer's round budget too (so it marks the last round); else its own (4)
    local max_rounds=()
    [ -n "$rounds" ] && max_rounds=(--max-rounds "$rounds")
    for r in $(seq 1 "${rounds:-20}"); do
      # Each analysis writes the topology too; requests come from the plan's undeferred families.
      # The random-stream judgement decides no request: the early and last analyses make it.
      # MEMHIER_INFER_FLAGS: e.g. "--max-rounds 3 --budget-total-seconds 5" (the refinement budget)
      # shellcheck disable=SC2086
      stage_begin
      MEMHIER_THREADS=${threads:-${MEMHIER_THREADS:-}} run "$INFER" --allow-errors "${inputs[@]}" -o "$tmp/topology.json" \
        --next-requests "$tmp/requests-$r.json" "${max_rounds[@]}" --skip-streams ${MEMHIER_INFER_FLAGS:-} >/dev/null
      fresh=1
      local asked last
      # the families asked for, and whether the analyzer's budget allows a round after this one
      read -r last asked < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(bool(d.get("last_round"))), ", ".join(f"{len(v)} {k}" for k, v in d.items() if isinstance(v, list) and v))' "$tmp/requests-$r.json")
      stage_end "infer-$r"
      if [ -z "$asked" ]; then
        rm -f "$tmp/requests-$r.json"
        break
      fi
      say "refinement round $r: $asked (memhier-infer's budget: docs/methodology.md, Refinement)"
      stage_begin
      cp "$tmp/requests-$r.json" "$serve_dir/.requests" && mv "$serve_dir/.requests" "$serve_dir/requests-$r.json"
      wait_for "$tmp/refine-$r.json" "$server" || break  # the server ended (its status below)
      stage_end "round-$r"
      inputs+=("$tmp/refine-$r.json")
      fresh=0
      # the budget's last round: its results are analyzed once, with the deferred families (below)
      if [ "$last" = 1 ]; then break; fi
    done
  fi
  # No more rounds. The early sections of the last analysis (caches, address translation, the
  # refinement round: docs/methodology.md, Wall time) are computed now, while the GPU measures the
  # deferred families, whose data they do not read; the analysis after the GPU is done reuses them.
  local early_pid=""
  if [ -x "$INFER" ] && [ -n "$defer" ] && alive "$server"; then
    MEMHIER_THREADS=${threads:-${MEMHIER_THREADS:-}} "${PDEATH[@]}" "$INFER" --allow-errors "${inputs[@]}" \
      -o "$tmp/.early-topology.json" --sections-cache "$tmp/.sections.json" --streams-cache "$tmp/.streams.json" \
      >/dev/null 2>"$tmp/.early.err" &
    early_pid=$!
  fi
  # The deferred families that are left, merged into bench.json, then the end.
  touch "$serve_dir/stop"
  stage_begin
  child=$server
  wait "$server" || rc=$?
  child=""
  stage_end deferred
  rm -rf "$serve_dir"
  # 3: the device became unusable (a sticky error); what was measured is kept and bench.json names
  # the fault (memhier_device_fault) and every benchmark that did not run
  case $rc in 0) ;; 3) say "the device became unusable during the measurements; analyzing what was measured" ;; *) exit "$rc" ;; esac
  [ -n "$defer" ] && fresh=0  # bench.json now holds the deferred families too
  merge_links "$dev" && fresh=0
  stage_begin  # ends after the plots and the final analysis (or as "prepare" when neither runs)
  # The request files, kept to document the loop, are compacted; the archive's place comes from
  # the context (read only: bench.json is written once more, at the end, with the wall time).
  local sm slug drv ts dest rel used
  read -r sm slug drv < <(python3 - "$tmp" <<'PY'
import glob, json, os, re, sys
d = sys.argv[1]
def put(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    os.replace(path + ".tmp", path)
for q in glob.glob(os.path.join(d, "requests-*.json")):
    put(q, json.load(open(q)))
c = json.load(open(os.path.join(d, "bench.json")))["context"]
safe = lambda v: re.sub(r"[^A-Za-z0-9._-]", "_", str(v))
print(safe(c.get("sm_tag", "sim")), safe(c.get("gpu_slug", c.get("gpu_name", "unknown-gpu"))),
      safe(c.get("driver_version", "unknown-driver")))
PY
  )
  # The traces are complete once the server has ended: packed in the background while the plots and
  # the last analysis still read them (traces/ stays until both are done).
  local pack_pid=""
  "${PDEATH[@]}" python3 scripts/archive_pack.py pack "$tmp" --traces-only --keep-traces &
  pack_pid=$!
  # Plots (in the background) while the last rounds' data are analyzed, when the loop did not.
  local plot_pid=""
  if [ "$plots" = 1 ] && [ -f scripts/plot.py ]; then
    say "plotting$([ "$fresh" = 1 ] || echo ' and analyzing')"
    "${PDEATH[@]}" python3 scripts/plot.py "$tmp" >/dev/null 2>"$tmp/.plot.err" &
    plot_pid=$!
  fi
  local final="" prc=0
  [ -n "$plot_pid" ] && final=plots
  if [ -x "$INFER" ] && [ "$fresh" = 0 ]; then
    final="${final:+$final+}analysis"
    [ -z "$plot_pid" ] && say "analyzing"
    local reuse=()
    if [ -n "$early_pid" ]; then
      if wait "$early_pid"; then reuse=(--sections-cache "$tmp/.sections.json")
      else say "the early analysis failed ($(tail -1 "$tmp/.early.err")): every section is analyzed now"; fi
      early_pid=""
    fi
    run "$INFER" --allow-errors "${inputs[@]}" -o "$tmp/topology.json" "${reuse[@]}" --streams-cache "$tmp/.streams.json" >/dev/null
  fi
  [ -n "$early_pid" ] && { wait "$early_pid" || true; }
  rm -f "$tmp/.sections.json" "$tmp/.early-topology.json" "$tmp/.early.err" "$tmp/.streams.json" "$tmp/.streams.json.tmp"
  if [ -n "$plot_pid" ]; then
    # plot.py says what is missing (matplotlib, a script beside it) on its last line
    wait "$plot_pid" || { prc=$?; say "plot.py failed (exit $prc); the archive has no plots: $(tail -1 "$tmp/.plot.err")"; }
  fi
  rm -f "$tmp/.plot.err"
  stage_end "${final:-prepare}"
  # The archive's name, reserved at once (mkdir is atomic): GPUs of one model characterized at once
  # (--all) may finish in the same second; the later one takes the next free second.
  local epoch k=0
  epoch=$(date -u +%s)
  while :; do
    ts=$(date -u -d "@$((epoch + k))" +%Y%m%dT%H%M%SZ)
    rel="$sm/$slug/$drv/$ts"
    dest="$results/$rel"
    reserved="$results/.incomplete-name-$(safe "$rel")"
    if [ ! -e "$dest" ] && mkdir "$reserved" 2>/dev/null; then
      echo "$$ $(proc_start $$ || true) $(hostname)" > "$reserved/.owner"
      break
    fi
    k=$((k + 1))
  done
  # Small enough to keep: the plots only when the packed archive has room for them
  # (scripts/plot.py <archive> draws them again from the archive), then the traces packed (the
  # full ones outside results/ on request).
  stage_begin
  say "packing"
  if ! wait "$pack_pid"; then echo "characterize.sh: packing the traces failed" >&2; exit 1; fi
  if [ -n "$full_traces" ]; then
    mkdir -p "$full_traces/$rel"; rm -rf "$full_traces/$rel/traces"; mv "$tmp/traces" "$full_traces/$rel/traces"
  else
    rm -rf "$tmp/traces"
  fi
  if [ -d "$tmp/plots" ]; then
    used=$(python3 scripts/archive_pack.py size "$tmp" --estimate)
    if [ $((used + 200000)) -gt "$limit" ]; then  # 200 kB: topology.json and report.md
      if [ -n "$full_traces" ]; then mkdir -p "$full_traces/$rel"; rm -rf "$full_traces/$rel/plots"; mv "$tmp/plots" "$full_traces/$rel/"; else rm -rf "$tmp/plots"; fi
      say "plots left out of the archive (${used} bytes with them); scripts/plot.py <archive> draws them"
    fi
  fi
  stage_end pack
  # The record: the wall time of the whole run so far and its stages, exactly as printed below,
  # into bench.json's context (spliced in: no second parse of a large file), the JSON files then
  # compressed, and topology.json's device section and report.md written from the final topology
  # (no second analysis). Only these writes and the rename come after the figures (tens of ms).
  local ms wall_s
  ms=$(( $(now_ms) - t0ms ))
  wall_s=$(seconds "$ms")
  run python3 - "$tmp/bench.json" "$wall_s" "$stages" <<'PY'
import json, os, sys
path, wall, stages = sys.argv[1], float(sys.argv[2]), sys.argv[3]
with open(path, encoding="utf-8") as f:
    text = f.read()
i = text.index("{", text.index('"context"')) + 1
keys = '"characterize_wall_seconds": %s, "characterize_stages": %s' % (json.dumps(wall), json.dumps(stages))
text = text[:i] + keys + ("" if text[i:].lstrip().startswith("}") else ",") + text[i:]
with open(path + ".tmp", "w", encoding="utf-8") as f:
    f.write(text)
os.replace(path + ".tmp", path)
PY
  run python3 scripts/archive_pack.py pack "$tmp"
  if [ -x "$INFER" ] && [ -f "$tmp/topology.json" ]; then
    run "$INFER" --from-topology "$tmp/topology.json" --context characterize_wall_seconds="$wall_s" \
      --context characterize_stages="$stages" -o "$tmp/topology.json" --report "$tmp/report.md"
  fi
  [ -e "$dest" ] && { echo "characterize.sh: $dest exists; not overwriting" >&2; exit 1; }
  mkdir -p "$(dirname "$dest")"
  # The commit (rename, index) is not interrupted: a signal now is handled once it is done.
  committing=1
  rm -f "$tmp/.owner"
  mv -T "$tmp" "$dest"
  tmp=""
  rm -rf "$reserved"; reserved=""
  [ -f scripts/archive_index.py ] && python3 scripts/archive_index.py "$results" >/dev/null || true
  committing=0
  if [ -n "$pending_sig" ]; then
    set -- $pending_sig
    echo "characterize.sh: interrupted by SIG$1 after the archive was complete: kept $dest" >&2
    exit $((128 + $2))
  fi
  say "device $dev done in $wall_s s ($stages)"
  python3 scripts/archive_pack.py size "$dest" --limit "$limit" >&2 || say "WARNING: the archive exceeds $limit bytes"
  if [ -f "$dest/topology.json" ]; then python3 scripts/topology_table.py "$dest" || true; fi
  echo "report:  $dest/report.md"
  echo "archive: $dest"
  [ -n "${ARCHIVE_LIST:-}" ] && echo "$dev $dest" >> "$ARCHIVE_LIST"
  return 0
}

# Whether another process uses the GPU now (memhier-bench --device=list asks NVML): a warning, or
# with --wait-idle a wait of up to that many seconds. A run beside another process is marked
# contended in its archive either way (memhier-bench's own looks during the plan).
busy_line() { { "$BENCH" --device=list 2>/dev/null | grep "^$1  " | grep -o '  busy (.*' | sed 's/^  //'; } || true; }
check_idle() {
  case "$1" in cuda:*) ;; *) return 0 ;; esac
  # Without --wait-idle memhier-bench says itself, before the plan, that the GPU is busy (one CUDA
  # start less per run); the archive is marked contended either way.
  [ "$wait_idle" -gt 0 ] || return 0
  local b waited=0
  b=$(busy_line "$1")
  while [ -n "$b" ] && [ "$waited" -lt "$wait_idle" ]; do
    [ "$waited" = 0 ] && say "device $1 is $b: waiting up to $wait_idle s until it is idle (--wait-idle)"
    sleep 2; waited=$((waited + 2))
    b=$(busy_line "$1")
  done
  if [ -n "$b" ]; then
    say "WARNING: device $1 is $b: another process shares the GPU; the archive will be marked contended and memhier-compare refuses verdicts on it (--wait-idle waits for the GPU)"
  elif [ "$waited" -gt 0 ]; then
    say "device $1 idle after $waited s"
  fi
}

# The link families (host, peer) of device DEV measured before the parallel runs
# (LINKS_DIR/<dev>.json), merged into this run's bench.json: true when there was something to merge.
merge_links() {
  local f="${LINKS_DIR:-}/${1//[:\/]/_}.json"
  [ -n "${LINKS_DIR:-}" ] && [ -s "$f" ] || return 1
  python3 - "$tmp/bench.json" "$f" <<'PY'
import json, os, sys
path, peers = sys.argv[1], json.load(open(sys.argv[2]))
b = json.load(open(path))
b["benchmarks"] += peers.get("benchmarks", [])
b["context"]["memhier_link_pass"] = "host and peer measured before the GPUs ran at once, one GPU at a time (%s s)" % \
    round(float(peers.get("context", {}).get("plan_wall_seconds", "nan")), 1)
with open(path + ".tmp", "w") as f:
    json.dump(b, f, indent=1)
os.replace(path + ".tmp", path)
PY
  say "device $1: host and peer links merged (measured before, one GPU at a time)"
}

# Before GPUs run at once (--all): each GPU's link families (host, peer) alone, one GPU at a time:
# no peer is busy with its own characterization while it is read, and no sibling's host traffic
# shares the host's side of PCIe while one is measured (in one of four runs of an H200 pair a
# host-to-device copy read 5.7 % less with both GPUs at once; cause not established). LINKS_DIR,
# merged by merge_links.
measure_links() {
  local dev f
  for dev in "${devices[@]}"; do
    f="$LINKS_DIR/${dev//[:\/]/_}.json"
    if "${PDEATH[@]}" "$BENCH" --device="$dev" --plan="$plan" --benchmark_filter='^(host|peer)/' --benchmark_format=console \
         --benchmark_out="$f" --benchmark_out_format=json > "$LINKS_DIR/${dev//[:\/]/_}.log" 2>&1; then
      say "device $dev: host and peer links measured ($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["benchmarks"]))' "$f") benchmarks)"
    else
      rm -f "$f"  # no link benchmark on this device (nothing registered) or the run failed: its log says which
      say "device $dev: no host or peer link measured ($(tail -1 "$LINKS_DIR/${dev//[:\/]/_}.log"))"
    fi
  done
}

# --all: every GPU at once, each in a subshell of its own (its own traps, temporary directory and
# stages), its lines prefixed with the device; host threads shared out so that the analyses and
# plots of N devices do not oversubscribe the host. Then GPUs of one model against each other.
characterize_all() {
  local n=${#devices[@]} i rc=0 t0 list pids=()
  local threads=$(( $(nproc 2>/dev/null || echo 2) / n )); [ "$threads" -ge 1 ] || threads=1
  export MEMHIER_THREADS=${MEMHIER_THREADS:-$threads} MEMHIER_PLOT_JOBS=${MEMHIER_PLOT_JOBS:-$threads}
  list=$(mktemp "${TMPDIR:-/tmp}/characterize-archives-XXXXXX")
  t0=$(now_ms)
  LINKS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/characterize-links-XXXXXX")
  export LINKS_DIR
  measure_links
  say "$n devices at once (${devices[*]}), $MEMHIER_THREADS host threads each"
  for i in "${!devices[@]}"; do
    # the prefixing sed is the subshell's sibling, not its child: the subshell's clean-up waits for
    # its own children only
    ( ( set_traps
        ARCHIVE_LIST=$list characterize_one "${devices[$i]}" ) 2>&1 | sed -u "s|^|[${devices[$i]}] |"
      exit "${PIPESTATUS[0]}" ) &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; say "device ${devices[$i]} failed"; }; done
  say "all $n devices done in $(seconds $(( $(now_ms) - t0 ))) s"
  compare_siblings "$list"
  rm -rf "$list" "$LINKS_DIR"
  return $rc
}

# Archives of GPUs of one model (the same gpu-slug folder) against the first one's: any sibling
# that is WORSE or CHANGED is named (memhier-compare's headline gate).
compare_siblings() {
  local list=$1 dev a slug out rc
  local -A first_dev=() first=()  # per GPU model (gpu-slug folder): its first device and archive
  sort -o "$list" "$list"
  while read -r dev a; do
    slug=$(basename "$(dirname "$(dirname "$a")")")
    if [ -z "${first[$slug]:-}" ]; then first[$slug]=$a; first_dev[$slug]=$dev; continue; fi
    # --as-archived: this build's analyzer wrote both topologies moments ago (no second analysis)
    out=$("$BIN/memhier-compare" --as-archived "${first[$slug]}" "$a" 2>&1); rc=$?
    case $rc in
      0) say "node: $dev against ${first_dev[$slug]} ($slug): SAME (gate passed)" ;;
      1|3) say "node: $dev against ${first_dev[$slug]} ($slug): $( [ $rc = 1 ] && echo WORSE || echo CHANGED ) - $(sed -n 's/^gate: [A-Z]* - [^:]*: //p' <<<"$out" | head -1)" ;;
      *) say "node: $dev against ${first_dev[$slug]} ($slug): no verdict (memhier-compare exit $rc: $(grep '^gate:' <<<"$out" | head -1))" ;;
    esac
  done < "$list"
}

if [ "$all" = 1 ]; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "${n:-0}" -gt 0 ] || { echo "characterize.sh: --all found no GPU (nvidia-smi -L)" >&2; exit 1; }
  for i in $(seq 0 $((n - 1))); do devices+=("cuda:$i"); done
fi
if { [ "$all" = 1 ] || [ "$parallel" = 1 ]; } && [ ${#devices[@]} -gt 1 ]; then
  characterize_all || exit 1
else
  for d in "${devices[@]}"; do characterize_one "$d"; done
fi
[ "$sim_default" = 0 ] || echo "simulated device: archived under $results (outside the tracked results/; --results DIR chooses)"
