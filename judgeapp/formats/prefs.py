"""trec_eval's other relevance formats (its ``-R`` option), read as trec_eval reads them.

- ``prefs``: ``qid jg jsg docno rel_level`` (get_prefs.c): within a judgment sub-group
  (jsg) of a judgment group (jg), a document with a higher rel_level (a number) is
  preferred to one with a lower; 0.0 means non-relevant;
- ``qrels_prefs``: ordinary qrels ``qid jg docno rel`` read as preferences, the second
  column naming the judgment group (one sub-group each; get_qrels_prefs.c);
- ``qrels_jg``: qrels whose second column names a judgment group, each group a separate
  set of judgments of the topic (get_qrels_jg.c).

Lines whose first character is ``#`` are comments. Fields are separated by white space.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_text

_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")


def c_atof(text: str) -> float:
    """C atof, as trec_eval reads rel_level: the longest numeric prefix, else 0.0."""
    match = _NUMBER.match(text)
    return float(match.group(0)) if match else 0.0


PrefRow = tuple[str, str, str, str, float]  # qid, jg, jsg, docno, rel_level


def _fields(path: str, columns: int) -> Iterator[tuple[int, list[str]]]:
    with open_text(path) as fh:
        for n, line in enumerate(fh, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            if len(fields) != columns:
                raise FormatError(path, n, f"expected {columns} columns, found {len(fields)}")
            yield n, fields


def read_prefs(path: PathArg) -> dict[str, list[PrefRow]]:
    """``-R prefs``: rows per qid."""
    path = os.fspath(path)
    out: dict[str, list[PrefRow]] = {}
    for _n, (qid, jg, jsg, docno, rel) in _fields(path, 5):
        out.setdefault(qid, []).append((qid, jg, jsg, docno, c_atof(rel)))
    return out


def read_qrels_prefs(path: PathArg) -> dict[str, list[PrefRow]]:
    """``-R qrels_prefs``: qrels read as preferences (one sub-group, "0", per group)."""
    path = os.fspath(path)
    out: dict[str, list[PrefRow]] = {}
    for _n, (qid, jg, docno, rel) in _fields(path, 4):
        out.setdefault(qid, []).append((qid, jg, "0", docno, c_atof(rel)))
    return out


def read_qrels_jg(path: PathArg) -> dict[str, dict[str, dict[str, int]]]:
    """``-R qrels_jg``: ``{qid: {jg: {docno: grade}}}``; a docno twice in a group is an
    error."""
    path = os.fspath(path)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for n, (qid, jg, docno, rel) in _fields(path, 4):
        try:
            grade = int(rel)
        except ValueError as exc:
            raise FormatError(path, n, f"relevance {rel!r} is not an integer") from exc
        group = out.setdefault(qid, {}).setdefault(jg, {})
        if docno in group:
            raise FormatError(path, n, f"duplicate docno {docno} for topic {qid}, group {jg}")
        group[docno] = grade
    return out
