#!/usr/bin/env python3
"""Lists functions longer than a limit in C++ sources (a brace-matching scan, not a parser).

usage: check_function_length.py [--max N] DIR...   exit 1 when any function is longer than N lines
(default 80), naming each; 0 otherwise. Namespaces, classes, structs and enums are scanned into,
not counted; a lambda counts toward the function that holds it.
"""
import os
import re
import sys

CONTAINER = re.compile(r'\b(namespace|struct|class|enum|union)\b[^;(){}]*$|extern\s+"C"\s*$')


def strip(line):
    line = re.sub(r'//.*', '', line)
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return re.sub(r"'(\\.|[^'\\])*'", "''", line)


def functions(path):
    """(lines, first line, signature) of each function body in path."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out, depth, containers, start, name = [], 0, [], None, ''
    in_block_comment = False
    for i, raw in enumerate(lines):
        line = raw
        if in_block_comment:
            if '*/' not in line:
                continue
            line, in_block_comment = line.split('*/', 1)[1], False
        line = re.sub(r'/\*.*?\*/', '', line)
        if '/*' in line:
            line, in_block_comment = line.split('/*', 1)[0], True
        s = strip(line)
        for j, ch in enumerate(s):
            if ch == '{':
                if start is None and depth == len(containers):
                    head = s[:j].strip() or (lines[i - 1].strip() if i else '')
                    if CONTAINER.search(s[:j]) or CONTAINER.search(head):
                        containers.append(depth + 1)
                    else:
                        start, name = i, head[:90]
                depth += 1
            elif ch == '}':
                depth -= 1
                if start is None and containers and depth < containers[-1]:
                    containers.pop()
                elif start is not None and depth == len(containers):
                    out.append((i - start + 1, start + 1, name))
                    start = None
    return out


def main(argv):
    limit, dirs = 80, []
    args = iter(argv)
    for a in args:
        if a == '--max':
            limit = int(next(args))
        elif a.startswith('--max='):
            limit = int(a.split('=', 1)[1])
        elif a in ('-h', '--help'):
            print(__doc__.strip())
            return 0
        else:
            dirs.append(a)
    if not dirs:
        print('usage: check_function_length.py [--max N] DIR...', file=sys.stderr)
        return 2
    long_ones = []
    for d in dirs:
        if not os.path.isdir(d):
            print(f'check_function_length: {d}: not a directory', file=sys.stderr)
            return 2
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(('.cpp', '.hpp')):
                    p = os.path.join(root, f)
                    long_ones += [(n, p, ln, sig) for n, ln, sig in functions(p) if n > limit]
    for n, p, ln, sig in sorted(long_ones, reverse=True):
        print(f'{p}:{ln}: {n} lines: {sig}')
    print(f'{len(long_ones)} function(s) over {limit} lines')
    return 1 if long_ones else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
