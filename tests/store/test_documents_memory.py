"""A documents import keeps SQLite's own memory flat as the stream grows: what the duplicate
check keeps of each document (its line and source, in a temporary table) goes to the
temporary table's file instead of piling up in SQLite's cache."""

from __future__ import annotations

import ctypes
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgeapp.records import Document
from judgeapp.store import Store


def sqlite_memory_used() -> Callable[[], int] | None:
    """SQLite's `sqlite3_memory_used`, from the library the sqlite3 module runs on (None
    when that cannot be told: a module built with its own copy of SQLite)."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return None
    major, minor, patch = sqlite3.sqlite_version_info
    for line in maps.read_text().splitlines():
        if "libsqlite3" in line:
            lib = ctypes.CDLL(line.split()[-1])
            if lib.sqlite3_libversion_number() == major * 1_000_000 + minor * 1000 + patch:
                lib.sqlite3_memory_used.restype = ctypes.c_int64
                return lib.sqlite3_memory_used  # type: ignore[no-any-return]
    return None


def test_sqlite_memory_does_not_grow_with_the_documents_stream(tmp_path: Path) -> None:
    used = sqlite_memory_used()
    if used is None:
        pytest.skip("the sqlite3 module does not use a shared libsqlite3")
    seen: dict[int, int] = {}

    def stream() -> Iterator[tuple[Document, str]]:
        for i in range(240_000):
            if i in (60_000, 240_000 - 1):
                seen[i] = used()
            yield Document(f"DOC-{i:07d}", "", "t", line=i + 1), "docs.trec"

    with Store.open(tmp_path / "p.db") as store:
        assert store.documents.put(stream()) == 240_000
    growth = (seen[240_000 - 1] - seen[60_000]) / 2**20
    # 180,000 documents more: their lines kept in memory would be about 3 MiB
    assert growth < 0.75, f"SQLite's memory grew {growth:.2f} MiB"
