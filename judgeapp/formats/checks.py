"""Checks shared by the record readers (topics, documents)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import numpy as np

from judgeapp.errors import FormatError, duplicate_error
from judgeapp.records import Document, Topic

R = TypeVar("R", Topic, Document)

# records checked together when only hashes of the ids are kept (see unique_records)
HASH_BATCH = 512


def unique_records(
    path: str,
    records: Iterable[R],
    what: str,
    empty: str,
    *,
    unique: bool = True,
    again: Callable[[], Iterator[R]] | None = None,
) -> Iterator[R]:
    """Pass records through, stopping at the first id seen twice (naming both lines) and
    complaining with ``empty`` when there were none. ``unique=False``: ids are not checked
    here (a store importing them checks them, in memory that does not grow with them).

    ``again`` reads the records once more from the start: then what is kept of each
    record is a hash of its id (8 bytes, not the id and its line), and when a hash comes
    again the records are read again up to the first one of that id, for its line (a
    duplicate stops the reading anyway; two ids of the same hash only cost the reading).
    Records then pass HASH_BATCH at a time, still each before anything after it fails."""
    if unique and again is not None:
        return _unique_by_hash(path, records, what, empty, again)
    return _unique(path, records, what, empty, unique)


def _ident(record: Topic | Document) -> str:
    return record.qid if isinstance(record, Topic) else record.docno


def _unique(path: str, records: Iterable[R], what: str, empty: str, unique: bool) -> Iterator[R]:
    seen: dict[str, int] = {}
    met = False
    for record in records:
        met = True
        if unique:
            ident = _ident(record)
            first = seen.setdefault(ident, record.line)
            if first != record.line:
                raise duplicate_error(path, what, ident, first, record.line)
        yield record
    if not met:
        raise FormatError(path, None, empty)


class _SeenHashes:
    """A set of int64 hashes as sorted runs of halving sizes (each new batch a run, two
    runs of about the same size merged), so that adding n hashes costs n log n."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    def contains(self, hashes: np.ndarray) -> np.ndarray:
        found = np.zeros(len(hashes), dtype=bool)
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, hashes), len(run) - 1)
            found |= run[at] == hashes
        return found

    def add(self, hashes: np.ndarray) -> None:
        run = np.sort(hashes)
        while self.runs and len(self.runs[-1]) <= 2 * len(run):
            run = np.sort(np.concatenate((self.runs.pop(), run)), kind="stable")
        self.runs.append(run)


def _unique_by_hash(
    path: str, records: Iterable[R], what: str, empty: str, again: Callable[[], Iterator[R]]
) -> Iterator[R]:
    seen = _SeenHashes()
    batch: list[R] = []
    met = False
    stream = iter(records)
    while True:
        try:
            record = next(stream)
        except StopIteration:
            break
        except Exception:  # the records before the failure come first (a duplicate too)
            yield from _checked(path, what, batch, seen, again)
            raise
        met = True
        batch.append(record)
        if len(batch) == HASH_BATCH:
            yield from _checked(path, what, batch, seen, again)
            batch = []
    yield from _checked(path, what, batch, seen, again)
    if not met:
        raise FormatError(path, None, empty)


def _checked(
    path: str, what: str, batch: list[R], seen: _SeenHashes, again: Callable[[], Iterator[R]]
) -> Iterator[R]:
    """The batch, up to its first record whose id came earlier (then the error)."""
    if not batch:
        return
    idents = [_ident(r) for r in batch]
    hashes = np.fromiter(map(hash, idents), dtype=np.int64, count=len(idents))
    before = seen.contains(hashes)
    order = np.argsort(hashes, kind="stable")
    repeated = np.zeros(len(batch), dtype=bool)  # a hash met earlier in the batch
    repeated[order[1:]] = hashes[order[1:]] == hashes[order[:-1]]
    for k in np.flatnonzero(before | repeated).tolist():
        ident, line = idents[k], batch[k].line
        if before[k]:  # the first record of that id is in an earlier batch, or none is
            first = _first_line(again, ident)
        else:
            first = batch[idents.index(ident)].line
        if first != line:
            yield from batch[:k]
            raise duplicate_error(path, what, ident, first, line)
    seen.add(hashes)
    yield from batch


def _first_line(again: Callable[[], Iterator[R]], ident: str) -> int:
    """The line of the first record of id ``ident`` (read again from the start)."""
    records = again()
    try:
        for record in records:
            if _ident(record) == ident:
                return record.line
    finally:
        close = getattr(records, "close", None)  # a generator holding the file open
        if close is not None:
            close()
    raise AssertionError(f"{ident} was read before, and not again")
