"""Runs and qrels read in bulk: blocks of text parsed by numpy, no Python object per line.

A block of the file (decompressed, whole lines) becomes one uint8 array. White space is
found with one comparison over the block, tokens are the stretches between white space,
and the columns wanted (qid, docno, score or grade) are cut out as rows of byte matrices
(:class:`~judgeapp.bytekeys.ByteKeys`); scores and grades are parsed from their digits
with vector arithmetic. Qids are interned per stretch of equal lines, docnos stay byte keys
until a store or the engine interns them, again in bulk.
Numbers are parsed in :mod:`judgeapp.formats.numbers`, topics and trec_eval's order of
the lines in :mod:`judgeapp.formats.trec_order`; a command reading many files keeps the
freed blocks' memory for reuse (:mod:`judgeapp.formats.allocator`).

The reader is only a faster road to the same result. Whatever it does not take as it is
(a NUL or a byte that is not UTF-8, a control character inside a line, a line with the
wrong number of columns, a score or grade it cannot parse exactly, a duplicate, a column
longer than :data:`MAX_TOKEN` bytes, a file with no data line, a decompression error) it
hands to the line-precise reader of :mod:`judgeapp.formats.run_lines` or
:mod:`judgeapp.formats.qrels`, which stays the one source of error messages (file, line,
problem) and of every rule about what a file may hold. Both readers give identical records
for every file the bulk reader takes (``tests/formats/test_bulk.py``).

Why numpy, measured on this project's 2-core machines: numpy is imported anyway (the engine
is numpy), while importing pyarrow's CSV reader costs 66 MB of resident memory and polars
52 MB, more than the whole Python + pytrec_eval script that `evaluate` is compared with
(46 MB); numpy's own ``loadtxt`` parses at about 50 MB/s, a fifth of what this needs.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from judgeapp.bytekeys import (
    ByteKeys,
    Interner,
    Numbered,
    ScatteredKeys,
)
from judgeapp.formats import textio
from judgeapp.formats.columns import GRADE_LIMIT
from judgeapp.formats.errors import FormatError, Irregular
from judgeapp.formats.numbers import parse_floats, parse_ints
from judgeapp.formats.qrels_lines import read_trec_qrels_lines
from judgeapp.formats.run_lines import read_run_lines
from judgeapp.formats.textio import PathArg
from judgeapp.formats.trec_order import Stretches, by_score, has_duplicates, topics_of, trec_order
from judgeapp.records import QrelsFile, RunFile

# text per block: a block's temporaries (token positions, digit matrices) are some ten
# times its size, so a small block keeps them a few MiB; smaller still costs CPU in numpy's
# per-call overhead (256 KiB: +12% per run). Memory follows the entries kept, not the bytes
BLOCK_BYTES = 512 << 10
# the longest qid, docno, score or grade the bulk reader cuts out (longer: the line reader)
MAX_TOKEN = 4096
# the longest line it takes: a little under the line reader's limit, which then refuses
# (or takes) the line itself
MAX_LINE = textio.MAX_COLUMN_LINE - 8
_PAD = MAX_TOKEN + 16
_BOM = b"\xef\xbb\xbf"
_HASH = 35


@dataclass(slots=True)
class _Block:
    buf: np.ndarray  # uint8: _PAD zero bytes, the text, _PAD zero bytes
    size: int  # bytes of text; the last is a line end
    first_line: int
    newlines: int = -1  # its line ends, once _data_lines has counted them


def _blocks(path: str, block_bytes: int) -> Iterator[_Block]:
    """The file's text in blocks of whole lines, checked as the line reader checks it
    (NUL, UTF-8, the length of a line, a decompression bomb) and with line ends made
    ``\\n``; anything amiss raises Irregular. Only regular files: a pipe or a device read
    here could not be read again by the line reader.

    The text is read into one buffer, reused for every block (a plain file straight into
    it): a block's ``buf`` is a view of it, valid until the next block is asked for (its
    consumers copy out what they keep). Reading a 2 MB run so makes no bytes object, join,
    slice or padded copy per block."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise Irregular
        f, kind, raw = textio._open_binary(path, fast=True)
    except (OSError, FormatError):
        raise Irregular from None
    readinto = getattr(f, "readinto", None) if kind is None else None
    try:
        store = bytearray(2 * _PAD + block_bytes + 1)
        line = 1
        done = 0  # decompressed bytes read
        size = 0  # bytes in store[_PAD : _PAD + size]: a carried line start, then new text
        first = True
        eof = False
        while not eof:
            carried = size
            # a carried line longer than a block still needs more bytes to end
            while size < block_bytes or size == carried:
                want = block_bytes - size if size < block_bytes else block_bytes
                if len(store) < 2 * _PAD + size + want + 1:
                    store = _grown(store, 2 * _PAD + 2 * (size + want) + 1)
                at = _PAD + size
                try:
                    if readinto is not None:
                        got = readinto(memoryview(store)[at : at + want])
                    else:
                        data = textio._read_block(path, f, want, kind, done)
                        got = len(data)
                        store[at : at + got] = data
                        if kind is not None and done + got > textio.EXPANSION_FLOOR:
                            textio._check_expansion(path, kind, raw, done + got)
                except (OSError, FormatError):
                    raise Irregular from None
                if not got:
                    eof = True
                    break
                if store.find(b"\x00", at, at + got) >= 0:
                    raise Irregular  # binary data (/dev/zero): stop reading at once
                done += got
                size += got
            if eof:
                if not size:
                    break
                if store[_PAD + size - 1] != 10:
                    store[_PAD + size] = 10  # the last line's end (room kept for it)
                    size += 1
                cut = size
            else:
                cut = _line_end(store, _PAD, _PAD + size) - _PAD
                if cut == 0:
                    if size > MAX_LINE:
                        raise Irregular  # the line reader says which line is too long
                    continue  # one line longer than a block: read on
            if first:
                first = False
                if store.startswith(_BOM, _PAD):
                    store[_PAD : _PAD + size - 3] = store[_PAD + 3 : _PAD + size]
                    size, cut = size - 3, cut - 3
            carry = bytes(store[_PAD + cut : _PAD + size])  # the next block's first line
            if store.find(b"\r", _PAD, _PAD + cut) >= 0:
                buf = _padded(bytes(store[_PAD : _PAD + cut]).replace(b"\r\n", b"\n"))
            else:
                store[_PAD + cut : 2 * _PAD + cut] = bytes(_PAD)
                buf = np.frombuffer(store, dtype=np.uint8, count=2 * _PAD + cut)
            # stale bytes past the text only make a pure-ASCII block checked again
            if not store.isascii():
                try:
                    bytes(buf[_PAD:-_PAD]).decode("utf-8")
                except UnicodeDecodeError:
                    raise Irregular from None
            block = _Block(buf, len(buf) - 2 * _PAD, line)
            yield block
            # the consumer's tokenising counted the line ends (no second pass over the text)
            line += block.newlines if block.newlines >= 0 else int(np.count_nonzero(buf == 10))
            del buf, block  # no view of store is left: it may be written again
            size = len(carry)
            store[_PAD : _PAD + size] = carry
    finally:
        f.close()


