#!/usr/bin/env bash
# ctest cli_site (tests/cli/site.cmake): builds the site of the committed results/ (plus one broken
# archive, added to a copy) and runs the browser test (site_test.js) in Debian's Chromium.
# usage: run_site_test.sh <source dir> <work dir> <memhier-compare>
# Exit 0 pass, 1 fail, 77 skip (no node/npm, no Chromium, npm ci failed), with the reason.
set -u
src=$1 work=$2 compare=$3
chromium=${MEMHIER_CHROMIUM:-/usr/bin/chromium}
skip() { echo "SKIP: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || skip "npm is not installed (Debian: apt-get install npm)"
[ -x "$chromium" ] || skip "$chromium is missing (Debian: apt-get install chromium)"
[ -x "$compare" ] || { echo "FAIL: $compare is not built"; exit 1; }

rm -rf "$work/results" "$work/mini" "$work/site" "$work/site-nocompare"
mkdir -p "$work"
# the pinned packages (package-lock.json), installed under the build directory
for pkg in scripts/site tests/site; do
  d="$work/npm-$(echo "$pkg" | tr / -)"
  mkdir -p "$d"
  if ! cmp -s "$src/$pkg/package-lock.json" "$d/package-lock.json" || [ ! -d "$d/node_modules" ]; then
    cp "$src/$pkg/package.json" "$src/$pkg/package-lock.json" "$d/"
    ( cd "$d" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error ) ||
      skip "npm ci of $pkg failed (no registry and no cache?)"
  fi
done

# a copy of results/ (the committed archives are never touched) with one broken archive: the
# oldest H100 archive again, its topology.json cut short, listed in the copy's index.json
mkdir -p "$work/results"
cp -r "$src/results/index.json" "$src/results/sm_"* "$work/results/"
broken=$(python3 - "$work/results" <<'PY'
import json, os, shutil, sys
root = sys.argv[1]
idx = json.load(open(os.path.join(root, "index.json")))
h100 = sorted((a for a in idx["archives"] if "h100" in a["gpu_slug"]), key=lambda a: a["utc"])[0]
path = os.path.join(os.path.dirname(h100["path"]), "20261101T000000Z")
shutil.copytree(os.path.join(root, h100["path"]), os.path.join(root, path))
with open(os.path.join(root, path, "topology.json"), "r+") as f:
    f.truncate(300)
idx["archives"].append(dict(h100, path=path, utc="2026-11-01T00:00:00Z"))
json.dump(idx, open(os.path.join(root, "index.json"), "w"), indent=1)
print(path.replace("/", "_"))
PY
) || { echo "FAIL: could not prepare the results copy"; exit 1; }
# a small results tree for the site without memhier-compare: the newest archive, the broken one, one
# whose directory is missing, and the newest again with its topology.json in the memhier-topology/2
# shape (device values as numbers and booleans, inputs by name, ways as a count)
mkdir -p "$work/mini"
ln -s "$work/results/sm_90" "$work/mini/sm_90"
shapes=$(python3 - "$work/results" "$work/mini" <<'PY'
import json, math, os, shutil, sys
src, mini = sys.argv[1:]
idx = json.load(open(os.path.join(src, "index.json")))
newest = sorted(idx["archives"], key=lambda a: a["utc"])[-1]
def schema(a):
    try:
        return json.load(open(os.path.join(src, a["path"], "topology.json"))).get("schema")
    except (OSError, ValueError):  # the broken copy
        return None
# the /2 copy is made from the newest archive still in the /1 shape (the newest itself where none is)
v1 = [a for a in sorted(idx["archives"], key=lambda a: a["utc"]) if schema(a) == "memhier-topology/1"]
original = v1[-1] if v1 else newest
idx["archives"] = [newest] + ([original] if original is not newest else []) + \
    [a for a in idx["archives"] if a["utc"].startswith("2026-11-01")]
gone = dict(newest, utc="2026-11-02T00:00:00Z")  # listed, but its directory is gone
gone["path"] = gone["path"].rsplit("/", 1)[0] + "/20261102T000000Z"
v2 = dict(original, utc="2026-11-03T00:00:00Z", path="v2/" + original["path"].rsplit("/", 1)[0] + "/20261103T000000Z")
shutil.copytree(os.path.join(src, original["path"]), os.path.join(mini, v2["path"]))
def value(v):
    if not isinstance(v, str):  # already typed (a /2 original)
        return v
    if v in ("true", "false"):
        return v == "true"
    for kind in (int, float):
        try:
            x = kind(v)
            return x if math.isfinite(x) else v
        except (TypeError, ValueError):
            pass
    return v
tp = os.path.join(mini, v2["path"], "topology.json")
t = json.load(open(tp))
t["schema"] = "memhier-topology/2"
t["device"] = {k: value(v) for k, v in t["device"].items()}
t["inputs"] = [os.path.basename(p) for p in t.get("inputs", [])]
for c in t["caches"].values():
    if isinstance(c.get("ways"), list) and len(set(c["ways"])) == 1:
        c["ways"] = c["ways"][0]
json.dump(t, open(tp, "w"), indent=1)
idx["archives"] += [gone, v2]
json.dump(idx, open(os.path.join(mini, "index.json"), "w"))
ident = lambda p: "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in p)
print(ident(original["path"]), ident(v2["path"]))
PY
) || { echo "FAIL: could not prepare the small results tree"; exit 1; }
read -r old_shape new_shape <<<"$shapes"

t0=$(date +%s.%N)
python3 "$src/scripts/site.py" "$work/results" -o "$work/site" --compare "$compare" --vendor "$work/npm-scripts-site/node_modules" ||
  { echo "FAIL: site.py failed on the results copy"; exit 1; }
t1=$(date +%s.%N)
python3 "$src/scripts/site.py" "$work/mini" -o "$work/site-nocompare" --compare "$work/no-such-memhier-compare" \
  --vendor "$work/npm-scripts-site/node_modules" || { echo "FAIL: site.py failed without memhier-compare"; exit 1; }
echo "site: $(du -sb "$work/site" | cut -f1) bytes, built in $(python3 -c "print('%.1f' % ($t1 - $t0))") s"

python3 "$src/tests/site/check_site_data.py" "$work/site" "$work/results" || { echo "FAIL: the site's data differ from the archives"; exit 1; }
node "$src/tests/site/site_test.js" --site "$work/site" --results "$work/results" \
  --node-modules "$work/npm-tests-site/node_modules" --compare "$compare" --broken "$broken" \
  --no-compare-site "$work/site-nocompare" --old-shape "$old_shape" --new-shape "$new_shape" \
  ${MEMHIER_SITE_SCREENSHOTS:+--screenshots "$MEMHIER_SITE_SCREENSHOTS"}
