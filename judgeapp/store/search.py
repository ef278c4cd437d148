"""Full-text search of the documents: `store.search` reads the search index and the search
log.

The index (schema 0007) is SQLite's FTS5 over the documents' title and text, ranked by
`bm25()`, or on PostgreSQL a generated `tsvector` column with a GIN index; both stem
English words (Porter; PostgreSQL's `english` configuration). PostgreSQL ranks by BM25 from
term statistics of judgeapp's own (schema 0008, judgeapp.store.postings: `ts_rank` read
every match's vector). It is kept current in the transaction that writes the documents:
the vector and GIN index by the server (a generated column), FTS5 and the postings by the
store (`index_documents` and `unindex_documents`, called wherever documents are written).
A query arrives parsed (`TextQuery`: what the words mean is the services' business); here
it becomes the back end's own query language, every word quoted, so nothing a user types
can break the query.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import Connection, select

from judgeapp.records import SearchHit, SearchLogEntry, TextQuery
from judgeapp.store import models as m
from judgeapp.store.base import raw, rows_in, utcnow
from judgeapp.store.db import Repository
from judgeapp.store.postings import (
    Unranked,
    bm25,
    evaluate,
    index_postings,
    parse_tsquery,
    read_terms,
    rebuild_postings,
    unindex_postings,
)

FTS = m.FTS_TABLE
Ranked = tuple[int, float]  # a document's id and score
TSQUERY = "SELECT to_tsquery('english', ?)::text"
CHECK = "SELECT doc_id FROM documents WHERE doc_id = ANY (?::int4[]) AND search @@ to_tsquery('english', ?)"
TOKENIZE = "porter unicode61 remove_diacritics 2"  # as schema 0007 made the index


def fts5_expression(query: TextQuery) -> str:
    """The FTS5 MATCH expression of `query`: each phrase in double quotes (a `"` inside
    doubled), the last one a prefix when `query.prefix_last`, joined by AND or OR."""
    parts = []
    for k, phrase in enumerate(query.phrases):
        quoted = '"' + " ".join(phrase).replace('"', '""') + '"'
        if query.prefix_last and k == len(query.phrases) - 1:
            quoted += " *"
        parts.append(quoted)
    return (" AND " if query.require_all else " OR ").join(parts)


def tsquery_text(query: TextQuery) -> str:
    """The text of a `to_tsquery('english', ...)`: each word a quoted lexeme (a `'` inside
    doubled; the words are stemmed by the configuration), a phrase's words joined by
    `<->`, the last word a prefix (`:*`) when `query.prefix_last`, phrases joined by `&` or
    `|`."""
    parts = []
    for k, phrase in enumerate(query.phrases):
        words = ["'" + w.replace("'", "''").replace("\\", "") + "'" for w in phrase]
        if query.prefix_last and k == len(query.phrases) - 1:
            words[-1] += ":*"
        parts.append(words[0] if len(words) == 1 else "(" + " <-> ".join(words) + ")")
    return (" & " if query.require_all else " | ").join(parts)


def unindex_documents(conn: Connection, ids: Sequence[int]) -> None:
    """Take documents `ids` out of the full-text index (before they are deleted or
    replaced): SQLite's FTS5 needs the words it indexed, read from the documents table;
    PostgreSQL's GIN index follows by itself, its postings do not (unindex_postings)."""
    unindex_postings(conn, ids)
    if conn.dialect.name == "sqlite" and ids:
        raw(
            conn,
            f"INSERT INTO {FTS} ({FTS}, rowid, title, text) SELECT 'delete', doc_id, title, "
            f"text FROM documents WHERE doc_id IN ({','.join('?' * len(ids))})",
            tuple(ids),
        )


def index_documents(conn: Connection, ids: Sequence[int]) -> None:
    """Put documents `ids` (written already) into the full-text index, as one statement:
    FTS5 then writes their terms once; on PostgreSQL their postings, one segment."""
    index_postings(conn, ids)
    if conn.dialect.name == "sqlite" and ids:
        raw(
            conn,
            f"INSERT INTO {FTS} (rowid, title, text) SELECT doc_id, title, text FROM documents "
            f"WHERE doc_id IN ({','.join('?' * len(ids))})",
            tuple(ids),
        )


def rebuild_index(conn: Connection) -> None:
    """The full-text index made again from every document (after a bulk copy); on
    PostgreSQL the postings (the GIN index is the server's)."""
    rebuild_postings(conn)
    if conn.dialect.name == "sqlite":
        raw(conn, f"INSERT INTO {FTS} ({FTS}) VALUES ('rebuild')")