def _grown(store: bytearray, size: int) -> bytearray:
    bigger = bytearray(size)
    bigger[: len(store)] = store
    return bigger


def _padded(text: bytes) -> np.ndarray:
    """``text`` between _PAD zero bytes, as the reader's blocks hold it; ``\\r`` line ends
    become ``\\n``."""
    text = text.replace(b"\r", b"\n")
    buf = np.zeros(len(text) + 2 * _PAD, dtype=np.uint8)
    buf[_PAD : _PAD + len(text)] = np.frombuffer(text, dtype=np.uint8)
    return buf


def _line_end(store: bytearray, start: int, end: int) -> int:
    """Where the text after the last complete line of ``store[start:end]`` starts (``start``:
    no line end), as textio._last_line_end: a ``\\r`` that ends it may be the first half of
    ``\\r\\n`` and waits for the next block."""
    stop = end - 1 if store[end - 1] == 13 else end
    cut = store.rfind(b"\n", start, stop) + 1
    if store.find(b"\r", start, end) >= 0:
        cut = max(cut, store.rfind(b"\r", start, stop) + 1)
    return max(cut, start)


@dataclass(slots=True)
class _Lines:
    """The data lines of a block (comments and blank lines left out): where every token of
    the block ends, where it starts (None: right after the previous token's end, the usual
    one-separator file), each data line's first token, and its number in the file."""

    ends: np.ndarray
    starts: np.ndarray | None
    first: np.ndarray | None  # index into ends/starts of each data line's first token
    # (None: every line has the same number of tokens, the `columns` of _data_lines)
    lines: np.ndarray  # 1-based line numbers


