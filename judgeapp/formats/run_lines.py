"""TREC run files: ``qid iter docno rank score tag`` per line.

Rules (trec_eval 10.0, ``get_trec_results.c`` and ``form_res_rels.c``):

- columns are separated by runs of ASCII white space (spaces, tabs, as C's ``isspace``; a
  no-break space is part of a column); columns after the tag are ignored (trec_eval's
  ``results.trunc`` has such lines);
- a line whose first non-blank character is ``#`` is a comment; blank lines are skipped;
- the iter and rank columns are ignored and not validated: trec_eval never reads them
  (it ranks by score), so a run with odd ranks evaluates there and must import here;
- the score is a number (a double). trec_eval reads it with ``atof``, which turns ``abc``
  into 0 without a word; here it is an error, as are NaN, ``1_000`` and non-ASCII digits;
- each topic's documents are put in trec_eval order: score descending, ties broken by docno
  descending in byte order (Python's ``str`` order is the UTF-8 byte order);
- the same docno twice for one topic is an error (trec_eval: "duplicate docs"), naming both
  lines;
- qids and docnos are opaque strings: "01" and "1" are different topics.

Topics come out in byte order of qid, as trec_eval prints them. The run's tag is the tag of
its first line (trec_eval keeps the last line's; runs virtually always have one tag).

Speed: a run is read in chunks of 64 KiB (see :mod:`judgeapp.formats.textio`); each chunk is tokenised by one
``str.split`` and its columns sliced out (see :mod:`judgeapp.formats.columns`); scores and
docno hashes are computed while the chunk's strings are in the CPU cache. Ordering then runs
on numpy arrays for the whole file; topics already in order (the usual case) are only
checked, and only tied docnos are compared.
"""

from __future__ import annotations

import operator
import os
from itertools import groupby

import numpy as np

from judgeapp.formats.columns import (
    check_duplicate_pairs,
    column_count_error,
    duplicate_error,
    has_comment,
    has_odd_space,
    is_comment,
    split_fields,
    split_uniform,
    to_floats,
)
from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import MAX_COLUMN_LINE, Chunk, PathArg, open_chunks
from judgeapp.records import RankedTopic, RunFile

RUN_COLUMNS = "6 columns (qid iter docno rank score tag)"
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # spreads topic numbers over the hash key space


