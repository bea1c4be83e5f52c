#!/usr/bin/env bash
# Characterizes every GPU node of a Slurm cluster and compares them as a fleet (docs/ci.md, Slurm):
# submits a job array (characterize_node.sbatch: one task per node, --exclusive) that archives into
# a shared results directory, and a fleet job (fleet.sbatch, --dependency=afterany:<array job>)
# that runs memhier-compare --fleet over the archives the array wrote, one fleet per GPU model.
# Prints the two job ids. Exit status: 0 submitted, 1 sbatch failed, 2 bad arguments.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
usage() {
  cat <<USAGE
usage: scripts/slurm/submit.sh --nodes N --results DIR [--device D]... [--partition P]
                               [--build-dir DIR] [--no-exclusive] [--time T] [--sbatch-arg ARG]...
                               [-- characterize.sh flags]
  --nodes N        array tasks: one per GPU node (each task --nodes=1 --exclusive)
  --results DIR    shared results directory (archives <sm>/<gpu-slug>/<driver>/<UTC>/; the fleet
                   reports and task logs in DIR/fleets/<array job id>/ and DIR/fleets/*.log)
  --device D       characterize.sh's --device for every task (default: --all, every GPU of the
                   node); given N times, task i characterizes the i-th (e.g. simulated boards)
  --partition P    the partition of both jobs
  --build-dir DIR  the programs, on the shared filesystem (default build/release; built beforehand)
  --no-exclusive   tasks share nodes (a test on one node; figures of shared GPUs are not a board's)
  --time T         time limit of each task (sbatch --time; default 60 minutes)
  --sbatch-arg A   one more sbatch option for both jobs (e.g. --account=gpu), may repeat
  -- FLAGS         passed to characterize.sh (e.g. -- --plan quick --rounds 1)
USAGE
}
die() { echo "submit.sh: $*" >&2; exit 2; }
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }
value() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"; printf '%s' "$2"; }
nodes=""; results=""; devices=(); partition=""; build="$ROOT/build/release"; exclusive=1; time_limit=60
sbatch_args=(); extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$(value "$@"); shift 2 ;;
    --results) results=$(abspath "$(value "$@")"); shift 2 ;;
    --device) devices+=("$(value "$@")"); shift 2 ;;
    --partition) partition=$(value "$@"); shift 2 ;;
    --build-dir) build=$(abspath "$(value "$@")"); shift 2 ;;
    --no-exclusive) exclusive=0; shift ;;
    --time) time_limit=$(value "$@"); shift 2 ;;
    --sbatch-arg) sbatch_args+=("$(value "$@")"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "--nodes needs a positive number of nodes (see --help)"
[ -n "$results" ] || die "--results DIR is required: a directory every node can write (see --help)"
[ ${#devices[@]} -le 1 ] || [ ${#devices[@]} = "$nodes" ] ||
  die "${#devices[@]} --device given for $nodes nodes: give one (every task) or one per node"
[ -x "$build/memhier-bench" ] || die "$build/memhier-bench not found: build it first (cmake --workflow --preset release) or pass --build-dir"
command -v sbatch >/dev/null || die "sbatch not found: not a Slurm submit host"
mkdir -p "$results/fleets" || die "cannot create $results/fleets"
common=(--nodes=1 --ntasks=1 "${sbatch_args[@]}")
[ -n "$partition" ] && common+=(--partition="$partition")
task_args=(--root "$ROOT" --results "$results" --build-dir "$build")
for d in "${devices[@]}"; do task_args+=(--device "$d"); done
array_opts=(--array="0-$((nodes - 1))" --job-name=memhier-characterize --time="$time_limit"
            --output="$results/fleets/memhier-characterize-%A_%a.log")
[ "$exclusive" = 1 ] && array_opts+=(--exclusive) || array_opts+=(--oversubscribe)
array_id=$(sbatch --parsable "${common[@]}" "${array_opts[@]}" "$ROOT/scripts/slurm/characterize_node.sbatch" \
  "${task_args[@]}" -- "${extra[@]}") || { echo "submit.sh: sbatch of the array failed" >&2; exit 1; }
array_id=${array_id%%;*}
fleet_id=$(sbatch --parsable "${common[@]}" --dependency="afterany:$array_id" --job-name=memhier-fleet --time=30 \
  --output="$results/fleets/memhier-fleet-%j.log" "$ROOT/scripts/slurm/fleet.sbatch" \
  --root "$ROOT" --results "$results" --build-dir "$build" --array-job "$array_id" --tasks "$nodes") ||
  { echo "submit.sh: sbatch of the fleet job failed (array job $array_id stays queued)" >&2; exit 1; }
fleet_id=${fleet_id%%;*}
echo "array job: $array_id ($nodes tasks, $([ "$exclusive" = 1 ] && echo exclusive || echo shared) nodes)"
echo "fleet job: $fleet_id (--dependency=afterany:$array_id; reports in $results/fleets/$array_id/)"