def _data_lines(block: _Block, columns: int, exact: bool) -> _Lines:
    """Tokenise a block: a line whose first token starts with ``#`` is a comment, a line
    without tokens is blank; every other line needs ``columns`` tokens (at least that many
    unless ``exact``), else Irregular. Token positions are into ``block.buf``."""
    buf = block.buf[_PAD : _PAD + block.size]
    delims = np.flatnonzero(buf <= 32)  # white space and control bytes
    values = buf[delims]
    # ASCII white space is 9-13 and 32; \r is gone already
    if ((values < 9) | ((values > 12) & (values != 32))).any():
        raise Irregular  # a control character inside a line: the line reader's business
    newline = values == 10
    n_lines = int(np.count_nonzero(newline))
    block.newlines = n_lines
    if (
        len(delims) == columns * n_lines
        and delims[0] > 0
        and newline[columns - 1 :: columns].all()
        and int(np.diff(delims).min(initial=2)) > 1
    ):
        # the usual file: one separator between columns, `columns` tokens on every line
        line_ends = delims[columns - 1 :: columns]
        _check_line_lengths(line_ends)
        line_starts = np.empty_like(line_ends)
        line_starts[0] = 0
        np.add(line_ends[:-1], 1, out=line_starts[1:])
        if (buf[line_starts] != _HASH).all():
            lines = np.arange(block.first_line, block.first_line + n_lines, dtype=np.int64)
            delims += _PAD  # in place: a block's largest temporary is not copied
            return _Lines(delims, None, None, lines)
    else:
        _check_line_lengths(delims[newline])
    before = np.empty_like(delims)
    before[0] = -1
    before[1:] = delims[:-1]
    gap = delims - before > 1  # a token ends at this delimiter
    starts, ends = before[gap] + 1, delims[gap]
    line_of = (np.cumsum(newline) - newline)[gap]
    counts = np.bincount(line_of, minlength=n_lines)
    firsts = np.cumsum(counts) - counts
    has = counts > 0
    data = has.copy()
    data[has] = buf[starts[firsts[has]]] != _HASH
    wrong = counts[data] != columns if exact else counts[data] < columns
    if wrong.any():
        raise Irregular
    keep = np.flatnonzero(data)
    return _Lines(ends + _PAD, starts + _PAD, firsts[keep], keep + block.first_line)


def _check_line_lengths(line_ends: np.ndarray) -> None:
    if len(line_ends) and (
        int(line_ends[0]) > MAX_LINE or int(np.diff(line_ends).max(initial=0)) > MAX_LINE
    ):
        raise Irregular  # a line longer than the line reader takes: it says so


