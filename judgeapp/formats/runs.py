"""Reading a TREC run: the bulk reader (:mod:`judgeapp.formats.bulk`) reads it; a file it
does not take as it is goes through the line-precise reader
(:func:`judgeapp.formats.run_lines.read_run_lines`, where the format's rules are written
down), which gives the same records or the error naming file, line and problem."""

from __future__ import annotations

import os

from judgeapp.formats.bulk import read_run_columns
from judgeapp.formats.detect import resolve_format
from judgeapp.formats.textio import PathArg
from judgeapp.records import RunFile


def read_run(path: PathArg, fmt: str | None = None) -> RunFile:
    """Read a TREC run (plain or compressed) into topics already in trec_eval order."""
    path = os.fspath(path)
    if fmt is not None:
        resolve_format(path, "run", fmt)  # only "trec" exists; the reader checks every line
    return read_run_columns(path).with_topics()
