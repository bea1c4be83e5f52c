#!/usr/bin/env python3
"""Archive files of memhier (docs/formats.md, "Archive files"): packs the traces of an archive
into one file, compresses its Google Benchmark JSON files, unpacks again, and reports the size.

usage: python3 scripts/archive_pack.py pack ARCHIVE [--full DIR] [--traces-only]
       python3 scripts/archive_pack.py unpack ARCHIVE
       python3 scripts/archive_pack.py size ARCHIVE [--limit BYTES] [--estimate]

pack:   traces/ -> traces.pack.gz (format `memhier-pack 2`, gzip), bench.json, refine-N.json and
        requests-N.json -> .json.gz. --full DIR first copies the unpacked traces/ there (full traces
        kept outside results/). Without Python's zlib the pack stays plain (traces.pack) and the
        JSON files stay as they are. Reproducible: gzip headers carry no time.
unpack: the reverse, in place (tools that want plain files, Google Benchmark's compare.py).
size:   bytes on disk (4 KiB blocks, as du counts them) and the largest parts; exit 1 over --limit.
memhier-infer, memhier-compare and plot.py read packed and unpacked archives alike.
"""
import argparse
import io
import os
import shutil
import sys

try:
    import gzip
    import zlib  # noqa: F401  (gzip needs it; a Python without zlib keeps files plain)
    HAVE_GZIP = True
except ImportError:  # pragma: no cover
    HAVE_GZIP = False

MAGIC = b"memhier-pack 2\n"
MAGICS = (b"memhier-pack 1\n", MAGIC)  # version 1: `file` entries only
JSON_GLOBS = ("bench.json", "refine-", "requests-")
DATA = b"\ndata\n"


def strip_rows(body):
    """(first, step, rows, body without the rows' first column) where a trace's data rows begin
    with integers first, first + step, ... (an index, an offset), restored exactly; else None."""
    i = body.find(DATA)
    if i < 0:
        return None
    pos, rest, idx = i + len(DATA), [], []
    while True:
        eol = body.find(b"\n", pos)
        if eol < 0:
            break
        line = body[pos:eol]
        sp = line.find(b" ")
        head = line[:sp] if sp > 0 else b""
        if not head or not (head.isdigit() or (head[:1] == b"-" and head[1:].isdigit())):
            break
        idx.append(int(head))
        rest.append(line[sp + 1:])
        pos = eol + 1
    if len(idx) < 3:
        return None
    first, step = idx[0], idx[1] - idx[0]
    if any(x != first + k * step for k, x in enumerate(idx)):
        return None
    out = body[:i + len(DATA)] + b"".join(r + b"\n" for r in rest) + body[pos:]
    if restore_rows(out, first, step, len(idx)) != body:  # e.g. "+5" or "007": kept as it was
        return None
    return first, step, len(idx), out


def restore_rows(body, first, step, rows, label="pack"):
    i = body.find(DATA)
    if i < 0:
        raise ValueError("%s: a rows entry without a data line" % label)
    pos, out = i + len(DATA), [body[:i + len(DATA)]]
    for k in range(rows):
        eol = body.find(b"\n", pos)
        if eol < 0:
            raise ValueError("%s: a rows entry with fewer than %d rows" % (label, rows))
        out.append(b"%d " % (first + k * step) + body[pos:eol + 1])
        pos = eol + 1
    out.append(body[pos:])
    return b"".join(out)


def make_pack(files):
    """{name: bytes} -> pack bytes (names sorted; one line per entry, then its bytes; a trace whose
    data rows begin with an arithmetic progression as a `rows` entry without that column)."""
    out = io.BytesIO()
    out.write(MAGIC)
    for name in sorted(files):
        body = files[name]
        rows = strip_rows(body)
        if rows:
            first, step, n, body = rows
            out.write(b"rows %d %d %d %d %s\n" % (len(body), first, step, n, name.encode()))
        else:
            out.write(b"file %d %s\n" % (len(body), name.encode()))
        out.write(body)
    out.write(b"end\n")
    return out.getvalue()


