#!/usr/bin/env python3
"""Copies standard input to standard output, each line prefixed with the seconds since start
(monotonic clock, 3 decimals): `cmd 2>&1 | stamp_lines.py > log` (dev/device/part_timing.sh)."""
import sys
import time

t0 = time.monotonic()
for line in sys.stdin:
    sys.stdout.write("%.3f %s" % (time.monotonic() - t0, line))
    sys.stdout.flush()