def _span(toks: _Lines, c: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of column ``c`` of every data line."""
    if toks.starts is not None:
        assert toks.first is not None
        at = toks.first + c
        starts, ends = toks.starts[at], toks.ends[at]
    else:  # `columns` tokens a line, one separator each: columns are strided slices
        step = len(toks.ends) // len(toks.lines)
        ends = toks.ends[c::step]
        if c > 0:
            starts = toks.ends[c - 1 :: step] + 1
        else:
            starts = np.empty_like(ends)
            starts[0] = _PAD
            starts[1:] = toks.ends[step - 1 : -1 : step] + 1
    lengths = ends - starts
    if len(lengths) and int(lengths.max()) > MAX_TOKEN:
        raise Irregular
    return starts, lengths


def _column(block: _Block, toks: _Lines, c: int) -> ByteKeys:
    return ByteKeys.gather(block.buf, *_span(toks, c))


# --- runs ----------------------------------------------------------------------------------


def _run_blocks(
    path: str, block_bytes: int, keep_lines: bool = True
) -> tuple[str, Stretches, list[ByteKeys], list[np.ndarray], list[np.ndarray]]:
    """(tag, qids, docno columns, scores, line numbers) of each block's data lines (no line
    numbers unless ``keep_lines``); each block's text and token positions are let go once
    its columns are cut out."""
    qids = Stretches()
    docnos: list[ByteKeys] = []
    scores: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    tag: str | None = None
    for block in _blocks(path, block_bytes):
        toks = _data_lines(block, 6, exact=False)
        if len(toks.lines) == 0:
            continue
        if tag is None:
            start, length = (int(x[0]) for x in _span(toks, 5))
            tag = bytes(block.buf[start : start + length]).decode("utf-8")
        qids.add(_column(block, toks, 0))
        docnos.append(_column(block, toks, 2))
        scores.append(parse_floats(block.buf, *_span(toks, 4)))
        lines.append(toks.lines if keep_lines else toks.lines[:0])
    if tag is None:
        raise Irregular  # no data line: the line reader says so
    return tag, qids, docnos, scores, lines


@dataclass(slots=True)
class RunRows:
    """A run file's rows as read, with the permutation that puts them in trec_eval order
    (``order``; None when they are in it): row ``i`` in that order is row ``order[i]``
    here. The docnos stay in the blocks they were read in
    (:class:`~judgeapp.bytekeys.ScatteredKeys`). :func:`read_run_columns` puts every
    column in order and joins the docnos; `evaluate` looks the docnos up as they are and
    puts only the ids found in order (judgeapp.measures.files), so a run's columns are
    neither copied nor reordered."""

    path: str
    tag: str
    qids: list[str]  # byte order
    topic: np.ndarray  # int64, each row's index into qids
    docnos: ScatteredKeys
    hashes: np.ndarray  # uint64 hash of each docno (ByteKeys.hashes)
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64 source line numbers
    n_lines: int
    order: np.ndarray | None = None

    @property
    def bounds(self) -> np.ndarray:
        """Topic ``k`` is rows ``bounds[k]:bounds[k+1]`` in trec_eval order."""
        counts = np.bincount(self.topic, minlength=len(self.qids))
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    def in_order(self, column: np.ndarray) -> np.ndarray:
        """A column of these rows (or made from them) in trec_eval order."""
        return column if self.order is None else column[self.order]

    def reordered(self, float32: bool) -> RunRows:
        """Rows in trec_eval 10.0's order (:meth:`of_columns`) ordered for 9.x (``float32``:
        scores compared as C floats, which may tie where doubles differ) or 10.0."""
        assert self.order is None
        order = trec_order(self.topic, self.scores, self.docnos, float32=float32)
        return RunRows(
            self.path,
            self.tag,
            self.qids,
            self.topic,
            self.docnos,
            self.hashes,
            self.scores,
            self.lines,
            self.n_lines,
            order,
        )

    @classmethod
    def of_columns(cls, run: RunFile) -> RunRows:
        """Columns already in trec_eval order (the line reader's, say)."""
        return cls(
            run.path,
            run.tag,
            run.qids,
            run.topic,
            ScatteredKeys([run.docnos]),
            run.hashes,
            run.scores,
            run.lines,
            run.n_lines,
        )


def _read_run_rows(
    path: str, block_bytes: int, float32: bool = False, keep_lines: bool = True
) -> RunRows:
    tag, qids, docnos, scores, lines = _run_blocks(path, block_bytes, keep_lines)
    # the blocks' docnos stay where they are; the other columns are joined, each list let
    # go as soon as it is
    distinct, topic, grouped = qids.topics()
    keys = ScatteredKeys(docnos)
    docnos.clear()
    hashes = keys.hashes()  # ByteKeys.hashes: one string, one hash, at any width
    score = _joined_array(scores)
    line = _joined_array(lines)
    # a docno twice in a topic, whatever the order of the rows
    if has_duplicates(topic, keys, hashes):
        raise Irregular
    if grouped:
        order = trec_order(topic, score, keys, float32=float32)
    else:  # topics interleaved: grouped and put in score order by one sort, then ties
        first = by_score(topic, score)
        rest = trec_order(topic[first], score[first], keys.permuted(first), float32=float32)
        order = first if rest is None else first[rest]
    return RunRows(path, tag, distinct, topic, keys, hashes, score, line, len(topic), order)


def read_run_rows(
    path: PathArg, float32: bool = False, block_bytes: int = BLOCK_BYTES, *, lines: bool = True
) -> RunRows:
    """A TREC run's rows and their trec_eval order (10.0's, or 9.x's with ``float32``),
    without their line numbers unless ``lines`` (`evaluate` needs none); a file the bulk
    reader does not take as it is goes through the line-precise reader (which raises the
    error, if there is one)."""
    path = os.fspath(path)
    try:
        return _read_run_rows(path, block_bytes, float32, lines)
    except Irregular:
        rows = RunRows.of_columns(_precise_run(path))
        return rows.reordered(float32) if float32 else rows


def _read_run(path: str, block_bytes: int) -> RunFile:
    rows = _read_run_rows(path, block_bytes)
    docnos = rows.docnos if rows.order is None else rows.docnos.permuted(rows.order)
    return RunFile.of_columns(
        path=path,
        tag=rows.tag,
        qids=rows.qids,
        bounds=rows.bounds,
        docnos=docnos.joined(),  # in their final order: one copy, made once
        hashes=rows.in_order(rows.hashes),
        scores=rows.in_order(rows.scores),
        lines=rows.in_order(rows.lines),
        n_lines=rows.n_lines,
    )


def _joined(parts: list[ByteKeys]) -> ByteKeys:
    """The parts as one column; ``parts`` is emptied (its rows now live in the result)."""
    joined = ByteKeys.concat(parts)
    parts.clear()
    return joined


def _joined_array(parts: list[np.ndarray]) -> np.ndarray:
    joined = np.concatenate(parts)
    parts.clear()
    return joined


def read_run_columns(path: PathArg, block_bytes: int = BLOCK_BYTES) -> RunFile:
    """A TREC run as columns; a file the bulk reader does not take as it is goes through
    the line-precise reader (which raises the error, if there is one)."""
    path = os.fspath(path)
    try:
        return _read_run(path, block_bytes)
    except Irregular:
        return _precise_run(path)


@dataclass(slots=True)
class NumberedRuns:
    """Runs read together, their docnos numbered once across them (``docnos``, a
    :class:`~judgeapp.bytekeys.Numbered`): what a store needs to intern them. Each
    run's own docno, hash and line columns are dropped (empty), as the numbering stands
    for them: this is also what a forked reader sends, at a fraction of the bytes."""

    runs: list[RunFile]
    docnos: Numbered

    @classmethod
    def read(cls, paths: Sequence[PathArg]) -> NumberedRuns:
        """Each file by :func:`read_run_columns` (its errors raised as they come), its
        docnos numbered as it comes; :class:`~judgeapp.bytekeys.HashCollision` if two
        docnos share a hash (read them one by one then: a store takes the exact road)."""
        numbering = RunNumbering()
        for path in paths:
            numbering.add(path)
        return numbering.numbered()

    @classmethod
    def merge(cls, parts: Sequence[NumberedRuns], order: Sequence[tuple[int, int]]) -> NumberedRuns:
        """The parts as one, run ``i`` being ``parts[a].runs[b]`` for ``(a, b) = order[i]``."""
        merged = Numbered.merge([part.docnos for part in parts])
        start = np.cumsum([0] + [len(part.runs) for part in parts]).tolist()
        return cls(
            [parts[a].runs[b] for a, b in order],
            Numbered(
                merged.keys, [merged.ids[start[a] + b] for a, b in order], merged.byte_ordered
            ),
        )


class RunNumbering:
    """Runs read one after another, each numbered into the docnos met so far as it comes
    (its docno, hash and line columns then dropped): at the end, :meth:`numbered` only
    puts the distinct docnos in byte order. Work done run by run can be shared out a run
    at a time (`import run`'s forked readers)."""

    def __init__(self) -> None:
        self.runs: list[RunFile] = []
        self.ids: list[np.ndarray] = []
        self.interner = Interner()

    def add(self, path: PathArg) -> None:
        run = read_run_columns(path)
        self.ids.append(self.interner.add(run.docnos, run.hashes))
        self.runs.append(run.without_docnos())

    def numbered(self) -> NumberedRuns:
        # in byte order, as a store numbers them: a reader in a forked process so does
        # that work too, and parts in byte order merge by one sort
        docnos = Numbered(self.interner.keys(), self.ids).in_byte_order()
        return NumberedRuns(self.runs, docnos)


def _precise_run(path: str) -> RunFile:
    return read_run_lines(path)


# --- qrels ---------------------------------------------------------------------------------


def _read_qrels(path: str, block_bytes: int) -> QrelsFile:
    qids: list[ByteKeys] = []
    docnos: list[ByteKeys] = []
    grades: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    for block in _blocks(path, block_bytes):
        toks = _data_lines(block, 4, exact=True)
        if len(toks.lines) == 0:
            continue
        qids.append(_column(block, toks, 0))
        docnos.append(_column(block, toks, 2))
        values = parse_ints(block.buf, *_span(toks, 3))
        if len(values) and int(np.abs(values).max()) > GRADE_LIMIT:
            raise Irregular  # the line reader names the grade out of range
        grades.append(values)
        lines.append(toks.lines)
    if not lines:
        raise Irregular
    keys = ByteKeys.concat(docnos)
    distinct, topic, _ = topics_of(ByteKeys.concat(qids))
    hashes = keys.hashes()
    if has_duplicates(topic, keys, hashes):
        raise Irregular
    return QrelsFile.of_columns(
        path,
        distinct,
        topic,
        keys,
        np.concatenate(grades),
        np.concatenate(lines),
        hashes,
    )


def read_qrels_columns(path: PathArg, block_bytes: int = BLOCK_BYTES) -> QrelsFile:
    """TREC qrels as columns (see :func:`read_run_columns`)."""
    path = os.fspath(path)
    try:
        return _read_qrels(path, block_bytes)
    except Irregular:
        return read_trec_qrels_lines(path)