def parse_pack(data, label="pack"):
    magic = next((m for m in MAGICS if data.startswith(m)), None)
    if magic is None:
        raise ValueError("%s: not a memhier pack" % label)
    files, pos = {}, len(magic)
    while True:
        eol = data.find(b"\n", pos)
        if eol < 0:
            raise ValueError("%s: truncated pack (no end line)" % label)
        line, pos = data[pos:eol].decode(), eol + 1
        if line == "end":
            return files
        try:
            if line.startswith("rows ") and magic == MAGIC:
                word, size, first, step, rows, name = line.split(" ", 5)
                first, step, rows = int(first), int(step), int(rows)
            else:
                word, size, name = line.split(" ", 2)
            size = int(size)
        except ValueError:
            raise ValueError("%s: bad pack entry line %r" % (label, line))
        if word not in ("file", "rows") or "/" in name or not name:
            raise ValueError("%s: bad pack entry line %r" % (label, line))
        if pos + size > len(data):
            raise ValueError("%s: truncated pack (entry %s)" % (label, name))
        body = data[pos:pos + size]
        files[name] = restore_rows(body, first, step, rows, label) if word == "rows" else body
        pos += size


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        if not HAVE_GZIP:
            raise OSError("%s: gzip-compressed and this Python has no zlib" % path)
        data = gzip.decompress(data)
    return data


# zlib's default level: on an H200 archive's traces (3.7 MB) level 9 took 3.6 times as long as 6 for
# 0.1 % fewer bytes (1.207 against 1.208 MB), and packing is on the characterization's wall time.
GZIP_LEVEL = 6


def write_maybe_gz(path, data):
    """Writes data to path + '.gz' (gzip, no time in the header) or, without zlib, to path."""
    if HAVE_GZIP:
        path += ".gz"
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                      compresslevel=GZIP_LEVEL) as g:
            g.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    return path


def pack_for_dir(d):
    d = d.rstrip("/")
    for p in (d + ".pack.gz", d + ".pack"):
        if os.path.exists(p):
            return p
    return None


_packs = {}


def read_archived(d, name):
    """Bytes of file `name` of directory d: the plain file, its .gz, or its entry in d's pack; None."""
    for p in (os.path.join(d, name), os.path.join(d, name) + ".gz"):
        if os.path.exists(p):
            return read_bytes(p)
    pack = pack_for_dir(d)
    if pack is None:
        return None
    if pack not in _packs:
        _packs[pack] = parse_pack(read_bytes(pack), pack)
    return _packs[pack].get(name)


def bench_path(archive):
    for p in ("bench.json", "bench.json.gz"):
        if os.path.exists(os.path.join(archive, p)):
            return os.path.join(archive, p)
    return None


def load_json(path):
    import json
    return json.loads(read_bytes(path).decode())


def pack(archive, full=None, traces_only=False, keep_traces=False):
    """Packs traces/ into traces.pack.gz (removing traces/ unless keep_traces: a reader that still
    needs the plain files removes them itself) and, unless traces_only, gzips the JSON files."""
    traces = os.path.join(archive, "traces")
    if os.path.isdir(traces):
        if full:
            dest = os.path.join(full, "traces")
            if os.path.exists(dest):
                shutil.rmtree(dest)
            shutil.copytree(traces, dest)
        files = {}
        for n in os.listdir(traces):
            p = os.path.join(traces, n)
            if os.path.isfile(p):
                files[n[:-3] if n.endswith(".gz") else n] = read_bytes(p)
        write_maybe_gz(traces + ".pack.tmp", make_pack(files))  # whole or not at all
        os.replace(traces + ".pack.tmp" + (".gz" if HAVE_GZIP else ""), traces + ".pack" + (".gz" if HAVE_GZIP else ""))
        if not keep_traces:
            shutil.rmtree(traces)
    if traces_only or not HAVE_GZIP:
        return
    for n in sorted(os.listdir(archive)):
        if n.endswith(".json") and n.startswith(JSON_GLOBS):
            p = os.path.join(archive, n)
            write_maybe_gz(p, read_bytes(p))
            os.remove(p)


