#!/usr/bin/env bash
# Every benchmark runs inside the guard (bench/core/guard.hpp): no family may call
# benchmark::RegisterBenchmark itself; it registers through register_guarded, register_chase,
# register_chase_in_group or tput::register_manual. A family added later is checked too.
set -uo pipefail
src=$1
hits=$(grep -rn "RegisterBenchmark\s*(" "$src/bench" --include='*.cpp' --include='*.cu' --include='*.hpp' --include='*.cuh' |
       grep -v "^$src/bench/core/guard\.\(cpp\|hpp\):" || true)
if [ -n "$hits" ]; then
  echo "FAIL: these register benchmarks outside the guard; use memhier::register_guarded (bench/core/guard.hpp):"
  echo "$hits"
  exit 1
fi
n=$(grep -rln "register_guarded\|register_chase\|register_manual" "$src/bench/families" | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no family registers through the guard at all"; exit 1; }
echo "PASS ($n family files register through the guard)"
