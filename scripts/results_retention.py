#!/usr/bin/env python3
"""The retention rule of results/ (results/README.md, "What stays in results/"): check it or apply it.

usage: python3 scripts/results_retention.py check [results-dir] [--keep N]
       python3 scripts/results_retention.py apply [results-dir] [--keep N]

results-dir (default: results) is resolved against the current directory. The rule:
  results/README.md, results/index.json (as scripts/archive_index.py writes it for the tree), and
  results/sim/<name>/: a README.md and small files (at most 256 KiB in all), no archive;
  results/<sm_XX>/<gpu-slug>/<driver>/<UTC timestamp>/: an archive is kept when it is one of the
    N newest (--keep, default 5: the CI gate set of tests/cli/gate.cmake) complete full
    characterizations of a real GPU and driver (bench.json[.gz] of plan full whose context names
    this GPU and driver and no simulated device, topology.json, report.md) of at most 2,000,000
    bytes on disk (scripts/archive_pack.py disk_usage, the limit of scripts/characterize.sh), or,
    past those N, the newest that holds a level family beyond one SM which the N lack
    (LEVEL_FAMILIES: peer, host, dsmem, async_copy, multicast; held when bench.json has a row of it
    that ran, and for peer the context names peer devices); nothing else is;
  results/<sm_XX>/<gpu-slug>/<driver>/parts-<UTC timestamp>/: the summary of a device call's part
    outputs: a README.md and text or figures only (.md, .txt, .tsv, .svg, .png), at most 256 KiB;
  nothing else.

check   prints every violation, one a line (path: what), and exits 1 when there is one, else 0
        (then one line per archive kept for a level family: path: the families).
apply   writes the summaries first (a parts folder's README.md gets a section naming what was
        removed from it and the archives of its call that go), then removes what the rule does not
        keep (git rm where the files are tracked, else from the disk; the removals and the written
        READMEs are staged in git), rewrites index.json (scripts/archive_index.py), checks again and
        exits as check does. A kept archive's files are never touched.
Bad input (no such directory, bad --keep): one line on stderr, exit 2.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import archive_index  # noqa: E402
import archive_pack  # noqa: E402

PROG = "results_retention.py"
TS = re.compile(r"^\d{8}T\d{6}Z$")
PARTS = re.compile(r"^parts-(\d{8}T\d{6}Z)$")
SM = re.compile(r"^sm_\d+$")
ARCHIVE_LIMIT = 2000000          # bytes on disk (archive_pack.disk_usage), as scripts/characterize.sh
SUMMARY_LIMIT = 256 * 1024       # bytes of files in a parts summary or a sim folder
SUMMARY_EXT = (".md", ".txt", ".tsv", ".svg", ".png")
CALL_WINDOW = 3600               # an archive belongs to the latest parts folder at most this long before it
TOP_FILES = ("README.md", "index.json")
# The level families beyond one SM (results/README.md, rule 1): (label, benchmark family, arguments its
# name must carry, context key that must be non-empty). An archive holds a family when bench.json has a
# row of that family with those arguments that ran (no error, not skipped) and the context key is set.
LEVEL_FAMILIES = (
    ("peer", "peer", {}, "peer_devices"),
    ("host", "host", {}, None),
    ("dsmem", "dsmem", {}, None),
    ("async_copy", "async_copy", {}, None),
    ("multicast", "async_copy", {"op": "multicast"}, None),
)


class BadInput(Exception):
    pass


def files_under(d):
    out = []
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for n in sorted(filenames):
            p = os.path.join(dirpath, n)
            out.append((os.path.relpath(p, d).replace(os.sep, "/"), os.path.getsize(p)))
    return out


def kib(n):
    return "%.1f KiB" % (n / 1024.0) if n < 1024 * 1024 else "%.2f MB" % (n / 1e6)


def level_families(doc):
    """The labels of LEVEL_FAMILIES an archive's bench.json (parsed) holds."""
    ctx, held = doc["context"], set()
    for b in doc.get("benchmarks") or []:
        if not isinstance(b, dict) or b.get("error_occurred") or b.get("skipped"):
            continue
        parts = str(b.get("name", "")).split("/")
        args = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
        for label, family, want, ctx_key in LEVEL_FAMILIES:
            if (parts[0] == family and all(args.get(k) == v for k, v in want.items())
                    and (ctx_key is None or str(ctx.get(ctx_key) or "").strip())):
                held.add(label)
    return held


