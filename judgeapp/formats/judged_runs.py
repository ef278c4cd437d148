"""A TREC run read for `evaluate` by the compiled reader (judgeapp/formats/_runread.c):
one pass over each block's bytes tokenises the lines, parses the scores, hashes the docnos
and looks them up among the judged ones, and the rows are put in trec_eval's order.

This is only a faster road to what :func:`judgeapp.formats.bulk.read_run_rows` and
``judgeapp.measures.files.run_from_rows`` give. The blocks are bulk's own (``_blocks``:
its checks of NUL, UTF-8, line lengths, decompression); whatever the compiled reader does
not take as it is (a control character, a line with too few columns, a score it does not
parse, a docno twice in a topic, no data line, ...) makes :func:`read_judged_run` return
None, and the caller reads the file the numpy way, which gives the same rows or the error
(file, line, problem). ``tests/formats/test_judged_runs.py`` holds the two roads to the
same result.

The extension is optional (setup.py builds it where a C compiler is found); without it, or
with ``JUDGEAPP_NO_COMPILED=1`` in the environment, :func:`docno_table` gives None and
every run is read by numpy. Measured at branch i28c (callgrind, evaluate --jobs 1, a run's
share): see docs/performance.md, "`evaluate` on every shape of input (issue 28)".
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgeapp.bytekeys import ByteKeys
from judgeapp.formats.bulk import _PAD, BLOCK_BYTES, MAX_LINE, MAX_TOKEN, _blocks
from judgeapp.formats.columns import GRADE_LIMIT
from judgeapp.formats.errors import Irregular

compiled: Any
try:
    compiled = importlib.import_module("judgeapp.formats._runread")
except ImportError:  # not built (no C compiler where judgeapp was installed)
    compiled = None
if os.environ.get("JUDGEAPP_NO_COMPILED"):
    compiled = None


@dataclass(slots=True)
class JudgedRun:
    """A run's rows in trec_eval order, each as its judged document id: ``ids[bounds[k] :
    bounds[k + 1]]`` are topic ``qids[k]``'s (qids in byte order), an unjudged document
    being the number of judged documents."""

    tag: str
    qids: list[str]
    bounds: np.ndarray  # int64
    ids: np.ndarray  # int64


def docno_table(keys: ByteKeys) -> Any:
    """The docnos of a qrels file (repeats allowed) as the compiled reader's table, each
    distinct docno numbered as first met (``table.ids()``: each row's number, int64
    bytes); None without the compiled reader."""
    if compiled is None:
        return None
    mat = np.ascontiguousarray(keys.mat)
    lengths = np.ascontiguousarray(keys.lengths, dtype=np.int64)
    return compiled.DocnoTable(mat, keys.width, lengths)


def table_keys(table: Any) -> ByteKeys:
    """The distinct docnos of a :func:`docno_table`, in the order of their numbers."""
    data, lengths = table.strings()
    length = np.frombuffer(lengths, np.int64)
    padded = np.frombuffer(data + bytes(int(length.max(initial=0)) + 8), np.uint8)
    starts = np.zeros(len(length), dtype=np.int64)
    np.cumsum(length[:-1], out=starts[1:])
    return ByteKeys.gather(padded, starts, length)


def _fed(reader: Any, path: str, block_bytes: int) -> bool:
    """Every block of the file given to the compiled reader; False as soon as it does not
    take one as it is."""
    try:
        for block in _blocks(path, block_bytes):
            block.newlines = reader.feed(block.buf, _PAD, block.size)
            if block.newlines < 0:
                return False
    except Irregular:
        return False
    return True


def read_judged_run(
    path: str, table: Any, float32: bool = False, block_bytes: int = BLOCK_BYTES
) -> JudgedRun | None:
    """The run file's rows looked up in ``table`` (:func:`docno_table`), in trec_eval
    10.0's order (9.x's with ``float32``); None where the compiled reader does not take
    the file as it is (the numpy reader then reads it, or says what is wrong)."""
    reader = compiled.RunReader(table, MAX_LINE, MAX_TOKEN)
    if not _fed(reader, path, block_bytes):
        return None
    out = reader.finish(float32)
    if out is None:
        return None
    tag, qids, bounds, ids = out
    return JudgedRun(tag, qids, np.frombuffer(bounds, np.int64), np.frombuffer(ids, np.int64))


@dataclass(slots=True)
class JudgedQrels:
    """A TREC qrels file read by the compiled reader: ``table`` its distinct docnos
    (:func:`docno_table`'s kind), numbered as first met; topic ``qids[k]`` (qids in byte
    order) is rows ``bounds[k] : bounds[k + 1]`` of ``ids`` (docno numbers, increasing) and
    ``grades``."""

    table: Any
    qids: list[str]
    bounds: np.ndarray  # int64
    ids: np.ndarray  # int64
    grades: np.ndarray  # int64


def read_judged_qrels(path: str, block_bytes: int = BLOCK_BYTES) -> JudgedQrels | None:
    """A TREC qrels file by the compiled reader, or None where it does not take the file
    as it is (the numpy reader then reads it, or says what is wrong)."""
    if compiled is None:
        return None
    reader = compiled.RunReader(None, MAX_LINE, MAX_TOKEN, GRADE_LIMIT)
    if not _fed(reader, path, block_bytes):
        return None
    out = reader.finish_qrels()
    if out is None:
        return None
    table, qids, bounds, ids, grades = out
    arrays = (np.frombuffer(a, np.int64) for a in (bounds, ids, grades))
    return JudgedQrels(table, qids, *arrays)
