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
# a small results tree for the site without memhier-compare: the newest archive, the broken one and
# one whose directory is missing
mkdir -p "$work/mini"
ln -s "$work/results/sm_90" "$work/mini/sm_90"
python3 - "$work/results/index.json" "$work/mini/index.json" <<'PY'
import json, sys
idx = json.load(open(sys.argv[1]))
idx["archives"] = sorted(idx["archives"], key=lambda a: a["utc"])[-1:] + [a for a in idx["archives"] if a["utc"].startswith("2026-11-01")]
gone = dict(idx["archives"][0], utc="2026-11-02T00:00:00Z")  # listed, but its directory is gone
gone["path"] = gone["path"].rsplit("/", 1)[0] + "/20261102T000000Z"
idx["archives"].append(gone)
json.dump(idx, open(sys.argv[2], "w"))
PY

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
  --no-compare-site "$work/site-nocompare" ${MEMHIER_SITE_SCREENSHOTS:+--screenshots "$MEMHIER_SITE_SCREENSHOTS"}
