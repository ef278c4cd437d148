"""Docno numbering: every docno the project meets gets an id (the `docnos` table), the
same in every process for the same inputs (new docnos take the next ids in code-point
order). Runs, documents and judgments are stored by these ids."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Sequence

import numpy as np
from sqlalchemy import Connection

from judgeapp.bytekeys import ByteKeys, HashCollision, Numbered, hash_groups
from judgeapp.records import RunFile
from judgeapp.store.base import raw
from judgeapp.store.files import file_error

ID_DTYPE = np.dtype("<i4")


def distinct_docnos(
    docnos: Sequence[str], hashes: np.ndarray | None = None
) -> tuple[list[str], np.ndarray]:
    """The distinct docnos of a list and, for every entry, the index of its docno among them.

    Works on the strings' hashes with numpy (given by the run reader, which computed them
    while the strings were in the CPU cache), then checks every entry against its
    representative, so the result is exact; only a true hash collision takes the slower
    dict path."""
    n = len(docnos)
    if n == 0:
        return [], np.empty(0, dtype=np.int64)
    if hashes is None or len(hashes) != n:
        hashes = np.fromiter(map(hash, docnos), dtype=np.int64, count=n)
    first, inverse = hash_groups(hashes)
    entries = np.empty(n, dtype=object)
    entries[:] = docnos
    unique = entries[first]
    if (entries == unique[inverse]).all():
        return unique.tolist(), inverse
    table: dict[str, int] = {}
    inverse = np.fromiter((table.setdefault(d, len(table)) for d in docnos), np.int64, n)
    return list(table), inverse


def _intern_postgres(conn: Connection, ordered: list[str]) -> np.ndarray:
    """Ids of `ordered` (distinct docnos in code-point order) on PostgreSQL, creating the
    missing ones in that order: the docnos travel as one array parameter."""
    raw(
        conn,
        "INSERT INTO docnos (docno) SELECT d FROM unnest(?::text[]) WITH ORDINALITY AS u(d, k) "
        "ORDER BY k ON CONFLICT (docno) DO NOTHING",
        (ordered,),
    )
    rows = raw(
        conn,
        "SELECT d.id FROM unnest(?::text[]) WITH ORDINALITY AS u(docno, k) "
        "JOIN docnos AS d ON d.docno = u.docno ORDER BY u.k",
        (ordered,),
    ).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def intern_unique(conn: Connection, unique: Sequence[str]) -> np.ndarray:
    """Ids of distinct docnos (int64, aligned with `unique`), creating missing ones.

    New docnos take the next ids in docno order, so the same inputs give the same ids in
    any process (ids order pools and seed the blind shuffle)."""
    if not unique:
        return np.empty(0, dtype=np.int64)
    # numpy's fixed-width text sort compares code points, which is Python's str order
    order = np.argsort(np.array(unique, dtype=str), kind="stable")
    ids = np.empty(len(unique), dtype=np.int64)
    ids[order] = intern_ordered(conn, [unique[i] for i in order.tolist()])
    return ids


def intern_columns(
    conn: Connection, columns: Sequence[RunFile], numbered: Numbered | None = None
) -> list[np.ndarray]:
    """Ids for every entry of every run (repeats allowed), creating missing docnos. The
    distinct docnos are found with an :class:`Interner` run after run (or come found,
    ``numbered``) and put in byte order (code-point order) by numpy, unless they come
    so; they go to SQLite as JSON built on their bytes (to PostgreSQL as text)."""
    if numbered is None:
        try:
            numbered = Numbered.of([(run.docnos, run.hashes) for run in columns])
        except HashCollision:  # two docnos with one hash: the exact road, through text
            texts = [run.docnos.to_list() for run in columns]
            ids = intern(conn, [d for t in texts for d in t])
            bounds = np.cumsum([0] + [len(t) for t in texts]).tolist()
            return [ids[a:b] for a, b in itertools.pairwise(bounds)]
    numbered = numbered.in_byte_order()
    ids = np.zeros(0, dtype=ID_DTYPE)
    if len(numbered.keys):
        # as stored (int32): each run's gather then makes the stored column itself
        ids = intern_ordered(conn, numbered.keys).astype(ID_DTYPE)
    return [ids[entries] for entries in numbered.ids]


def intern_ordered(conn: Connection, ordered: list[str] | ByteKeys) -> np.ndarray:
    """Ids of distinct docnos given in code-point order, creating missing ones in that
    order. The docnos travel to SQLite as one JSON array (built on their bytes when
    they come as :class:`ByteKeys`), and `json_each` joins them with the `docnos`
    table inside SQLite: the cost follows the number of docnos asked for, not the
    project's size."""
    if conn.dialect.name != "sqlite":
        texts = ordered.to_list() if isinstance(ordered, ByteKeys) else ordered
        return _intern_postgres(conn, texts)
    if isinstance(ordered, ByteKeys):
        payload = ordered.json_array()
    else:
        payload = json.dumps(ordered, ensure_ascii=False)
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        (before,) = cursor.execute("SELECT coalesce(max(id), 0) FROM docnos").fetchone()
        if before == 0:
            # a project without docnos: each takes its place in the array as its id,
            # what the ordered insert below would give, without SQLite sorting them
            cursor.execute(
                "INSERT INTO docnos (id, docno) SELECT key + 1, value FROM json_each(?)",
                (payload,),
            )
            return np.arange(1, len(ordered) + 1, dtype=np.int64)
        cursor.execute(
            "INSERT OR IGNORE INTO docnos (docno) SELECT value FROM json_each(?) ORDER BY key",
            (payload,),
        )
        if cursor.rowcount == len(ordered):
            # all new: this transaction holds the write lock, so they took the next ids
            # in array order (checked, then no lookup is needed)
            (after,) = cursor.execute("SELECT max(id) FROM docnos").fetchone()
            if after == before + len(ordered):
                return np.arange(before + 1, after + 1, dtype=np.int64)
        rows = cursor.execute(
            "SELECT d.id FROM json_each(?) AS j JOIN docnos AS d ON d.docno = j.value "
            "ORDER BY j.key",
            (payload,),
        ).fetchall()
    except sqlite3.Error as exc:  # the driver's own cursor: no engine hook names the file
        listed = cursor.execute("PRAGMA database_list").fetchone()
        error = file_error(str(listed[2] if listed else conn.engine.url.database), exc)
        if error is None:
            raise
        raise error from None
    finally:
        cursor.close()
    ids = np.empty(len(ordered), dtype=np.int64)
    ids[:] = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return ids


def intern(conn: Connection, docnos: Sequence[str], hashes: np.ndarray | None = None) -> np.ndarray:
    """Ids for every entry of `docnos` (repeats allowed), creating missing docnos.
    `hashes`, if given, are the entries' hash() values (see distinct_docnos)."""
    unique, inverse = distinct_docnos(docnos, hashes)
    ids: np.ndarray = intern_unique(conn, unique)[inverse]
    return ids