def archive_problem(path, sm, gpu, driver):
    """(why this archive directory cannot be kept or None, the level families it holds)."""
    bench = archive_pack.bench_path(path)
    if bench is None:
        return "no bench.json or bench.json.gz: not an archive", set()
    try:
        doc = archive_pack.load_json(bench)
        ctx = doc["context"]
        if not isinstance(ctx, dict) or "memhier_version" not in ctx:
            raise ValueError("no memhier_version in the context")
        families = level_families(doc)
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as e:  # EOFError: a truncated gzip
        return "bench.json unreadable (%s)" % e, set()
    return archive_context_problem(path, ctx, sm, gpu, driver), families


def archive_context_problem(path, ctx, sm, gpu, driver):
    backend = str(ctx.get("device_backend", ""))
    if backend.startswith("sim:"):
        return ("a simulated device's archive (device_backend %s): simulated runs archive outside results/ "
                "(scripts/characterize.sh writes sim-results/ unless --results says otherwise)" % backend)
    missing = [n for n in ("topology.json", "report.md") if not os.path.exists(os.path.join(path, n))]
    if missing:
        return "incomplete archive: no %s" % " and no ".join(missing)
    if ctx.get("memhier_plan") != "full":
        return "plan %r, not a full characterization" % ctx.get("memhier_plan")
    for key, want in (("sm_tag", sm), ("gpu_slug", gpu), ("driver_version", driver)):
        if str(ctx.get(key, "")) != want:
            return "its context says %s %r, the folder %r" % (key, ctx.get(key), want)
    used = archive_pack.disk_usage(path)[0]
    if used > ARCHIVE_LIMIT:
        return "%s on disk, over the %d-byte archive limit" % (kib(used), ARCHIVE_LIMIT)
    return None


def summary_problems(d, rel, need_readme=True, allow_ext=SUMMARY_EXT):
    """[(path, what)] for a parts summary or a sim folder; the second list: files to remove."""
    out, remove = [], []
    files = files_under(d)
    if need_readme and not os.path.isfile(os.path.join(d, "README.md")):
        out.append((rel, "no README.md (a summary says what the outputs were)"))
    total = 0
    for f, size in files:
        if allow_ext and not f.lower().endswith(allow_ext):
            out.append((rel + "/" + f, "not a summary (of part outputs only %s files stay)" % " ".join(allow_ext)))
            remove.append(f)
        elif os.path.basename(f).startswith("bench.json"):
            out.append((rel + "/" + f, "an archive's data outside an archive folder"))
            remove.append(f)
        else:
            total += size
    if total > SUMMARY_LIMIT:
        out.append((rel, "summary files %s, over %s" % (kib(total), kib(SUMMARY_LIMIT))))
    return out, remove


def scan(root, keep):
    """Everything the rule says about the tree: violations, and what apply would do."""
    plan = {"violations": [], "remove": [], "parts": {}, "kept": [], "kept_for": {}, "summaries": [],
            "gone_archives": {}}
    v = plan["violations"]

    def bad(rel, what, remove=True):
        v.append((rel, what))
        if remove:
            plan["remove"].append(rel)

    for n in sorted(os.listdir(root)):
        p = os.path.join(root, n)
        if n in TOP_FILES and os.path.isfile(p):
            continue
        if n == "sim" and os.path.isdir(p):
            for s in sorted(os.listdir(p)):
                sp = os.path.join(p, s)
                if not os.path.isdir(sp):
                    bad("sim/" + s, "not a folder of simulator measurements")
                    continue
                probs, _ = summary_problems(sp, "sim/" + s, allow_ext=())
                v.extend(probs)
            continue
        if SM.match(n) and os.path.isdir(p):
            for gpu in sorted(os.listdir(p)):
                gp = os.path.join(p, gpu)
                if not os.path.isdir(gp):
                    bad("%s/%s" % (n, gpu), "not a GPU folder")
                    continue
                for drv in sorted(os.listdir(gp)):
                    dp = os.path.join(gp, drv)
                    if not os.path.isdir(dp):
                        bad("%s/%s/%s" % (n, gpu, drv), "not a driver folder")
                        continue
                    scan_driver(root, n, gpu, drv, keep, plan, bad)
            continue
        bad(n, "not part of the layout of results/ (README.md, index.json, sim/, sm_XX/)")
    for n in TOP_FILES:
        if not os.path.isfile(os.path.join(root, n)):
            v.append((n, "missing"))
    return plan


