#!/usr/bin/env bash
# scripts/slurm/ on a real one-node Slurm (docs/ci.md, Slurm): munged, slurmctld and slurmd started
# here as root on localhost (a private munge key and socket, free ports, state under a temp
# directory; proctrack/linuxproc, task/none: no cgroups), submit.sh submits the array against three
# simulated boards (two of one device, one slowed: L2 +30 cycles, DRAM +60; --no-exclusive: the
# tasks share the one node) and the dependent fleet job; the test waits for both, checks the three
# archives in the shared results directory and the fleet's verdict (the slowed board named, the fleet
# job's exit 6), and stops every daemon it started. Exit 77 (skipped) where slurm-wlm and munge
# are not installed or the test does not run as root.
set -uo pipefail
src=$1; bin=$2; work=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$rt"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done; exit 1; }
for p in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$p" > /dev/null || skip "$p not found: install the Debian packages slurm-wlm and munge"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (this test runs as $(id -un))"
rm -rf "$work"; mkdir -p "$work"
rt=$(mktemp -d /tmp/memhier-slurm.XXXXXX)  # short: the munge socket's path has a length limit
chmod 700 "$rt"
stop() {
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet --user=root 2> /dev/null
  for d in slurmd slurmctld munged; do
    [ -s "$rt/$d.pid" ] || continue
    pid=$(cat "$rt/$d.pid")
    kill "$pid" 2> /dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null
  done
  rm -rf "$rt"
}
trap stop EXIT

# munge: a private key, socket and pid file
mungekey --create --keyfile="$rt/munge.key" > /dev/null 2>&1 || dd if=/dev/urandom of="$rt/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$rt/munge.key"
munged --socket="$rt/munge.socket" --key-file="$rt/munge.key" --pid-file="$rt/munged.pid" \
  --log-file="$rt/munged.log" --seed-file="$rt/munged.seed" --force > "$rt/munged.out" 2>&1 || { cat "$rt/munged.out"; fail "munged did not start"; }

ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
read -r ctld_port slurmd_port <<< "$ports"
host=$(hostname -s)
mkdir -p "$rt/state" "$rt/spool"
cat > "$rt/slurm.conf" <<CONF
ClusterName=memhier-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$rt/munge.socket
StateSaveLocation=$rt/state
SlurmdSpoolDir=$rt/spool
SlurmctldPidFile=$rt/slurmctld.pid
SlurmdPidFile=$rt/slurmd.pid
SlurmctldLogFile=$rt/slurmctld.log
SlurmdLogFile=$rt/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$rt/jobcomp.txt
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=memhier Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$rt/slurm.conf
slurmctld -f "$SLURM_CONF" > "$rt/slurmctld.out" 2>&1 || fail "slurmctld did not start: $(cat "$rt/slurmctld.out")"
slurmd -f "$SLURM_CONF" -N localhost > "$rt/slurmd.out" 2>&1 || fail "slurmd did not start: $(cat "$rt/slurmd.out")"
for _ in $(seq 60); do
  state=$(sinfo -h -n localhost -o %T 2> /dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the node is not idle after 30 s (state '$state')"
echo "ok: slurmctld and slurmd up (node localhost $state)"

# three simulated boards: two of one device (seeds 31, 32) and one slowed
python3 - "$src/sim/configs/plain_lru.json" "$work" <<'PY' || fail "could not write the configs"
import copy, json, sys
c = json.load(open(sys.argv[1])); out = sys.argv[2]
for name, seed, l2, dram in (("fast-1", 31, 0, 0), ("fast-2", 32, 0, 0), ("slow", 33, 30, 60)):
    d = copy.deepcopy(c)
    d["noise"] = {"jitter_cycles": 4, "outlier_rate": 0.0005, "outlier_cycles": 400, "seed": seed}
    d["context"]["gpu_uuid"] = "GPU-sim-" + name
    next(l for l in d["levels"] if l["name"] == "l2")["hit_latency_cycles"] += l2
    d["dram_latency_cycles"] += dram
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
PY
results=$work/results
"$src/scripts/slurm/submit.sh" --nodes 3 --results "$results" --partition memhier --no-exclusive --build-dir "$bin" \
  --device "sim:$work/fast-1.json" --device "sim:$work/fast-2.json" --device "sim:$work/slow.json" \
  -- --plan quick --rounds 1 --no-plots > "$work/submit.out" 2>&1 || { cat "$work/submit.out"; fail "submit.sh exited $?"; }
cat "$work/submit.out"
array=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' "$work/submit.out")
fleet=$(sed -n 's/^fleet job: \([0-9]*\).*/\1/p' "$work/submit.out")
[ -n "$array" ] && [ -n "$fleet" ] || fail "submit.sh printed no job ids"
job=$(scontrol show job "$fleet"); grep -q "Dependency=afterany:${array}" <<<"$job" || fail "the fleet job does not depend on the array (afterany)"

deadline=$((SECONDS + ${SLURM_TEST_TIMEOUT:-400}))
while [ -n "$(squeue -h -j "$array,$fleet" 2> /dev/null)" ]; do
  [ $SECONDS -lt $deadline ] || { squeue; fail "jobs still queued or running after ${SLURM_TEST_TIMEOUT:-400} s"; }
  sleep 1
done
echo "ok: array $array and fleet job $fleet done"

# the archives: three, in the shared results directory, one per board
mapfile -t archives < <(find "$results" -mindepth 4 -maxdepth 4 -type d -name '*Z' -not -path '*/.*' | sort)
[ ${#archives[@]} = 3 ] || { ls -R "$results" | head -40; fail "${#archives[@]} archives in $results, expected 3"; }
for t in 0 1 2; do [ -s "$results/fleets/$array/task-$t.archive" ] || fail "task $t recorded no archive"; done
for a in "${archives[@]}"; do [ -f "$a/topology.json" ] && [ -f "$a/bench.json.gz" ] || fail "$a: not a full archive"; done
# the fleet's verdict: the slowed board named, exit 6
report=$results/fleets/$array/fleet-sim-plain_lru.txt
[ -f "$report" ] || { cat "$results"/fleets/memhier-fleet-*.log; fail "no fleet report $report"; }
cat "$report"
grep -q "^fleet: OUTLIER - 1 of 3 boards outside: GPU-sim-slow " "$report" || fail "the fleet does not name GPU-sim-slow alone"
python3 - "$results/fleets/$array/fleet-sim-plain_lru.json" <<'PY' || fail "fleet JSON"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["outside"] == ["GPU-sim-slow"] and r["exit_code"] == 6, (r["outside"], r["exit_code"])
PY
job=$(scontrol show job "$fleet"); grep -q "ExitCode=6:0" <<<"$job" || { scontrol show job "$fleet"; fail "the fleet job did not exit 6"; }
grep -q "JobId=$fleet .*ExitCode=6" "$rt/jobcomp.txt" 2> /dev/null || echo "note: no jobcomp record of the exit code"
echo "ok: the fleet job names GPU-sim-slow and exits 6"
echo "PASS"
