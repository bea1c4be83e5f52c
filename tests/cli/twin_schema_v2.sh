#!/usr/bin/env bash
# The twin and the GPGPU-Sim export read a memhier-topology/2 document as they read the /1 archive it
# came from (memhier-infer --from-topology writes /1 again as /2: ways as a count, typed device
# values): the same twin config (but its description) and the same export, byte for byte. And the
# twin of this build's own analysis of the archive (the whole L2 in caches.l2, one SM's view under
# one_sm_sees, replacement candidates as a list) passes check_twin_config.py.
# usage: twin_schema_v2.sh <build dir> <archive with a /1 topology.json> <work dir>
set -euo pipefail
B=$1 A=$2 W=$3
rm -rf "$W" && mkdir -p "$W"
grep -q '"schema": "memhier-topology/1"' "$A/topology.json" || { echo "twin_schema_v2: $A/topology.json is not /1" >&2; exit 1; }
"$B/memhier-infer" --from-topology "$A/topology.json" -o "$W/v2.json"
grep -q '"schema": "memhier-topology/2"' "$W/v2.json" || { echo "twin_schema_v2: --from-topology did not write /2" >&2; exit 1; }
for x in "$A" "$W/v2.json"; do
  n=$([ "$x" = "$A" ] && echo v1 || echo v2)
  "$B/memhier-infer" --twin-config "$x" -o "$W/twin_$n.json"
  "$B/memhier-infer" --gpgpusim-config "$x" -o "$W/gpgpusim_$n.config"
done
cmp "$W/gpgpusim_v1.config" "$W/gpgpusim_v2.config"
python3 - "$W/twin_v1.json" "$W/twin_v2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for t in (a, b):
    t.pop("description", None)
if a != b:
    sys.exit("twin_schema_v2: the twin of the /2 document differs from the /1 archive's")
print("twin_schema_v2: the same twin and export from /1 and /2")
PY
"$B/memhier-infer" "$A" -o "$W/now.json" 2>/dev/null
"$B/memhier-infer" --twin-config "$W/now.json" -o "$W/twin_now.json"
"$B/memhier-infer" --gpgpusim-config "$W/now.json" -o "$W/gpgpusim_now.config"
python3 "$(dirname "$0")/check_twin_config.py" "$W/now.json" "$W/twin_now.json"
python3 "$(dirname "$0")/check_gpgpusim_config.py" "$W/gpgpusim_now.config" --topology "$W/now.json"