def scan_driver(root, sm, gpu, drv, keep, plan, bad):
    rel_d = "%s/%s/%s" % (sm, gpu, drv)
    d = os.path.join(root, sm, gpu, drv)
    eligible, parts, families = [], [], {}
    for n in sorted(os.listdir(d)):
        p, rel = os.path.join(d, n), rel_d + "/" + n
        if TS.match(n) and os.path.isdir(p):
            why, families[n] = archive_problem(p, sm, gpu, drv)
            if why:
                bad(rel, "archive not kept: " + why)
                plan["gone_archives"][rel] = n
            else:
                eligible.append(n)
        elif PARTS.match(n) and os.path.isdir(p):
            parts.append(n)
            probs, remove = summary_problems(p, rel)
            plan["violations"].extend(probs)
            plan["parts"][rel] = remove
            plan["summaries"].append(rel)
        else:
            bad(rel, "neither an archive (<UTC timestamp>/) nor a parts summary (parts-<UTC timestamp>/)")
    eligible.sort(reverse=True)  # UTC timestamps: by name is by time
    extra = beyond_gate_set(eligible, families, keep)
    for i, n in enumerate(eligible):
        rel = rel_d + "/" + n
        if i < keep:
            plan["kept"].append(rel)
        elif n in extra:
            plan["kept"].append(rel)
            plan["kept_for"][rel] = extra[n]
        else:
            newer = sorted(l for l in families[n] if any(l in f for f in extra.values()))
            bad(rel, "archive not kept: older than the %d newest full archives of %s %s%s" % (
                keep, gpu, drv, "; a newer archive holds its %s rows" % ", ".join(newer) if newer else ""))
            plan["gone_archives"][rel] = n
    # which parts folder (device call) each removed archive came from: the latest one at most an hour before it
    calls = sorted(parts)
    for rel, n in list(plan["gone_archives"].items()):
        if not rel.startswith(rel_d + "/"):
            continue
        t = when(n)
        owner = [c for c in calls if 0 <= (t - when(PARTS.match(c).group(1))).total_seconds() <= CALL_WINDOW]
        if owner:
            plan.setdefault("call_of", {})[rel] = rel_d + "/" + owner[-1]


def beyond_gate_set(eligible, families, keep):
    """{archive: [labels]}: past the `keep` newest (eligible, newest first), the newest archive of each
    level family the `keep` newest lack, with the families it is kept for."""
    gate = set().union(*(families[n] for n in eligible[:keep]))
    extra = {}
    for label, _, _, _ in LEVEL_FAMILIES:
        if label not in gate:
            n = next((n for n in eligible[keep:] if label in families[n]), None)
            if n is not None:
                extra.setdefault(n, []).append(label)
    return extra


def when(ts):
    return datetime.datetime.strptime(ts, "%Y%m%dT%H%M%SZ")


def check_index(root, plan):
    archives, skipped = archive_index.scan(root)
    want = archive_index.render(archives, skipped)
    p = os.path.join(root, "index.json")
    if os.path.isfile(p):
        with open(p) as f:
            if f.read() != want:
                plan["violations"].append(("index.json", "out of date (python3 scripts/archive_index.py %s)" % root))


