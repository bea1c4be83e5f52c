#!/usr/bin/env bash
# archive_index.py on a temporary results tree (tests/cli/compare_archive_index.cmake):
# usage run_index_test.sh <archive_index.py> <golden archive dir> <work-dir>
set -u
idx=$1 golden=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
a=$work/sm_90/nvidia-h100-80gb-hbm3/580.95.05
mkdir -p "$a/20261121T180000Z" "$a/20261122T090000Z" "$work/.incomplete-abc" "$work/sm_90/broken/1/20260101T000000Z"
cp "$golden"/bench.json "$golden"/topology.json "$a/20261121T180000Z/"
cp "$golden"/bench.json "$a/20261122T090000Z/"
mkdir -p "$a/20261122T090000Z/traces" && cp "$golden/bench.json" "$a/20261122T090000Z/traces/"  # not an archive
cp "$golden/bench.json" "$work/.incomplete-abc/"
echo '{' >"$work/sm_90/broken/1/20260101T000000Z/bench.json"

python3 "$idx" "$work" || fail "archive_index.py exited $?"
python3 - "$work/index.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "memhier-archive-index/1", d["format"]
paths = [a["path"] for a in d["archives"]]
assert paths == ["sm_90/nvidia-h100-80gb-hbm3/580.95.05/20261121T180000Z",
                 "sm_90/nvidia-h100-80gb-hbm3/580.95.05/20261122T090000Z"], paths
a = d["archives"][0]
assert a["gpu"] == "NVIDIA H100 80GB HBM3" and a["sm"] == "sm_90" and a["driver"] == "580.95.05", a
assert a["utc"] == "2026-11-21T18:00:00Z" and a["backend"] == "cuda" and a["topology"] is True, a
assert d["skipped"] == ["sm_90/broken/1/20260101T000000Z"], d["skipped"]
PY
sum1=$(md5sum <"$work/index.json")
out=$(python3 "$idx" "$work"); grep -q "(unchanged)" <<<"$out" || fail "second run rewrote the index"
[ "$sum1" = "$(md5sum <"$work/index.json")" ] || fail "index not idempotent"
newest=$(python3 "$idx" "$work" --newest --gpu-slug nvidia-h100-80gb-hbm3 --sm sm_90) || fail "--newest found nothing"
[ "$newest" = "$a/20261122T090000Z" ] || fail "--newest gave $newest"
python3 "$idx" "$work" --newest --gpu-slug nvidia-a100-sxm4-40gb >/dev/null && fail "--newest for an absent GPU succeeded"
plan=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"]["memhier_plan"])' "$golden/bench.json")
newest=$(python3 "$idx" "$work" --newest --gpu-slug nvidia-h100-80gb-hbm3 --plan "$plan") || fail "--newest --plan $plan found nothing"
[ "$newest" = "$a/20261122T090000Z" ] || fail "--newest --plan gave $newest"
python3 "$idx" "$work" --newest --gpu-slug nvidia-h100-80gb-hbm3 --plan no-such-plan >/dev/null && fail "--newest --plan no-such-plan succeeded"
# --prefer-board: the older archive's board when asked for it, the newest of the model otherwise
python3 - "$a/20261121T180000Z/bench.json" <<'PY' || fail "could not rename the board"
import json, sys
d = json.load(open(sys.argv[1])); d["context"]["gpu_uuid"] = "GPU-older"; json.dump(d, open(sys.argv[1], "w"))
PY
newest=$(python3 "$idx" "$work" --newest --gpu-slug nvidia-h100-80gb-hbm3 --prefer-board GPU-older 2>"$work/err") || fail "--prefer-board found nothing"
[ "$newest" = "$a/20261121T180000Z" ] || fail "--prefer-board GPU-older gave $newest"
grep -q "an archive of this board (GPU-older)" "$work/err" || fail "--prefer-board did not say it found the board: $(cat "$work/err")"
newest=$(python3 "$idx" "$work" --newest --gpu-slug nvidia-h100-80gb-hbm3 --prefer-board GPU-elsewhere 2>"$work/err") || fail "--prefer-board of an absent board found nothing"
[ "$newest" = "$a/20261122T090000Z" ] || fail "--prefer-board of an absent board gave $newest"
grep -q "no archive of this board (GPU-elsewhere)" "$work/err" || fail "--prefer-board did not say the board has none: $(cat "$work/err")"
python3 "$idx" "$work" > /dev/null && grep -q '"gpu_uuid": "GPU-older"' "$work/index.json" || fail "index.json without the board's gpu_uuid"
python3 "$idx" "$work/nope" 2>/dev/null; [ $? = 2 ] || fail "missing results dir must exit 2"
echo "archive_index.py: all checks passed"