def unpack(archive):
    pack_file = pack_for_dir(os.path.join(archive, "traces"))
    if pack_file:
        files = parse_pack(read_bytes(pack_file), pack_file)
        os.makedirs(os.path.join(archive, "traces"), exist_ok=True)
        for n, body in files.items():
            with open(os.path.join(archive, "traces", n), "wb") as f:
                f.write(body)
        os.remove(pack_file)
    for n in sorted(os.listdir(archive)):
        if n.endswith(".json.gz") and n.startswith(JSON_GLOBS):
            p = os.path.join(archive, n)
            with open(p[:-3], "wb") as f:
                f.write(read_bytes(p))
            os.remove(p)


def disk_usage(archive):
    """(bytes on disk in 4 KiB blocks, [(bytes, relative path)])."""
    total, parts = 4096, []
    for dirpath, dirnames, filenames in os.walk(archive):
        total += 4096 * len(dirnames)
        for n in filenames:
            s = os.path.getsize(os.path.join(dirpath, n))
            total += (s + 4095) // 4096 * 4096
            parts.append((s, os.path.relpath(os.path.join(dirpath, n), archive)))
    return total, sorted(parts, reverse=True)


def blocks(n):
    return (n + 4095) // 4096 * 4096


def estimate(archive):
    """Bytes on disk once `pack` has packed the traces and compressed the JSON files."""
    total, parts = disk_usage(archive)
    squeeze = (lambda b: gzip.compress(b, GZIP_LEVEL)) if HAVE_GZIP else (lambda b: b)
    traces = os.path.join(archive, "traces")
    if os.path.isdir(traces):
        files = {}
        for size, rel in parts:
            if rel.startswith("traces" + os.sep):
                total -= blocks(size)
                files[os.path.basename(rel)] = read_bytes(os.path.join(archive, rel))
        total += blocks(len(squeeze(make_pack(files)))) - 4096  # one file instead of the directory
    for n in os.listdir(archive):
        p = os.path.join(archive, n)
        if HAVE_GZIP and n.endswith(".json") and n.startswith(JSON_GLOBS):
            total += blocks(len(gzip.compress(read_bytes(p), GZIP_LEVEL))) - blocks(os.path.getsize(p))
    return total


def main():
    ap = argparse.ArgumentParser(description="Pack, unpack or size a memhier archive.")
    ap.add_argument("command", choices=["pack", "unpack", "size"])
    ap.add_argument("archive")
    ap.add_argument("--full", help="pack: copy the full traces/ into this directory first")
    ap.add_argument("--limit", type=int, default=0, help="size: exit 1 when the archive exceeds this many bytes")
    ap.add_argument("--traces-only", action="store_true", help="pack: the traces only, JSON files stay plain")
    ap.add_argument("--keep-traces", action="store_true",
                    help="pack: leave traces/ beside the pack (an analysis still reading it removes it after)")
    ap.add_argument("--estimate", action="store_true", help="size: print the bytes once packed, nothing else")
    a = ap.parse_args()
    if not os.path.isdir(a.archive) or not bench_path(a.archive):
        print("archive_pack.py: %s: not a memhier archive (no bench.json)" % a.archive, file=sys.stderr)
        return 2
    if a.command == "pack":
        pack(a.archive, a.full, a.traces_only, a.keep_traces)
    elif a.command == "unpack":
        unpack(a.archive)
    elif a.estimate:
        print(estimate(a.archive))
    else:
        total, parts = disk_usage(a.archive)
        print("%s: %.2f MB on disk (%d files)" % (a.archive, total / 1e6, len(parts)))
        for s, p in parts[:5]:
            print("  %9d  %s" % (s, p))
        if a.limit and total > a.limit:
            print("archive_pack.py: over the limit of %.2f MB" % (a.limit / 1e6), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
