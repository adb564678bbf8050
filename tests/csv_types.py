#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that CSV files load as they are (pandas' read_csv without options).

For each file given: the first line is the header (no comment line before it),
every name is unique and follows weft's convention (snake_case with a unit
suffix where there is a unit, e.g. time_us, algbw_GBps, size_bytes; a sweep's
axis column NAME:GROUP.KEY), every row has as many fields as the header, and
each column holds one type: int (all cells whole numbers), float (numbers with
a decimal point, "inf" or "nan") or str. An empty cell is allowed in a float
or str column (pandas reads NaN or ""), never in an int column (pandas would
turn the column to float). Names that say nothing of the unit where another
file says it (algbw_gbs, algo, bytes alone) are refused.

Usage: csv_types.py FILE.csv...   (prints one line per column; exit 1 on the
first file that fails, naming file, column and value).
"""
import csv
import re
import sys

NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-zA-Z0-9]+)*$")
AXIS = re.compile(r"^[A-Za-z0-9_.-]+:[a-z_]+\.[a-z0-9_]+$")
# one spelling per quantity across weft's files
REFUSED = {"algbw_gbs": "algbw_GBps", "busbw_gbs": "busbw_GBps", "algo": "algorithm",
           "proto": "protocol", "bytes": "size_bytes or wire_bytes"}
INT = re.compile(r"^-?[0-9]+$")


def cell_type(v):
    if INT.match(v):
        return "int"
    try:
        float(v)
        return "float"
    except ValueError:
        return "str"


def check(path):
    with open(path, newline="") as f:
        first = f.readline()
        if first.startswith("#"):
            return "line 1 is a comment: %r" % first.strip()
        f.seek(0)
        rows = [r for r in csv.reader(f) if r]
    if not rows:
        return "empty"
    header, body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        return "a column name appears twice: %s" % header
    for name in header:
        if name in REFUSED:
            return "column %r: write %s" % (name, REFUSED[name])
        if not (NAME.match(name) or AXIS.match(name)):
            return "column %r: not snake_case (NAME or NAME:GROUP.KEY)" % name
    if not body:
        return "no rows"
    for i, r in enumerate(body, 2):
        if len(r) != len(header):
            return "line %d has %d fields, the header %d" % (i, len(r), len(header))
    for c, name in enumerate(header):
        cells = [r[c] for r in body]
        kinds = {cell_type(v) for v in cells if v != ""}
        kind = "str" if "str" in kinds else "float" if "float" in kinds else "int" if kinds else "empty"
        if kind == "str" and kinds != {"str"}:
            nums = [v for v in cells if v != "" and cell_type(v) != "str"][:3]
            strs = [v for v in cells if cell_type(v) == "str"][:3]
            return "column %r mixes numbers %s and text %s" % (name, nums, strs)
        if kind == "int" and "" in cells:
            return "column %r: whole numbers with an empty cell (pandas reads float)" % name
        print("%s: %s %s" % (path, name, kind))
    return None


def main():
    for path in sys.argv[1:]:
        err = check(path)
        if err is not None:
            print("FAIL %s: %s" % (path, err))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
