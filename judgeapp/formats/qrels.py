"""Relevance judgments: TREC qrels and the relevance files of the classic collections.

TREC qrels (``trec``), ``qid iter docno grade`` per line, read as trec_eval 10.0 reads them
(``get_qrels.c``):

- exactly four columns separated by ASCII white space (trec_eval refuses a fifth);
- the iter column is ignored (``0``, ``Q0``, ANTIQUE's ``U0``/``Q0``/``E0``, COVID's
  ``0.5``...), the grade is an integer and may be negative (pooled but unjudged);
- a line whose first non-blank character is ``#`` is a comment; a ``#`` inside a docno is
  part of the docno. Blank lines are skipped (trec_eval calls them malformed);
- the same docno twice for one topic is an error (trec_eval: "duplicate docs"), naming both
  lines;
- qids and docnos are opaque strings kept as written.

The classic collections number queries and documents with integers, and their relevance
files need a rule each. In all three, query ids and docnos are normalised to ``str(int(x))``
(CACM writes query ``01``), so that they match the query files (numbered by position, see
:mod:`judgeapp.formats.smart`) and the documents (``.I 1`` is document ``"1"``).

- ``cranqrel`` (Cranfield): ``query doc code``. The codes are Cleverdon's, 1 the most
  relevant: 1 = a complete answer to the question, 2 = a high degree of relevance, 3 = useful
  background, 4 = of minimum interest (e.g. historical), 5 = of no interest (absent from the
  file); -1 appears once per query and is read as no interest. They map onto judgeapp's 0..3
  scale (3 Perfectly, 2 Highly, 1 Related, 0 Not relevant) as ``1 -> 3, 2 -> 2, 3 -> 1,
  4 -> 1, 5 -> 0, -1 -> 0``. Codes 1-4 all stay at grade 1 or more because every listed
  code 1-4 counts as relevant in the standard binary use of Cranfield; 3 and 4 share grade 1
  because the scale has only one step below "highly relevant".
- ``cisi`` (``CISI.REL``): ``query doc 0 0.000000``. The collection is binary: every listed
  pair is relevant, grade 1; the last two columns carry nothing and are not checked.
- ``cacm`` (``qrels.text``): ``01 1410 0 0``, binary in the same way: grade 1.

:func:`write_qrels` writes TREC four-column qrels, ``qid 0 docno grade``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

import numpy as np

from judgeapp.formats.bulk import read_qrels_columns
from judgeapp.formats.columns import (
    column_count_error,
    has_column_space,
)
from judgeapp.formats.detect import resolve_format
from judgeapp.formats.errors import FormatError, quoted
from judgeapp.formats.qrels_lines import check_duplicates
from judgeapp.formats.textio import MAX_COLUMN_LINE, PathArg, open_chunks
from judgeapp.outputs import OutputError, writing
from judgeapp.records import QrelsFile

CRANFIELD_GRADES = {1: 3, 2: 2, 3: 1, 4: 1, 5: 0, -1: 0}


def _classic_id(path: str, line: int, tok: str, what: str) -> str:
    if not (tok.isascii() and tok.isdigit()):
        raise FormatError(path, line, f"{what} {quoted(tok)} is not a number")
    if len(tok.lstrip("0")) > 18:  # beyond any collection's numbering (and int()'s digit limit)
        raise FormatError(path, line, f"{what} {quoted(tok)} is out of range")
    return str(int(tok))


def _read_classic(path: str, columns: int, grade_of: Callable[[list[str], int], int]) -> QrelsFile:
    qids: list[str] = []
    docnos: list[str] = []
    grades: list[int] = []
    lines: list[int] = []
    with open_chunks(path, max_line=MAX_COLUMN_LINE) as chunks:
        for chunk in chunks:
            line_no = chunk.first_line
            for line in chunk.text.split("\n")[:-1]:
                fields = line.split()
                if fields:
                    if len(fields) != columns:
                        raise column_count_error(path, line_no, f"{columns} columns", len(fields))
                    qids.append(_classic_id(path, line_no, fields[0], "query number"))
                    docnos.append(_classic_id(path, line_no, fields[1], "document number"))
                    grades.append(grade_of(fields, line_no))
                    lines.append(line_no)
                line_no += 1
    if not qids:
        raise FormatError(path, None, "no qrels lines found (empty file)")
    qrels = QrelsFile(
        path=path,
        qids=qids,
        docnos=docnos,
        grades=np.array(grades, dtype=np.int64),
        lines=np.array(lines, dtype=np.int64),
    )
    check_duplicates(qrels)
    return qrels


def read_qrels(path: PathArg, fmt: str | None = None) -> QrelsFile:
    """Read qrels in any supported format (detected from the content unless ``fmt`` says):
    ``trec``, ``cranqrel``, ``cisi`` or ``cacm``. Rows stay in file order."""
    path = os.fspath(path)
    fmt = resolve_format(path, "qrels", fmt)
    if fmt == "trec":
        return read_qrels_columns(path).with_rows()
    if fmt == "cranqrel":

        def cranfield(fields: list[str], line: int) -> int:
            try:
                return CRANFIELD_GRADES[int(fields[2])]
            except (ValueError, KeyError):
                raise FormatError(
                    path,
                    line,
                    f"relevance code {fields[2]!r} is not a Cleverdon code (1, 2, 3, 4, 5 or -1)",
                ) from None

        return _read_classic(path, 3, cranfield)
    return _read_classic(path, 4, lambda fields, line: 1)  # cisi, cacm: binary


def _check_id(value: str, what: str) -> str:
    # exactly what the readers split columns on (C's isspace): a no-break space is part of
    # an id there, so it is written as it is; a leading '#' would read back as a comment
    if not value or has_column_space(value) or (what == "qid" and value.startswith("#")):
        raise OutputError(
            f"{what} {quoted(value)} cannot be written to a qrels file (empty, containing "
            "white space, or a qid starting with #)"
        )
    return value


def write_qrels(rows: Iterable[tuple[str, str, int]] | QrelsFile, out: PathArg | TextIO) -> int:
    """Write ``(qid, docno, grade)`` rows as TREC qrels ``qid 0 docno grade``, one per line,
    to a path (``.gz`` compresses; written whole or not at all, see
    :mod:`judgeapp.outputs`) or an open text stream. Returns the number of rows."""
    if isinstance(out, (str, os.PathLike)):
        target = os.fspath(out)
        if target.endswith(".gz"):
            import gzip
            import io

            with writing(target, "wb") as raw:
                name = os.path.basename(target)[: -len(".gz")]
                with (
                    gzip.GzipFile(filename=name, mode="wb", fileobj=raw) as packed,
                    io.TextIOWrapper(packed, encoding="utf-8", newline="\n") as fh,
                ):
                    return _write(rows, fh)
        with writing(target, newline="\n") as fh:
            return _write(rows, fh)
    return _write(rows, out if out is not None else sys.stdout)


def _write(rows: Iterable[tuple[str, str, int | float]], fh: TextIO) -> int:
    n = 0
    buf: list[str] = []
    for qid, docno, grade in rows:
        if isinstance(grade, float) and not grade.is_integer():
            raise OutputError(f"grade {grade!r} for {qid} {docno} is not an integer")
        buf.append(f"{_check_id(qid, 'qid')} 0 {_check_id(docno, 'docno')} {int(grade)}\n")
        n += 1
        if len(buf) >= 65536:
            fh.write("".join(buf))
            buf.clear()
    fh.write("".join(buf))
    return n