def git_top(root):
    try:
        r = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def tracked(root, rel):
    r = subprocess.run(["git", "-C", root, "ls-files", "--", rel], capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.strip() != ""


def remove(root, rel, use_git):
    p = os.path.join(root, rel)
    if use_git and tracked(root, rel):
        r = subprocess.run(["git", "-C", root, "rm", "-r", "-q", "--", rel], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("git rm %s: %s" % (rel, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode))
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.lexists(p):
        os.remove(p)


def readme_note(root, parts_rel, files, archives):
    lines = ["", "## Retention (results/README.md)", ""]
    if files:
        lines.append("Only the summaries of these part outputs stay in results/; removed: %s." %
                     ", ".join("`%s`" % f for f in files))
    if archives:
        lines.append("Archives of this session that the rule no longer keeps, removed: %s." %
                     ", ".join("`%s`" % a for a in archives))
    where = os.path.join(os.path.basename(os.path.abspath(root)), os.path.dirname(parts_rel)).replace(os.sep, "/")
    lines.append("`git log --diff-filter=D --stat -- %s` names the commit that removed them; its parent "
                 "holds them." % where)
    return "\n".join(lines) + "\n"


def apply(root, keep):
    plan = scan(root, keep)
    use_git = git_top(root) is not None
    written = []
    archives_of = {}
    for a, call in plan.get("call_of", {}).items():
        archives_of.setdefault(call, []).append(os.path.basename(a))
    for rel in plan["summaries"]:
        files, gone = plan["parts"].get(rel, []), sorted(archives_of.get(rel, []))
        readme = os.path.join(root, rel, "README.md")
        text = ""
        if not os.path.exists(readme):
            stay = [f for f, _ in files_under(os.path.join(root, rel)) if f not in files]
            text = ("# Part outputs of the device session %s\n\nNo notes came with these outputs; the summaries "
                    "kept: %s.\n" % (os.path.basename(rel)[len("parts-"):], ", ".join("`%s`" % f for f in stay) or "none"))
        if files or gone:
            text += readme_note(root, rel, files, gone)
        if not text:
            continue
        with open(readme, "a") as f:
            f.write(text)
        if use_git and tracked(root, rel):
            written.append(rel + "/README.md")
    for rel in plan["summaries"]:
        for f in plan["parts"].get(rel, []):
            remove(root, rel + "/" + f, use_git)
        prune_empty(os.path.join(root, rel))
    for rel in plan["remove"]:
        remove(root, rel, use_git)
    for rel in plan["remove"]:  # emptied GPU and driver folders
        prune_empty(os.path.join(root, os.path.dirname(rel)), stop=root)
    if use_git and written:
        subprocess.run(["git", "-C", root, "add", "--"] + written, check=False)
    archives, skipped = archive_index.scan(root)
    text = archive_index.render(archives, skipped)
    idx = os.path.join(root, "index.json")
    old = open(idx).read() if os.path.exists(idx) else None
    if old != text:
        with open(idx + ".incomplete", "w") as f:
            f.write(text)
        os.replace(idx + ".incomplete", idx)
        if use_git and tracked(root, "index.json"):
            subprocess.run(["git", "-C", root, "add", "--", "index.json"], check=False)
    n_files = sum(len(f) for f in plan["parts"].values())
    print("%s: removed %d path(s) and %d part output file(s); %d archive(s) kept"
          % (PROG, len(plan["remove"]), n_files, len(plan["kept"])))


def prune_empty(d, stop=None):
    """With stop: d and its parents while empty, up to stop. Without: every empty folder inside d."""
    if stop is None:
        for dirpath, dirnames, filenames in os.walk(d, topdown=False):
            if dirpath != d and not os.listdir(dirpath):
                os.rmdir(dirpath)
        return
    while os.path.abspath(d) != os.path.abspath(stop) and os.path.isdir(d) and not os.listdir(d):
        os.rmdir(d)
        d = os.path.dirname(d)


def check(root, keep):
    plan = scan(root, keep)
    check_index(root, plan)
    for rel, what in plan["violations"]:
        print("%s: %s" % (os.path.join(root, rel), what))
    if plan["violations"]:
        print("%s: %d violation(s) of the retention rule (results/README.md); `%s apply` removes what it "
              "does not keep" % (PROG, len(plan["violations"]), PROG))
        return 1
    for rel, labels in sorted(plan["kept_for"].items()):
        print("%s: kept beside the %d newest for its %s rows" % (os.path.join(root, rel), keep, ", ".join(labels)))
    print("%s: %s follows the retention rule: %d archive(s) kept, %d parts summar%s" %
          (PROG, root, len(plan["kept"]), len(plan["summaries"]), "y" if len(plan["summaries"]) == 1 else "ies"))
    return 0


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print("%s: %s (see --help)" % (PROG, message), file=sys.stderr)
        sys.exit(2)


def main():
    doc = __doc__.split("\n\n")
    ap = Parser(prog=PROG, description=doc[0].strip() + "\n\n" + "\n\n".join(doc[2:]).strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("check", "apply"),
                    help="check: list every violation (exit 1 if any); apply: remove what the rule does not keep")
    ap.add_argument("results", nargs="?", default="results", help="the results directory (default: results)")
    ap.add_argument("--keep", type=int, default=5, metavar="N",
                    help="full archives kept per GPU and driver (default 5: the CI gate set)")
    args = ap.parse_args()
    root = os.path.abspath(args.results)
    try:
        if args.keep < 1:
            raise BadInput("--keep %d: at least 1" % args.keep)
        if not os.path.isdir(root):
            raise BadInput("%s: not a directory" % args.results)
    except BadInput as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if args.command == "check":
        return check(args.results, args.keep)
    try:
        apply(args.results, args.keep)
    except (RuntimeError, OSError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    return check(args.results, args.keep)


if __name__ == "__main__":
    sys.exit(main())
