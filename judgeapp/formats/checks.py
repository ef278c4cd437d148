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
    if not unique:
        met = False
        for record in records:
            met = True
            yield record
        if not met:
            raise FormatError(path, None, empty)
        return
    seen: dict[str, int] = {}
    for record in records:
        ident = record.qid if isinstance(record, Topic) else record.docno
        first = seen.setdefault(ident, record.line)
        if first != record.line:
            raise FormatError(
                path, record.line, f"duplicate {what} {ident} at lines {first} and {record.line}"
            )
        yield record
    if not seen:
        raise FormatError(path, None, empty)
