"""`store.pools`: pool storage (one short transaction per method, plain records or numpy
arrays out). Building, growing and judging pools is
`judgeapp.services.pools` over `judgeapp.pooling`; here pools are only read and written.

A pool row per pooled document holds its best rank and its contributing runs with their
ranks as two int32 little-endian blobs (run ids are the project's `runs.id`). Judgments are
not part of a pool: they are keyed by (topic, document), so a pool can grow (more runs, more
depth, more budget) without touching a judgment, and deleting a pool deletes no judgment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import func, select

from judgeapp.records import Changes, PoolHeader, PoolInfo, PoolRows
from judgeapp.store import models as m
from judgeapp.store.base import StoreError, raw, raw_binary
from judgeapp.store.db import Repository

if TYPE_CHECKING:
    from sqlalchemy import Connection

ID_DTYPE = np.dtype("<i4")
DOC_COLUMNS = "qid, doc_id, best_rank, n_runs, run_ids, ranks, inclusion_prob, stratum"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Pools(Repository):
    """Pools by name."""

    # -- reading ---------------------------------------------------------------------------
    def all(self) -> list[PoolInfo]:
        with self.db.read() as conn:
            ids = [i for (i,) in conn.execute(select(m.Pool.c.id).order_by(m.Pool.c.id))]
            return [self._pool_info(conn, i) for i in ids]

    def headers(self) -> list[PoolHeader]:
        """Every pool's name, strategy and judging order, oldest first; nothing counted
        (`all()` counts every pool's documents: a scan of its index each)."""
        p = m.Pool.c
        with self.db.read() as conn:
            rows = conn.execute(select(p.name, p.strategy, p.judging_order).order_by(p.id))
            return [PoolHeader(*row) for row in rows]

    def names(self) -> list[str]:
        """The pools' names, oldest first (what `all()` lists, without counting documents)."""
        with self.db.read() as conn:
            return list(conn.execute(select(m.Pool.c.name).order_by(m.Pool.c.id)).scalars())

    def get(self, name: str) -> PoolInfo:
        with self.db.read() as conn:
            return self._pool_info(conn, self._pool_id(conn, name))

    def has(self, name: str) -> bool:
        with self.db.read() as conn:
            return (
                conn.execute(select(m.Pool.c.id).where(m.Pool.c.name == name)).first() is not None
            )

    def kind(self, name: str) -> tuple[str, str]:
        """(strategy, judging order) of a pool, without counting its documents."""
        with self.db.read() as conn:
            strategy, order = conn.execute(
                select(m.Pool.c.strategy, m.Pool.c.judging_order).where(
                    m.Pool.c.id == self._pool_id(conn, name)
                )
            ).one()
        return strategy, order

    def sizes(self, name: str) -> dict[str, int]:
        """Pooled documents per topic."""
        with self.db.read() as conn:
            pool_id = self._pool_id(conn, name)
            rows = conn.execute(
                select(m.PoolDoc.c.qid, func.count())
                .where(m.PoolDoc.c.pool_id == pool_id)
                .group_by(m.PoolDoc.c.qid)
            ).all()
            return dict(sorted(((q, int(n)) for q, n in rows), key=lambda r: r[0].encode()))

    def rows(self, name: str, qid: str) -> PoolRows:
        """One topic of a pool as arrays (no documents when the topic has none)."""
        with self.db.read() as conn:
            pool_id = self._pool_id(conn, name)
            runs, to_index = self._pool_runs(conn, pool_id)
            rows = list(
                raw_binary(
                    conn,
                    f"SELECT {DOC_COLUMNS} FROM {self._pool_docs()} AND qid = ? ORDER BY doc_id",
                    (pool_id, qid),
                )
            )
        return _topic_from_rows(qid, runs, to_index, rows)

    def rows_all(self, name: str, qids: Sequence[str] | None = None) -> dict[str, PoolRows]:
        """Every topic of a pool (or `qids`), in topic byte order."""
        with self.db.read() as conn:
            pool_id = self._pool_id(conn, name)
            runs, to_index = self._pool_runs(conn, pool_id)
            rows = list(
                raw_binary(
                    conn,
                    f"SELECT {DOC_COLUMNS} FROM {self._pool_docs()} ORDER BY qid, doc_id",
                    (pool_id,),
                )
            )
        by_topic: dict[str, list] = {}
        for row in rows:
            by_topic.setdefault(row[0], []).append(row)
        wanted = sorted(by_topic, key=str.encode) if qids is None else list(qids)
        return {q: _topic_from_rows(q, runs, to_index, by_topic.get(q, [])) for q in wanted}

    def doc_ids(self, name: str, qids: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """The pooled document ids (int64, ascending) of `qids` (every topic by default),
        read from the primary key alone."""
        with self.db.read() as conn:
            pool_id = self._pool_id(conn, name)
            sql = "SELECT qid, doc_id FROM pool_docs WHERE pool_id = ?"
            params: tuple[Any, ...] = (pool_id,)
            if qids is not None:
                if not qids:
                    return {}
                sql += f" AND qid IN ({','.join('?' * len(qids))})"
                params += tuple(qids)
            rows = raw(conn, sql + " ORDER BY qid, doc_id", params).fetchall()
        out: dict[str, list[int]] = {}
        for qid, doc in rows:
            out.setdefault(qid, []).append(doc)
        return {q: np.array(ids, dtype=np.int64) for q, ids in out.items()}

    def holding(self, qid: str, doc_id: int) -> list[str]:
        """The pools in which `doc_id` is pooled for `qid` (one primary-key probe each)."""
        with self.db.read() as conn:
            names = {i: n for i, n in conn.execute(select(m.Pool.c.id, m.Pool.c.name))}
            return [
                names[pool_id]
                for pool_id in names
                if raw(
                    conn,
                    "SELECT 1 FROM pool_docs WHERE pool_id = ? AND qid = ? AND doc_id = ?",
                    (pool_id, qid, doc_id),
                ).first()
            ]

    # -- writing ---------------------------------------------------------------------------
    def add(
        self,
        name: str,
        *,
        strategy: str,
        params: Mapping[str, Any],
        judging_order: str,
        seed: int,
        runs: Sequence[str],
        topics: Mapping[str, PoolRows],
    ) -> PoolInfo:
        """Store a pool built elsewhere (`judgeapp.services.pools`) under a new name."""
        now = _now()
        with self.db.begin() as conn:
            if conn.execute(select(m.Pool.c.id).where(m.Pool.c.name == name)).first():
                raise StoreError(f"the project already has a pool named {name!r}")
            pool_id = conn.execute(
                m.Pool.insert().returning(m.Pool.c.id),
                {
                    "name": name,
                    "strategy": strategy,
                    "params": dict(params),
                    "judging_order": judging_order,
                    "seed": int(seed),
                    "created_at": now,
                    "updated_at": now,
                },
            ).scalar_one()
            run_ids = self._run_ids(conn, list(runs))
            conn.execute(
                m.PoolRun.insert(),
                [{"pool_id": pool_id, "run_id": run_ids[r]} for r in runs],
            )
            self._write_docs(conn, pool_id, topics, run_ids, now, upsert=False)
            self.db.changed(conn, Changes(pools=True))
            return self._pool_info(conn, pool_id)

    def update(
        self,
        name: str,
        *,
        runs: Sequence[str],
        params: Mapping[str, Any],
        topics: Mapping[str, PoolRows],
    ) -> PoolInfo:
        """Store a grown pool: `runs` (the pool's and any new ones), its new `params`, and
        `topics` whose documents are added or, for those pooled already, updated. Nothing
        is deleted."""
        now = _now()
        with self.db.begin() as conn:
            pool_id = self._pool_id(conn, name)
            had = set(self._pool_runs(conn, pool_id)[0])
            run_ids = self._run_ids(conn, list(runs))
            added = [r for r in runs if r not in had]
            if added:
                conn.execute(
                    m.PoolRun.insert(),
                    [{"pool_id": pool_id, "run_id": run_ids[r]} for r in added],
                )
            self._write_docs(conn, pool_id, topics, run_ids, now, upsert=True)
            conn.execute(
                m.Pool.update()
                .where(m.Pool.c.id == pool_id)
                .values(params=dict(params), updated_at=now)
            )
            self.db.changed(conn, Changes(pools=True))
            return self._pool_info(conn, pool_id)

    def set_judging_order(self, name: str, judging_order: str, seed: int | None = None) -> Changes:
        values: dict[str, Any] = {"judging_order": judging_order, "updated_at": _now()}
        if seed is not None:
            values["seed"] = int(seed)
        with self.db.begin() as conn:
            pool_id = self._pool_id(conn, name)
            conn.execute(m.Pool.update().where(m.Pool.c.id == pool_id).values(**values))
            self.db.changed(conn, Changes(pools=True))
        return Changes(pools=True)

    def delete(self, name: str) -> Changes:
        """Delete a pool (its documents and run list); judgments are kept."""
        with self.db.begin() as conn:
            pool_id = self._pool_id(conn, name)
            conn.execute(m.PoolDoc.delete().where(m.PoolDoc.c.pool_id == pool_id))
            conn.execute(m.PoolRun.delete().where(m.PoolRun.c.pool_id == pool_id))
            conn.execute(m.Pool.delete().where(m.Pool.c.id == pool_id))
            self.db.changed(conn, Changes(pools=True))
        return Changes(pools=True)

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _pool_id(conn: Connection, name: str) -> int:
        row = conn.execute(select(m.Pool.c.id).where(m.Pool.c.name == name)).first()
        if row is None:
            raise StoreError(f"no pool named {name!r}")
        return int(row[0])

    @staticmethod
    def _pool_runs(conn: Connection, pool_id: int) -> tuple[tuple[str, ...], np.ndarray]:
        """The pool's run names (by run id) and a lookup from run id to index (-1: gone)."""
        rows = conn.execute(
            select(m.Run.c.id, m.Run.c.name)
            .join(m.PoolRun, m.PoolRun.c.run_id == m.Run.c.id)
            .where(m.PoolRun.c.pool_id == pool_id)
            .order_by(m.Run.c.id)
        ).all()
        top = conn.execute(select(func.max(m.Run.c.id))).scalar() or 0
        to_index = np.full(top + 1, -1, np.int32)
        for i, (run_id, _) in enumerate(rows):
            to_index[run_id] = i
        return tuple(name for _, name in rows), to_index

    @staticmethod
    def _run_ids(conn: Connection, names: Sequence[str]) -> dict[str, int]:
        ids = dict(
            conn.execute(select(m.Run.c.name, m.Run.c.id).where(m.Run.c.name.in_(names))).all()
        )
        missing = [n for n in names if n not in ids]
        if missing:
            raise StoreError(f"no run named {missing[0]!r} in the project")
        return ids

    def _pool_docs(self) -> str:
        """Where one pool's documents are read (FROM ... WHERE, the pool's id its one
        parameter): the table, or for a team member's role the server's `judgeapp_pool_docs`
        (schema 0006: no best ranks or runs for an assessor judging blind, whose role may
        not read those columns)."""
        if self.db.scope is not None:
            return "judgeapp_pool_docs(?) AS p WHERE true"
        return "pool_docs WHERE pool_id = ?"

    def _pool_info(self, conn: Connection, pool_id: int) -> PoolInfo:
        params = (
            func.judgeapp_pool_params(m.Pool.c.id, type_=m.Pool.c.params.type)
            if self.db.scope is not None
            else m.Pool.c.params
        )
        row = conn.execute(
            select(
                m.Pool.c.id,
                m.Pool.c.name,
                m.Pool.c.strategy,
                params.label("params"),
                m.Pool.c.judging_order,
                m.Pool.c.seed,
                m.Pool.c.created_at,
                m.Pool.c.updated_at,
            ).where(m.Pool.c.id == pool_id)
        ).one()
        runs, _ = self._pool_runs(conn, pool_id)
        n_topics, n_docs = conn.execute(
            select(func.count(func.distinct(m.PoolDoc.c.qid)), func.count()).where(
                m.PoolDoc.c.pool_id == pool_id
            )
        ).one()
        return PoolInfo(
            id=row.id,
            name=row.name,
            strategy=row.strategy,
            params=dict(row.params),
            judging_order=row.judging_order,
            seed=row.seed,
            runs=runs,
            created_at=row.created_at,
            updated_at=row.updated_at,
            n_topics=n_topics,
            n_docs=n_docs,
        )

    @staticmethod
    def _write_docs(
        conn: Connection,
        pool_id: int,
        topics: Mapping[str, PoolRows],
        run_ids: Mapping[str, int],
        now: datetime,
        *,
        upsert: bool,
    ) -> None:
        sql = (
            "INSERT INTO pool_docs (pool_id, qid, doc_id, best_rank, n_runs, run_ids, ranks, "
            "inclusion_prob, stratum, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        if upsert:
            sql += (
                " ON CONFLICT (pool_id, qid, doc_id) DO UPDATE SET best_rank = excluded.best_rank,"
                " n_runs = excluded.n_runs, run_ids = excluded.run_ids, ranks = excluded.ranks"
            )
        # SQLite gets the timestamp as text in SQLAlchemy's own DateTime format: the driver's
        # datetime adapter would otherwise run once per row (a quarter of the write time)
        stamp: datetime | str = now
        if conn.dialect.name == "sqlite":
            stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")
        for qid, topic in topics.items():
            if not len(topic):
                continue
            db_ids = np.array([run_ids[r] for r in topic.runs], ID_DTYPE)
            run_blob = db_ids[topic.run_idx].astype(ID_DTYPE).tobytes()
            rank_blob = topic.ranks.astype(ID_DTYPE).tobytes()
            bounds = (topic.offsets * ID_DTYPE.itemsize).tolist()
            n_runs = topic.n_runs.tolist()
            strata = [None] * len(topic) if topic.stratum is None else topic.stratum.tolist()
            rows = [
                (pool_id, qid, d, b, n, run_blob[lo:hi], rank_blob[lo:hi], p, h, stamp)
                for d, b, n, lo, hi, p, h in zip(
                    topic.doc_ids.tolist(),
                    topic.best_rank.tolist(),
                    n_runs,
                    bounds[:-1],
                    bounds[1:],
                    topic.inclusion_prob.tolist(),
                    strata,
                    strict=True,
                )
            ]
            if rows:  # an empty list would run the statement once, unbound
                raw(conn, sql, rows)


def _topic_from_rows(
    qid: str, runs: tuple[str, ...], to_index: np.ndarray, rows: Sequence[tuple]
) -> PoolRows:
    if not rows:
        return PoolRows.empty(qid, runs)
    n = len(rows)
    doc_ids = np.fromiter((r[1] for r in rows), np.int64, n)
    best = np.fromiter((r[2] for r in rows), np.int32, n)
    counts = np.fromiter((r[3] for r in rows), np.int64, n)
    run_db = np.frombuffer(b"".join(r[4] for r in rows), ID_DTYPE)
    ranks = np.frombuffer(b"".join(r[5] for r in rows), ID_DTYPE).astype(np.int32)
    prob = np.fromiter((r[6] for r in rows), np.float64, n)
    stratum = None
    if rows[0][7] is not None:  # a sample pool: every row has its stratum
        stratum = np.fromiter((r[7] for r in rows), np.int32, n)
    inside = run_db < len(to_index)
    run_idx = np.where(inside, to_index[np.where(inside, run_db, 0)], -1).astype(np.int32)
    if (run_idx < 0).any():  # a run deleted from the project since: drop its entries
        keep = run_idx >= 0
        owner = np.repeat(np.arange(n), counts)
        counts = np.bincount(owner[keep], minlength=n)
        run_idx, ranks = run_idx[keep], ranks[keep]
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    return PoolRows(qid, runs, doc_ids, best, offsets, run_idx, ranks, prob, stratum)
