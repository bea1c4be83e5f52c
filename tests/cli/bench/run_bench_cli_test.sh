#!/usr/bin/env bash
# memhier-bench's command line: bad input gets one clear line on stderr and exit status 2, no
# stack trace and no abort; the simulated device runs a plan and writes JSON with traces.
set -uo pipefail
bench=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=expect_error.sh
. "$(dirname "$0")/expect_error.sh"
expect_error "unknown flag '--bogus'" --bogus
expect_error "use console, json or csv" --benchmark_format=xml
expect_error "use cuda:N" --device=cuda:x
expect_error "unknown device" --device=tpu:0
expect_error "unknown plan" --plan=huge
expect_error "missing.json" --device=sim:"$work/missing.json"
expect_error "give one" --plan=none --device=sim:"$src/sim/configs/plain_lru.json"
echo '{"format": "memhier-requests/1", "pchase": [{"path": "l3"}]}' > "$work/bad_req.json"
expect_error "unknown path 'l3'" --device=sim:"$src/sim/configs/plain_lru.json" --memhier_extra="$work/bad_req.json"
echo '{"format": "memhier-requests/1", "cache_streams": [{"cache": "l3", "k": 8}]}' > "$work/bad_streams.json"
expect_error "cache_streams request 1: cache 'l3'" --device=sim:"$src/sim/configs/plain_lru.json" --memhier_extra="$work/bad_streams.json"
echo '{"format": "memhier-requests/1", "cache_streams": [{"cache": "l1", "k": 8, "pool": 3}]}' > "$work/bad_streams.json"
expect_error "unknown key 'pool'" --device=sim:"$src/sim/configs/plain_lru.json" --memhier_extra="$work/bad_streams.json"
# a cache_streams request runs alone with --plan=none: the point named as the plan names it
echo '{"format": "memhier-requests/1", "cache_streams": [{"cache": "l1", "variant": "reread2", "k": 100, "trials": 2}]}' > "$work/streams.json"
"$bench" --device=sim:"$src/sim/configs/plain_lru.json" --plan=none --memhier_extra="$work/streams.json" \
  --benchmark_out="$work/streams_bench.json" --benchmark_out_format=json --memhier_progress=0 > /dev/null 2> "$work/err" ||
  { cat "$work/err"; fail "the cache_streams request failed"; }
python3 - "$work/streams_bench.json" <<'PY' || fail "the cache_streams request's point is not as asked"
import json, sys
b = [e for e in json.load(open(sys.argv[1]))["benchmarks"] if e["name"].startswith("cache_streams/")]
assert len(b) == 1 and "/variant:reread2/loads:dep/k:100/" in b[0]["name"], [e["name"] for e in b]
assert b[0]["trials"] > 0 and b[0]["k"] == 100
PY
# cuda:N: on a machine without a GPU the line says so and points to the simulated device;
# on one with a GPU, an index past the last device is out of range
expect_error "(no CUDA device.*sim:|out of range)" --device=cuda:999
# the simulated device runs the quick plan: JSON with the context and traces beside it
"$bench" --device=sim:"$src/sim/configs/plain_lru.json" --plan=quick --benchmark_filter='^(pchase|tlb)' \
  --benchmark_out="$work/run/bench.json" --benchmark_out_format=json --memhier_progress=0 > /dev/null 2> "$work/err" ||
  { cat "$work/err"; fail "the quick sim plan failed"; }
python3 - "$work/run/bench.json" <<'PY' || fail "bench.json lacks what the contract says"
import json, os, sys
d = json.load(open(sys.argv[1]))
c = d["context"]
for k in ("memhier_version", "device_backend", "gpu_name", "sm_count", "l2_cache_bytes", "trace_dir",
          "plan_wall_seconds", "chase_limit_bytes_global_cg", "tlb_limit_bytes"):
    assert k in c, k
assert c["device_backend"].startswith("sim:")
names = [b["name"] for b in d["benchmarks"]]
assert any(n.startswith("pchase/path:global_ca/mode:count") for n in names)
assert any(n.startswith("tlb/") for n in names)
fine = [b for b in d["benchmarks"] if "/mode:fine/" in b["name"]]
assert fine and all("latency_cycles" in b and "miss_rate" in b for b in fine)
tdir = os.path.join(os.path.dirname(sys.argv[1]), c["trace_dir"])
assert len(os.listdir(tdir)) >= len(fine)
PY
echo PASS
