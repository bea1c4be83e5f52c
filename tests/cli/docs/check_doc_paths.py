#!/usr/bin/env python3
"""The docs speak of what exists (issue 31 item 6): every repository path and every script a page of
README.md or docs/*.md names exists, and every default the option tables state is the default
`--help` states.

Paths: backticked words and Markdown link targets that begin with a folder of the repository
(scripts/, docs/, tests/, sim/, bench/, ...) or name a page beside the one that names them (a link
`formats.md` in docs/). Placeholders (<...>, N, *, ...) and paths under build/ or an install
prefix P/ are not paths of the checkout and are skipped.
Defaults: each row `| `--opt ...` | ... (default X...) |` of the option tables in docs/usage.md
(characterize.sh) must find `--opt` in `characterize.sh --help` with the same default.

usage: check_doc_paths.py SOURCE_DIR   (exit 1 naming each problem)"""
import os
import re
import subprocess
import sys

src = sys.argv[1]
TOP = ("scripts/", "docs/", "tests/", "sim/", "bench/", "analysis/", "kernels/", "runtime/", "common/", "tools/",
       "results/", "dev/", "cmake/", ".ci/")
problems = []


def pages():
    yield os.path.join(src, "README.md")
    for n in sorted(os.listdir(os.path.join(src, "docs"))):
        if n.endswith(".md"):
            yield os.path.join(src, "docs", n)
    yield os.path.join(src, "results", "README.md")


def candidates(text):
    for m in re.finditer(r"`([^`\n]+)`", text):
        for word in m.group(1).split():
            yield word, False
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        yield m.group(1), True


def as_path(word, page, link):
    w = word.strip("'\",;:.()")
    w = w.split("#")[0]
    w = re.sub(r":\d+$", "", w)  # file:line
    if not w or "://" in w:
        return None
    if re.search(r"[<>*{}$\[\]|=]|\.\.\.|…", w):
        return None  # a placeholder, a glob, a variable, an option value
    if w.startswith(("build/", "P/", "/")) or "node_modules" in w:
        return None  # generated or outside the checkout
    here = os.path.dirname(page)
    if w.startswith(TOP):
        # names with a placeholder part (refine-N.json, parts-<UTC>) are not paths of the checkout
        if re.search(r"(^|[/-])N([./-]|$)", w) or "XX" in w:
            return None
        return os.path.join(src, w)
    if link and re.fullmatch(r"[a-zA-Z_./]+\.md", w):
        return os.path.normpath(os.path.join(here, w))  # a linked page, relative to this one
    return None


for page in pages():
    text = open(page, encoding="utf-8").read()
    rel = os.path.relpath(page, src)
    seen = set()
    for word, link in candidates(text):
        p = as_path(word, page, link)
        if p is None or p in seen:
            continue
        seen.add(p)
        if not os.path.exists(p.rstrip("/")):
            problems.append("%s names %s, which does not exist" % (rel, os.path.relpath(p, src)))


def help_text(script):
    return subprocess.run(["bash", os.path.join(src, "scripts", script), "--help"], capture_output=True, text=True).stdout


def default_of(text):
    m = re.search(r"\(default:? ([^;,)]+)", text)
    return m.group(1).strip().strip("`").rstrip(".") if m else None


usage = open(os.path.join(src, "docs", "usage.md"), encoding="utf-8").read()
helps = {"characterize.sh": help_text("characterize.sh")}
table = usage[usage.index("| option | meaning |"):]
table = table[:table.index("\n\n")]
checked = 0
for row in table.splitlines()[2:]:
    cells = [c.strip() for c in row.strip("|").split("|")]
    opt = re.match(r"`(--[a-z-]+)", cells[0])
    if not opt:
        continue
    doc_default = default_of(cells[-1])
    lines = [l for l in helps["characterize.sh"].splitlines() if re.match(r"\s+" + re.escape(opt.group(1)) + r"\b", l)]
    if not lines:
        problems.append("docs/usage.md documents characterize.sh %s; --help does not list it" % opt.group(1))
        continue
    if doc_default is None:
        continue
    i = helps["characterize.sh"].splitlines().index(lines[0])
    block = " ".join(helps["characterize.sh"].splitlines()[i:i + 3])
    help_default = default_of(block)
    checked += 1
    if help_default is None or help_default.split()[0].strip("`'") != doc_default.split()[0].strip("`'"):
        problems.append("docs/usage.md: characterize.sh %s default '%s', --help says '%s'" % (opt.group(1), doc_default, help_default))

for p in problems:
    print("FAIL: " + p)
print("%d pages; %d defaults checked against --help; %d problems" % (len(list(pages())), checked, len(problems)))
sys.exit(1 if problems else 0)