class _RunBuilder:
    """Collects the columns of all chunks: docnos and scores in file order, and the qid of
    each stretch of consecutive lines (a run file normally holds each topic in one stretch)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.docnos: list[str] = []
        self.scores: list[np.ndarray] = []
        self.lines: list[np.ndarray] = []
        self.hashes: list[np.ndarray] = []  # hash(docno), for the duplicate check
        self.stretches: list[list] = []  # [qid, start, stop] over all entries
        self.seams: list[int] = []  # where each chunk after the first starts
        self.tag: str | None = None
        self.n = 0

    def add(
        self, qids: list[str], docnos: list[str], scores: np.ndarray, lines: np.ndarray
    ) -> None:
        # a pair seen twice in this piece stops the reader now (in file order, before the
        # ties below reorder the piece), not after the whole file has been read
        check_duplicate_pairs(self.path, qids, docnos, lines)
        stretches = _stretches(qids)
        if len(scores) > 1:
            # break this chunk's ties now, while its strings are in the CPU cache; build()
            # then only has to look at ties that run across a chunk boundary
            tied = scores[1:] == scores[:-1]
            if tied.any():
                for _, _, stop in stretches[:-1]:
                    tied[stop - 1] = False  # no tie across topics
                if tied.any():
                    docnos, scores, lines = _break_ties(docnos, scores, lines, tied)
        for qid, start, stop in stretches:
            start += self.n
            stop += self.n
            last = self.stretches[-1] if self.stretches else None
            if last is not None and last[0] == qid and last[2] == start:
                last[2] = stop  # the topic goes on across a chunk boundary
            else:
                self.stretches.append([qid, start, stop])
        if self.n and qids:  # a piece of comments or blank lines adds no seam (at the
            self.seams.append(self.n)  # end of the file, one would point past the last entry)
        self.docnos += docnos
        # str caches its hash: these were computed by the check above
        self.hashes.append(np.fromiter(map(hash, docnos), np.int64, len(docnos)))
        self.scores.append(scores)
        self.lines.append(lines)
        self.n += len(qids)

    def add_chunk(self, chunk: Chunk) -> None:
        split = split_uniform(chunk)
        if split is None or split[1] < 7 or has_comment(chunk.text):
            self._add_slow(chunk)
            return
        toks, width = split
        if self.tag is None:
            self.tag = toks[5]
        first = chunk.first_line
        scores = to_floats(self.path, toks[4::width], chunk.text, lambda i: first + i, "score")
        lines = np.arange(first, first + chunk.n_lines, dtype=np.int64)
        self.add(toks[0::width], toks[2::width], scores, lines)

    def _add_slow(self, chunk: Chunk) -> None:
        """Line by line: comments, blank lines, extra columns, and exact errors."""
        qids: list[str] = []
        docnos: list[str] = []
        scores: list[str] = []
        lines: list[int] = []
        line_no = chunk.first_line
        odd = has_odd_space(chunk.text)
        for line in chunk.text.split("\n")[:-1]:
            fields = split_fields(line, odd)
            if fields and not is_comment(fields):
                if len(fields) < 6:
                    raise column_count_error(self.path, line_no, RUN_COLUMNS, len(fields))
                if self.tag is None:
                    self.tag = fields[5]
                qids.append(fields[0])
                docnos.append(fields[2])
                scores.append(fields[4])
                lines.append(line_no)
            line_no += 1
        values = to_floats(self.path, scores, chunk.text, lines.__getitem__, "score")
        self.add(qids, docnos, values, np.array(lines, dtype=np.int64))

    def build(self) -> RunFile:
        if self.n == 0:
            raise FormatError(self.path, None, "no run lines found (empty file or only comments)")
        scores = np.concatenate(self.scores)
        lines = np.concatenate(self.lines)
        qids = sorted({q for q, _, _ in self.stretches})
        code = {q: i for i, q in enumerate(qids)}
        stretch_codes = np.array([code[q] for q, _, _ in self.stretches], dtype=np.int64)
        stretch_sizes = np.array([b - a for _, a, b in self.stretches], dtype=np.int64)
        topic = np.repeat(stretch_codes, stretch_sizes)  # each entry's topic, in qid order
        hashes = np.concatenate(self.hashes)
        suspects = _maybe_duplicates(topic, hashes, qids)
        # each entry's hash, found again by its source line once the entries are in order
        hash_by_line = np.zeros(int(lines.max()) + 1, dtype=np.int64)
        hash_by_line[lines] = hashes
        docnos = self.docnos
        seams: np.ndarray | None = np.array(self.seams, dtype=np.int64)
        if len(self.stretches) != len(qids) or (np.diff(stretch_codes) < 0).any():
            # topics spread over the file or out of qid order: gather them
            gather = np.argsort(topic, kind="stable")
            docnos = _objects(docnos)[gather].tolist()
            scores, lines = scores[gather], lines[gather]
            seams = None  # neighbours have changed: every tie is looked at again
        bounds = np.concatenate(([0], np.cumsum(np.bincount(topic, minlength=len(qids)))))
        docnos, scores, lines = trec_order(docnos, scores, lines, bounds, seams)
        topics: dict[str, RankedTopic] = {}
        for k, qid in enumerate(qids):
            a, b = int(bounds[k]), int(bounds[k + 1])
            ranked = docnos[a:b]
            if qid in suspects and len(set(ranked)) != b - a:
                raise duplicate_error(self.path, qid, ranked, lines[a:b])
            topics[qid] = RankedTopic(
                docnos=ranked,
                scores=scores[a:b],
                lines=lines[a:b],
                hashes=hash_by_line[lines[a:b]],
            )
        assert self.tag is not None
        return RunFile(path=self.path, tag=self.tag, topics=topics, n_lines=self.n)


def _maybe_duplicates(topic: np.ndarray, hashes: np.ndarray, qids: list[str]) -> set[str]:
    """Topics that may hold a docno twice: equal (topic, hash(docno)) keys, found by one
    numpy sort without touching the strings again. The caller confirms each suspect with a
    set; any key collision makes every topic a suspect (rare, and still exact)."""
    keys = hashes.view(np.uint64) ^ (topic.astype(np.uint64) * _SPREAD)
    keys.sort()
    return set(qids) if (keys[1:] == keys[:-1]).any() else set()


def trec_order(
    docnos: list[str],
    scores: np.ndarray,
    lines: np.ndarray,
    bounds: np.ndarray,
    seams: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Put each topic ``[bounds[k], bounds[k+1])`` in trec_eval order: score descending,
    then docno descending. Works on the whole file at once, so its cost does not grow with
    the number of topics; topics already in order (the usual case) are only checked.

    ``seams`` (positions where a piece starts whose ties are already broken) limits the
    tie-breaking to stretches of equal scores that cross a seam, as long as nothing has to
    be re-sorted. Returns new (or the same, when nothing moves) docnos, scores and lines."""
    n = len(docnos)
    if n < 2:
        return docnos, scores, lines
    topic = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    same_topic = topic[1:] == topic[:-1]
    if ((scores[1:] > scores[:-1]) & same_topic).any():
        order = np.lexsort((-scores, topic))  # stable: ties keep file order for now
        docnos = _objects(docnos)[order].tolist()
        scores, lines = scores[order], lines[order]
        seams = None
    tied = (scores[1:] == scores[:-1]) & same_topic
    if seams is not None:
        tied = _across(tied, seams)
    if tied.any():
        docnos, scores, lines = _break_ties(docnos, scores, lines, tied)
    return docnos, scores, lines


