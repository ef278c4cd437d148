"""`store.documents`: the documents of the collection (title, text, fields, source) and
the docno ids everything else is stored by."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, func, select

from judgeapp.errors import FormatError, duplicate_error
from judgeapp.records import Changes, Document, DocumentRecord
from judgeapp.store import models as m
from judgeapp.store.base import chunks, raw, rows_in
from judgeapp.store.db import Repository
from judgeapp.store.docnos import intern, intern_unique
from judgeapp.store.search import index_documents, unindex_documents

DOC_BATCH = 2000
SEEN_CACHE_KIB = 256


class _SeenDocuments:
    """The documents of one `Documents.put` stream so far, for its duplicate check, in
    memory that does not grow with the stream: one bit a docno id (the project's docnos
    are numbered densely) says whether the stream had it; the line and source of each
    wait in a temporary table of the transaction, read only for a duplicate."""

    TABLE = "judgeapp_seen_documents"

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.bits = np.zeros(0, dtype=np.uint8)
        self.sources: dict[str | None, int] = {}
        end = " ON COMMIT DROP" if conn.dialect.name == "postgresql" else ""
        if conn.dialect.name == "sqlite":
            # the temporary table's pages go to its file beyond 256 KiB: with SQLite's
            # default cache they stayed in memory, which grew with the stream (import docs
            # of 500,000 documents: SQLite's memory 3.0 / 4.7 / 6.6 MiB after a tenth, a
            # quarter and half of them; 3.0 / 3.2 MiB after a tenth and half with this)
            raw(conn, f"PRAGMA temp.cache_size = -{SEEN_CACHE_KIB}")
        raw(conn, f"CREATE TEMPORARY TABLE {self.TABLE} (doc_id BIGINT, line BIGINT, src INT){end}")

    def close(self) -> None:
        if self.conn.dialect.name != "postgresql":
            raw(self.conn, f"DROP TABLE temp.{self.TABLE}")

    def add(self, batch: Sequence[tuple[Document, str | None]], ids: np.ndarray) -> None:
        """Take a batch (its docnos' ids given), or raise for its first duplicate."""
        if len(ids) and int(ids.max()) >> 3 >= len(self.bits):
            size = max((int(ids.max()) >> 3) + 1, 2 * len(self.bits))
            self.bits = np.concatenate((self.bits, np.zeros(size - len(self.bits), np.uint8)))
        masks = (1 << (ids & 7)).astype(np.uint8)
        before = (self.bits[ids >> 3] & masks) != 0
        order = np.argsort(ids, kind="stable")
        again = np.zeros(len(ids), dtype=bool)  # met earlier in this batch
        again[order[1:]] = ids[order[1:]] == ids[order[:-1]]
        if (before | again).any():
            k = int(np.flatnonzero(before | again)[0])
            self._raise(batch, ids, k, bool(before[k]))
        np.bitwise_or.at(self.bits, ids >> 3, masks)
        sources = [self.sources.setdefault(s, len(self.sources)) for _, s in batch]
        rows = list(zip(ids.tolist(), [d.line for d, _ in batch], sources, strict=True))
        raw(self.conn, f"INSERT INTO {self.TABLE} (doc_id, line, src) VALUES (?, ?, ?)", rows)

    def _raise(
        self, batch: Sequence[tuple[Document, str | None]], ids: np.ndarray, k: int, old: bool
    ) -> None:
        doc, source = batch[k]
        row = None
        if old:  # in an earlier batch?
            sql = f"SELECT line, src FROM {self.TABLE} WHERE doc_id = ?"
            row = raw(self.conn, sql, (int(ids[k]),)).first()
        if row is not None:
            earlier, line = list(self.sources)[row[1]], int(row[0])
        else:
            j = int(np.flatnonzero(ids[:k] == ids[k])[0])
            earlier, line = batch[j][1], batch[j][0].line
        if earlier == source and source is not None and line and doc.line:
            # within one file: the readers' own message
            raise duplicate_error(source, "docno", doc.docno, line, doc.line)
        raise FormatError(
            source or "documents",
            doc.line,
            f"duplicate docno {doc.docno}" + (f" (also in {earlier})" if earlier != source else ""),
        )


class Documents(Repository):
    """Documents and docnos, by docno or by id."""

    def put(
        self,
        documents: Iterable[tuple[Document, str | None]],
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Add (or replace) documents from a stream of (document, source file), in one
        transaction: if the stream raises part-way, nothing of it is kept. Returns the number
        of documents stored. A docno twice in the stream is an error, raised where the second
        one stands (before any error the stream raises after it): within one file it names
        both lines (the message of the readers' own check), else both sources.

        Memory stays that of a batch: documents are written DOC_BATCH at a time, and what is
        kept in memory of each for the duplicate check is one bit (see _SeenDocuments)."""
        table = m.Document
        count = 0
        with self.db.begin() as conn:
            seen = _SeenDocuments(conn)
            batch: list[tuple[Document, str | None]] = []

            def flush() -> None:
                ids = intern(conn, [d.docno for d, _ in batch])
                seen.add(batch, ids)
                id_list = ids.tolist()
                unindex_documents(conn, id_list)  # those replaced, out of the search index
                conn.execute(table.delete().where(table.c.doc_id.in_(id_list)))
                conn.execute(
                    table.insert(),
                    [
                        {
                            "doc_id": doc_id,
                            "title": d.title,
                            "text": d.text,
                            "fields": d.fields,
                            "source": source,
                        }
                        for doc_id, (d, source) in zip(id_list, batch, strict=True)
                    ],
                )
                # into the search index by one statement per batch: FTS5 writes a segment
                # per statement (per row, as triggers would, took 3.5 times the CPU time)
                index_documents(conn, id_list)
                batch.clear()

            stream = iter(documents)
            while True:
                try:
                    item = next(stream)
                except StopIteration:
                    break
                except Exception:  # the stream failed: a duplicate before it comes first
                    if batch:
                        seen.add(batch, intern(conn, [d.docno for d, _ in batch]))
                    raise
                batch.append(item)
                count += 1
                if len(batch) >= DOC_BATCH:
                    flush()
                    if progress:
                        progress(count)
            if batch:
                flush()
            seen.close()
            self.db.changed(conn, Changes(documents=True))
            if progress:
                progress(count)
        return count

    def _document(self, where: Any) -> DocumentRecord | None:
        with self.db.read() as conn:
            row = conn.execute(
                select(
                    m.Document.c.doc_id,
                    m.Docno.c.docno,
                    m.Document.c.title,
                    m.Document.c.text,
                    m.Document.c.fields,
                    m.Document.c.source,
                )
                .join(m.Docno, m.Docno.c.id == m.Document.c.doc_id)
                .where(where)
            ).first()
        return None if row is None else DocumentRecord(*row)

    def get(self, docno: str) -> DocumentRecord | None:
        return self._document(m.Docno.c.docno == docno)

    def by_id(self, doc_id: int) -> DocumentRecord | None:
        return self._document(m.Document.c.doc_id == doc_id)

    def by_ids(self, doc_ids: Iterable[int]) -> dict[int, DocumentRecord]:
        """The documents of `doc_ids` the project holds (with text), by doc id: one query
        per 900 (a topic's pool: a few tenths of a second for 3,000 documents of 3 KB)."""
        d = m.Document.c
        statement = select(d.doc_id, m.Docno.c.docno, d.title, d.text, d.fields, d.source).join(
            m.Docno, m.Docno.c.id == d.doc_id
        )
        with self.db.read() as conn:
            rows = rows_in(conn, statement, d.doc_id, sorted({int(i) for i in doc_ids}))
            return {int(r[0]): DocumentRecord(*r) for r in rows}

    def texts(self, doc_ids: Iterable[int]) -> dict[int, str]:
        """Title and text (one string) of each of `doc_ids` the project holds, by doc id."""
        d = m.Document.c
        with self.db.read() as conn:
            rows = rows_in(
                conn, select(d.doc_id, d.title, d.text), d.doc_id, sorted({int(i) for i in doc_ids})
            )
            return {doc: f"{title}\n{text}" for doc, title, text in rows}

    def count(self) -> int:
        with self.db.read() as conn:
            return conn.execute(select(func.count()).select_from(m.Document)).scalar_one()

    def ids_with_text(self) -> np.ndarray:
        """Ids of the documents whose text is in the project (int64, unordered)."""
        with self.db.read() as conn:
            return np.fromiter(
                (i for (i,) in conn.execute(select(m.Document.c.doc_id))), dtype=np.int64
            )

    # -- docnos ----------------------------------------------------------------------
    def docno_ids(self, docnos: Iterable[str]) -> dict[str, int]:
        """Ids of the docnos the project knows (unknown ones are left out)."""
        d = m.Docno.c
        with self.db.read() as conn:
            return dict(rows_in(conn, select(d.docno, d.id), d.docno, list(set(docnos))))

    def intern(self, docnos: Iterable[str]) -> dict[str, int]:
        """Ids for these docnos, adding the ones the project has not seen."""
        unique = list(dict.fromkeys(docnos))
        if self.db.scope is not None:  # a member, through the server (1,000 at a time)
            found: dict[str, int] = {}
            for chunk in chunks(unique, 1000):
                with self.db.member_write() as conn:
                    rows = raw(
                        conn, "SELECT docno, id FROM judgeapp_intern(?)", (chunk,)
                    ).fetchall()
                found.update({str(d): int(i) for d, i in rows})
            return found
        with self.db.begin() as conn:
            ids = intern_unique(conn, unique)
        return dict(zip(unique, ids.tolist(), strict=True))

    def docnos_of(self, doc_ids: Iterable[int]) -> dict[int, str]:
        """The docno of each of `doc_ids` the project knows."""
        d = m.Docno.c
        with self.db.read() as conn:
            return dict(rows_in(conn, select(d.id, d.docno), d.id, [int(i) for i in set(doc_ids)]))