class Search(Repository):
    """`store.search`: full-text search of the documents, and the log of searches made."""

    def find(self, query: TextQuery, *, limit: int | None = 100) -> list[SearchHit]:
        """The documents matching `query`, best first by BM25 (FTS5's `bm25()` on SQLite;
        on PostgreSQL from the term statistics of schema 0008, judgeapp.store.postings), at
        most `limit` (None: all). Each hit has its docno and title."""
        if not query.phrases:
            return []
        with self.db.read() as conn:
            if conn.dialect.name == "sqlite":
                sql = f"SELECT f.rowid, -bm25({FTS}) AS score FROM {FTS} AS f WHERE {FTS} MATCH ?"
                sql += " ORDER BY score DESC"
                if limit is not None:
                    sql += f" LIMIT {int(limit)}"
                ranked = [(int(i), float(s)) for i, s in raw(conn, sql, (fts5_expression(query),))]
            elif self.db.scope is not None and not self.db.scope.sees_all:
                ranked = self._ts_ranked(conn, query, limit)
            else:
                ranked = self._bm25_ranked(conn, query, limit)
            return self._hits(conn, ranked)

    @staticmethod
    def _bm25_ranked(conn: Connection, query: TextQuery, limit: int | None) -> list[Ranked]:
        """PostgreSQL: the matches of `query` by BM25 over the postings (see
        judgeapp.store.postings): the query's structure evaluated on them, then, where it
        holds a phrase, `@@` asked of the best candidates until `limit` of them pass."""
        text = tsquery_text(query)
        tree = parse_tsquery(raw(conn, TSQUERY, (text,)).scalar_one())
        if tree is None:  # stop words only: nothing matches, as `@@` says
            return []
        terms, documents, mean_length = read_terms(conn, tree)
        docs, scores = bm25(list(terms.values()), documents, mean_length)
        try:
            keep, check = evaluate(tree, terms, docs)
        except Unranked:  # a NOT: the matches by GIN
            sql = "SELECT doc_id FROM documents WHERE search @@ to_tsquery('english', ?)"
            keep = np.isin(docs, [int(i) for (i,) in raw(conn, sql, (text,))])
            check = False
        docs, scores = docs[keep], scores[keep]
        if not check and limit is not None and len(docs) > limit > 0:
            # those scoring at least the limit-th best (a partition, not a sort of them all)
            least = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            docs, scores = docs[scores >= least], scores[scores >= least]
        order = np.lexsort((docs, -scores))  # best first; equal scores by doc id
        if not check:
            order = order if limit is None else order[:limit]
            return list(zip(docs[order].tolist(), scores[order].tolist(), strict=True))
        ranked: list[Ranked] = []
        size, start = max(4 * (limit or 0), 256), 0
        while start < len(order) and (limit is None or len(ranked) < limit):
            chunk = order[start : start + size] if limit is not None else order
            passed = {int(i) for (i,) in raw(conn, CHECK, (docs[chunk].tolist(), text))}
            ranked += [(int(docs[k]), float(scores[k])) for k in chunk if int(docs[k]) in passed]
            start, size = start + len(chunk), 4 * size
        return ranked if limit is None else ranked[:limit]

    @staticmethod
    def _ts_ranked(conn: Connection, query: TextQuery, limit: int | None) -> list[Ranked]:
        """PostgreSQL, a member judging blind (who reads the documents of the pools and their
        own judgments only, and not the postings): `ts_rank` over the matches by GIN."""
        sql = (
            "SELECT f.doc_id, ts_rank(f.search, q) AS score "
            "FROM documents AS f, to_tsquery('english', ?) AS q WHERE f.search @@ q "
            "ORDER BY score DESC"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [(int(i), float(s)) for i, s in raw(conn, sql, (tsquery_text(query),))]

    @staticmethod
    def _hits(conn: Connection, ranked: Sequence[Ranked]) -> list[SearchHit]:
        """Docno and title of each ranked (doc id, score), in one query per 900."""
        d, n = m.Document.c, m.Docno.c
        statement = select(d.doc_id, n.docno, d.title).join(m.Docno, n.id == d.doc_id)
        rows = rows_in(conn, statement, d.doc_id, [int(r[0]) for r in ranked])
        info = {int(i): (str(dn), str(t or "")) for i, dn, t in rows}
        return [
            SearchHit(doc, info[doc][0], info[doc][1], float(score))
            for doc, score in ((int(r[0]), r[1]) for r in ranked)
            if doc in info
        ]

    def optimize(self) -> None:
        """Merge the full-text index into one segment (FTS5's `optimize`; after a large
        import, searches then read one b-tree per word); PostgreSQL: ANALYZE documents."""
        with self.db.begin() as conn:
            if conn.dialect.name == "sqlite":
                raw(conn, f"INSERT INTO {FTS} ({FTS}) VALUES ('optimize')")
            else:
                raw(conn, "ANALYZE documents")

    # -- the search log -------------------------------------------------------------------
    def log(self, assessor_id: int, qid: str | None, scope: str, query: str, results: int) -> None:
        """Note one search of an assessor (committed). A team member's role logs its own
        through the server's `judgeapp_log_search` (schema 0007), which refuses another's."""
        if self.db.scope is not None:
            with self.db.member_write() as conn:
                raw(
                    conn,
                    "SELECT judgeapp_log_search(?, ?, ?, ?, ?)",
                    (int(assessor_id), qid, scope, query, int(results)),
                )
            return
        with self.db.begin() as conn:
            conn.execute(
                m.SearchLog.insert(),
                {
                    "assessor_id": assessor_id,
                    "qid": qid,
                    "scope": scope,
                    "query": query,
                    "results": results,
                    "at": utcnow(),
                },
            )

    def logged(self, assessors: Sequence[str] | None = None) -> list[SearchLogEntry]:
        """Every search logged (of `assessors`, all by default), oldest first."""
        s, a = m.SearchLog, m.Assessor
        stmt = (
            select(a.c.name, s.c.qid, s.c.scope, s.c.query, s.c.results, s.c.at)
            .join(a, a.c.id == s.c.assessor_id)
            .order_by(s.c.id)
        )
        if assessors is not None:
            stmt = stmt.where(a.c.name.in_(list(assessors)))
        with self.db.read() as conn:
            return [SearchLogEntry(*row) for row in conn.execute(stmt)]