def _across(tied: np.ndarray, seams: np.ndarray) -> np.ndarray:
    """Only the stretches of ``tied`` that contain a pair ``(seam - 1, seam)``."""
    pairs = seams - 1
    if pairs.size == 0 or not tied[pairs].any():
        return np.zeros_like(tied)
    run = np.cumsum(~tied)  # equal within each stretch of True (and its leading False)
    return tied & np.isin(run, run[pairs[tied[pairs]]])


def _break_ties(
    docnos: list[str], scores: np.ndarray, lines: np.ndarray, tied: np.ndarray
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Order each stretch of equal scores by docno descending.

    Only tied docnos are touched: they are copied once into a numpy string array (numpy
    compares code points, as Python does), checked pair by pair, and, where some stretch
    is out of order, all stretches are sorted together by two stable argsorts. Returns
    new (or the same) docnos, scores and lines (equal scores move too: 0.0 and -0.0 are
    equal but stay with their docno)."""
    at = np.flatnonzero(tied)  # i where scores[i] == scores[i + 1] in the same topic
    first = np.flatnonzero(np.concatenate(([True], at[1:] != at[:-1] + 1)))  # into `at`
    size = np.diff(np.append(first, len(at))) + 1  # elements per stretch
    starts = at[first]
    pos = np.repeat(starts, size) + np.arange(size.sum())  # every tied element
    pos -= np.repeat(np.cumsum(size) - size, size)
    stretch = np.repeat(np.arange(len(starts)), size)
    keys = np.array(_pick(docnos, pos))
    in_order = (keys[:-1] > keys[1:]) | (stretch[:-1] != stretch[1:])
    if in_order.all():
        return docnos, scores, lines
    by_docno = np.argsort(keys, kind="stable")[::-1]
    order = pos[by_docno[np.argsort(stretch[by_docno], kind="stable")]]
    objects = _objects(docnos)
    objects[pos] = objects[order]
    lines, scores = lines.copy(), scores.copy()
    lines[pos] = lines[order]
    scores[pos] = scores[order]
    return objects.tolist(), scores, lines


def _pick(items: list[str], at: np.ndarray) -> tuple[str, ...]:
    """``items[i] for i in at`` at C speed."""
    if len(at) == 1:
        return (items[int(at[0])],)
    if len(at) == 0:
        return ()
    picked: tuple[str, ...] = operator.itemgetter(*at.tolist())(items)
    return picked


def _objects(items: list[str]) -> np.ndarray:
    """The list as a numpy object array (for fancy indexing at C speed)."""
    return np.fromiter(items, dtype=object, count=len(items))


def _stretches(qids: list[str]) -> list[tuple[str, int, int]]:
    """``(qid, start, stop)`` for each stretch of equal consecutive qids.

    Finds each stretch's end by galloping and bisection, then confirms it with one
    ``list.count`` (C speed); a file whose topics are interleaved falls back to groupby."""
    out: list[tuple[str, int, int]] = []
    n = len(qids)
    a = 0
    while a < n:
        q = qids[a]
        lo, step = a, 1  # qids[lo] == q
        while lo + step < n and qids[lo + step] == q:
            lo += step
            step *= 2
        hi = min(lo + step, n)  # qids[hi] != q, or hi == n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if qids[mid] == q:
                lo = mid
            else:
                hi = mid
        if qids[a:hi].count(q) == hi - a:
            out.append((q, a, hi))
        else:  # some other qid inside: take the honest, slower route over this stretch
            start = a
            for qid, group in groupby(qids[a:hi]):
                stop = start + len(list(group))
                out.append((qid, start, stop))
                start = stop
        a = hi
    return out


def read_run_lines(path: PathArg) -> RunFile:
    """The line-precise reader: every line checked where it stands, each problem raised as
    a FormatError naming file, line and problem."""
    path = os.fspath(path)
    builder = _RunBuilder(path)
    with open_chunks(path, max_line=MAX_COLUMN_LINE) as chunks:
        for chunk in chunks:
            builder.add_chunk(chunk)
    return builder.build()
