#!/usr/bin/env python3
"""Rebuilds results/index.json: one line per archive of the tree
results/<sm_XX>/<gpu-slug>/<driver-version>/<UTC timestamp>/ (read from each bench.json context).

usage: python3 scripts/archive_index.py [results-dir] [-o index.json]
       python3 scripts/archive_index.py [results-dir] --newest --gpu-slug SLUG [--sm sm_XX] [--backend cuda]
                                        [--plan full|quick] [--prefer-board GPU-UUID]

Idempotent: the index depends on the tree only (no time of its own) and the file is rewritten only
when it changes. Directories starting with '.' (unfinished archives) are skipped; a bench.json that
cannot be read is reported on stderr and listed under "skipped". --newest prints the path of the
newest archive of one GPU (exit 1 when there is none); --plan keeps only archives of that plan (a
device part's quick run under parts-*/ is no base for a full characterization); --prefer-board
prints the newest archive of that board (its gpu_uuid) when there is one, else the newest of the
GPU model, and says on stderr which (boards of one model differ: docs/fleet.md). Format: memhier-archive-index/1
(docs/formats.md section `compare`).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import archive_pack  # noqa: E402  (bench.json or bench.json.gz)

TS = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$")


def utc_of(ts_dir, ctx):
    m = TS.match(ts_dir)
    if m:
        return "%s-%s-%sT%s:%s:%sZ" % m.groups()
    return str(ctx.get("date", ""))


def scan(root):
    archives, skipped = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        bench = "bench.json" if "bench.json" in filenames else "bench.json.gz" if "bench.json.gz" in filenames else None
        if bench is None:
            continue
        dirnames[:] = []  # an archive's own subfolders (traces, plots) hold no archive
        rel = os.path.relpath(dirpath, root)
        try:
            ctx = archive_pack.load_json(os.path.join(dirpath, bench))["context"]
            if not isinstance(ctx, dict) or "memhier_version" not in ctx:
                raise ValueError("no memhier_version in the context")
        except (OSError, EOFError, ValueError, KeyError, TypeError) as e:  # EOFError: a truncated gzip
            print("archive_index.py: %s: skipped (%s)" % (rel, e), file=sys.stderr)
            skipped.append(rel)
            continue
        parts = rel.split(os.sep)
        archives.append({
            "path": rel.replace(os.sep, "/"),
            "gpu": ctx.get("gpu_name", ""),
            "gpu_slug": ctx.get("gpu_slug", parts[1] if len(parts) >= 4 else ""),
            "gpu_uuid": str(ctx.get("gpu_uuid", "")),
            "sm": ctx.get("sm_tag", parts[0] if len(parts) >= 4 else ""),
            "compute_capability": ctx.get("compute_capability", ""),
            "driver": ctx.get("driver_version", ""),
            "backend": ctx.get("device_backend", ""),
            "plan": ctx.get("memhier_plan", ""),
            "utc": utc_of(parts[-1], ctx),
            "topology": os.path.exists(os.path.join(dirpath, "topology.json")),
            "report": os.path.exists(os.path.join(dirpath, "report.md")),
            "bytes": archive_pack.disk_usage(dirpath)[0],
        })
    archives.sort(key=lambda a: (a["sm"], a["gpu_slug"], a["utc"], a["path"]))
    return archives, skipped


def render(archives, skipped):
    """The index file's text for a scan (scripts/results_retention.py compares it with index.json)."""
    index = {"format": "memhier-archive-index/1", "archives": archives, "skipped": skipped}
    return json.dumps(index, indent=1) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Index of the memhier archives under a results directory.")
    ap.add_argument("results", nargs="?", default=os.path.join(here, "..", "results"))
    ap.add_argument("-o", "--output", help="index file (default <results>/index.json)")
    ap.add_argument("--newest", action="store_true", help="print the newest archive of --gpu-slug")
    ap.add_argument("--gpu-slug")
    ap.add_argument("--sm")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--plan", help="with --newest: only archives of this memhier plan (full, quick)")
    ap.add_argument("--prefer-board", metavar="GPU_UUID",
                    help="with --newest: the newest archive of this board (gpu_uuid) when there is one")
    args = ap.parse_args()
    if not os.path.isdir(args.results):
        print("archive_index.py: %s: not a directory" % args.results, file=sys.stderr)
        return 2
    archives, skipped = scan(args.results)
    if args.newest:
        if not args.gpu_slug:
            print("archive_index.py: --newest needs --gpu-slug", file=sys.stderr)
            return 2
        match = [a for a in archives if a["gpu_slug"] == args.gpu_slug and (not args.sm or a["sm"] == args.sm)
                 and (not args.backend or a["backend"] == args.backend) and (not args.plan or a["plan"] == args.plan)]
        if not match:
            return 1
        board = [a for a in match if args.prefer_board and a["gpu_uuid"] == args.prefer_board]
        newest = max(board or match, key=lambda a: (a["utc"], a["path"]))
        if args.prefer_board:
            print("archive_index.py: %s" % ("an archive of this board (%s)" % args.prefer_board if board else
                                            "no archive of this board (%s): the newest of %s, from %s" %
                                            (args.prefer_board, args.gpu_slug, newest["gpu_uuid"] or "an unnamed board")),
                  file=sys.stderr)
        print(os.path.join(args.results, newest["path"]))
        return 0
    text = render(archives, skipped)
    out = args.output or os.path.join(args.results, "index.json")
    old = None
    if os.path.exists(out):
        with open(out) as f:
            old = f.read()
    if old != text:  # whole or not at all: an interrupted rebuild leaves the old index
        tmp = "%s.incomplete-%d" % (out, os.getpid())
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    print("%s: %d archive(s)%s" % (out, len(archives), "" if old != text else " (unchanged)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
