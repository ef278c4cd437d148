"""Checks shared by the record readers (topics, documents)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from judgeapp.formats.errors import FormatError
from judgeapp.formats.model import Document, Topic

R = TypeVar("R", Topic, Document)


def unique_records(
    path: str, records: Iterable[R], what: str, empty: str, *, unique: bool = True
) -> Iterator[R]:
    """Pass records through, stopping at the first id seen twice (naming both lines) and
    complaining with ``empty`` when there were none. ``unique=False``: ids are not checked
    here (a store importing them checks them, in memory that does not grow with them)."""
    seen: dict[str, int] = {}
    met = False
    for record in records:
        met = True
        if unique:
            ident = record.qid if isinstance(record, Topic) else record.docno
            first = seen.setdefault(ident, record.line)
            if first != record.line:
                raise duplicate_error(path, what, ident, first, record.line)
        yield record
    if not met:
        raise FormatError(path, None, empty)


def duplicate_error(path: str, what: str, ident: str, first: int, line: int) -> FormatError:
    """The error for an id met twice in one file, naming both lines."""
    return FormatError(path, line, f"duplicate {what} {ident} at lines {first} and {line}")
