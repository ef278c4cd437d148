"""Pool storage: the part of the `Store` facade that reads and writes pools.

`Store` inherits these methods; they follow the same rules (one short transaction per
method, plain records or numpy arrays out). The pooling itself is `judgeapp.pooling`
(numpy only); here it is fed from the stored ranked lists and its result written in bulk.

A pool row per pooled document holds its best rank and its contributing runs with their
ranks as two int32 little-endian blobs (run ids are the project's `runs.id`). Judgments are
not part of a pool: they are keyed by (topic, document), so a pool can grow (more runs, more
depth, more budget) without touching a judgment, and deleting a pool deletes no judgment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import func, select

from judgeapp.pooling.estimate import Estimate, curve_estimate, sample_estimate
from judgeapp.pooling.order import DEFAULT_ORDER, ORDERS, JudgingOrder, make_order
from judgeapp.pooling.pools import (
    PoolingError,
    PoolTopic,
    build_pool,
    empty_topic,
    extend_topic,
    normalise_params,
    topic_lists,
    topic_seed,
)
from judgeapp.store import models as m
from judgeapp.store.records import Changes

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from judgeapp.services.progress import ProgressFn

ID_DTYPE = np.dtype("<i4")
DOC_COLUMNS = "qid, doc_id, best_rank, n_runs, run_ids, ranks, inclusion_prob, stratum"


@dataclass(frozen=True, slots=True)
class PoolInfo:
    id: int
    name: str
    strategy: str  # depth, take, rbp, rrf
    params: dict[str, Any]  # depth / budget / p / k, topics, and the history of extensions
    judging_order: str  # a name in judgeapp.pooling.order.ORDERS
    seed: int
    runs: tuple[str, ...]  # in the order of the runs' ids (import order)
    created_at: datetime
    updated_at: datetime
    n_topics: int
    n_docs: int


@dataclass(frozen=True, slots=True)
class PoolTopicProgress:
    """Judging progress of one topic of a pool (effective judgments of the chosen assessors)."""

    qid: str
    size: int
    judged: int
    relevant: int


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _error(message: str) -> Exception:
    from judgeapp.store.store import StoreError  # store.py imports this module

    return StoreError(message)


class PoolStoreMixin:
    """Pool methods of `Store` (see judgeapp.store.store.Store)."""

    # -- reading ---------------------------------------------------------------------------
    def pools(self) -> list[PoolInfo]:
        with self._read() as conn:
            ids = [i for (i,) in conn.execute(select(m.Pool.id).order_by(m.Pool.id))]
            return [self._pool_info(conn, i) for i in ids]

    def pool_names(self) -> list[str]:
        """The pools' names, oldest first (what `pools()` lists, without counting documents)."""
        with self._read() as conn:
            return list(conn.execute(select(m.Pool.name).order_by(m.Pool.id)).scalars())

    def pool(self, name: str) -> PoolInfo:
        with self._read() as conn:
            return self._pool_info(conn, self._pool_id(conn, name))

    def pool_sizes(self, name: str) -> dict[str, int]:
        """Pooled documents per topic."""
        with self._read() as conn:
            pool_id = self._pool_id(conn, name)
            rows = conn.execute(
                select(m.PoolDoc.qid, func.count())
                .where(m.PoolDoc.pool_id == pool_id)
                .group_by(m.PoolDoc.qid)
            ).all()
            return dict(sorted(rows, key=lambda r: r[0].encode()))

    def pool_topic(self, name: str, qid: str) -> PoolTopic:
        """One topic of a pool as arrays (an empty pool when the topic has no documents)."""
        with self._read() as conn:
            pool_id = self._pool_id(conn, name)
            runs, to_index = self._pool_runs(conn, pool_id)
            rows = conn.exec_driver_sql(
                f"SELECT {DOC_COLUMNS} FROM pool_docs WHERE pool_id = ? AND qid = ? ORDER BY doc_id",
                (pool_id, qid),
            ).fetchall()
        return _topic_from_rows(qid, runs, to_index, rows)

    def pool_topics(self, name: str, qids: Sequence[str] | None = None) -> dict[str, PoolTopic]:
        """Every topic of a pool (or `qids`), in topic byte order."""
        with self._read() as conn:
            pool_id = self._pool_id(conn, name)
            runs, to_index = self._pool_runs(conn, pool_id)
            rows = conn.exec_driver_sql(
                f"SELECT {DOC_COLUMNS} FROM pool_docs WHERE pool_id = ? ORDER BY qid, doc_id",
                (pool_id,),
            ).fetchall()
        by_topic: dict[str, list] = {}
        for row in rows:
            by_topic.setdefault(row[0], []).append(row)
        wanted = sorted(by_topic, key=str.encode) if qids is None else list(qids)
        return {q: _topic_from_rows(q, runs, to_index, by_topic.get(q, [])) for q in wanted}

    def pool_progress(
        self, name: str, assessors: Sequence[str] | None = None, min_grade: int = 1
    ) -> list[PoolTopicProgress]:
        """Per topic: pool size, pooled documents judged, and judged relevant (grade at least
        `min_grade`), counting the effective judgments of `assessors` (all by default)."""
        with self._read() as conn:
            pool_id = self._pool_id(conn, name)
            ids = self._assessor_ids(conn, assessors)
            judged_sql, params = self._effective_sql(ids, None)
            sizes = conn.exec_driver_sql(
                "SELECT qid, COUNT(*) FROM pool_docs WHERE pool_id = ? GROUP BY qid", (pool_id,)
            ).fetchall()
            # the judgments drive the join (CROSS JOIN keeps them outside), each looked up
            # in the pool by its primary key: joining the other way round scans the
            # judgments once per pooled document (seconds with a few hundred judgments)
            judged = conn.exec_driver_sql(
                "SELECT j.qid, COUNT(*), SUM(CASE WHEN j.grade >= ? THEN 1 ELSE 0 END) "
                f"FROM ({judged_sql}) AS j CROSS JOIN pool_docs AS p "
                "ON p.pool_id = ? AND p.qid = j.qid AND p.doc_id = j.doc_id GROUP BY j.qid",
                (min_grade, *params, pool_id),
            ).fetchall()
        counts = {qid: (n, rel) for qid, n, rel in judged}
        rows = [(qid, size, *counts.get(qid, (0, 0))) for qid, size in sizes]
        return sorted((PoolTopicProgress(*r) for r in rows), key=lambda p: p.qid.encode())

    def judging_events(
        self, qid: str, assessors: Sequence[str] | None = None
    ) -> list[tuple[int, int | None]]:
        """The topic's judgment history as (doc id, effective grade or None), oldest first:
        what a judging order replays to resume. With several assessors the effective grade
        of a document is its most recently changed judgment, as in `judgment_arrays`."""
        with self._read() as conn:
            ids = self._assessor_ids(conn, assessors)
            stmt = (
                select(
                    m.JudgmentEvent.doc_id,
                    m.JudgmentEvent.assessor_id,
                    m.JudgmentEvent.grade,
                )
                .where(m.JudgmentEvent.qid == qid)
                .order_by(m.JudgmentEvent.id)
            )
            if ids is not None:
                stmt = stmt.where(m.JudgmentEvent.assessor_id.in_(ids))
            rows = conn.execute(stmt).all()
        current: dict[int, dict[int, int]] = {}  # doc -> assessor -> grade, newest last
        events: list[tuple[int, int | None]] = []
        for doc_id, assessor_id, grade in rows:
            held = current.setdefault(doc_id, {})
            held.pop(assessor_id, None)
            if grade is not None:
                held[assessor_id] = grade
            effective = next(reversed(held.values())) if held else None
            events.append((doc_id, effective))
        return events

    def open_judging_order(
        self,
        name: str,
        qid: str,
        *,
        order: str | None = None,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
    ) -> JudgingOrder:
        """The pool's judging order for one topic, resumed from the judgment history (the
        pool's own order unless `order` names another). Relevant means grade >= min_grade."""
        info = self.pool(name)
        topic = self.pool_topic(name, qid)
        lists = self.load_ranked_lists(runs=list(info.runs), qids=[qid])
        run_lists = dict(zip(info.runs, topic_lists(lists.runs, qid), strict=True))
        judging = make_order(
            order or info.judging_order, topic, run_lists, topic_seed(info.seed, qid)
        )
        events = self.judging_events(qid, assessors)
        return judging.replay((d, g, g is not None and g >= min_grade) for d, g in events)

    def judging_curve(
        self,
        name: str,
        qid: str,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
    ) -> np.ndarray:
        """Relevance (bool) of the topic's judged pooled documents in the order they were
        first judged, by their current grades: the found-vs-judged curve is its cumsum."""
        return self._curve(set(self._pooled_doc_ids(name, qid)), qid, assessors, min_grade)

    def _curve(
        self, pooled: set[int], qid: str, assessors: Sequence[str] | None, min_grade: int
    ) -> np.ndarray:
        first: dict[int, None] = {}
        current: dict[int, int | None] = {}
        for doc, grade in self.judging_events(qid, assessors):
            if doc in pooled:
                first.setdefault(doc, None)
                current[doc] = grade
        return np.array(
            [current[d] >= min_grade for d in first if current[d] is not None], dtype=bool
        )

    def estimate_relevant(
        self,
        name: str,
        qid: str,
        *,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
        level: float = 0.95,
    ) -> Estimate | None:
        """The topic's total relevant documents, estimated with an interval: from the sample
        when the pool is one (None until every stratum has a judged document), else by
        extrapolating the found-vs-judged curve over the pool (None before any judgment)."""
        with self._read() as conn:  # what kind of pool it is (not its counts: `pool()`)
            strategy, judging_order = conn.execute(
                select(m.Pool.strategy, m.Pool.judging_order).where(
                    m.Pool.id == self._pool_id(conn, name)
                )
            ).one()
        if strategy == "sample":
            topic = self.pool_topic(name, qid)
            judged = self.judgment_arrays(assessors, qid).topics.get(qid)
            if judged is None or not len(topic):
                return None
            return sample_estimate(topic, judged, min_grade=min_grade, level=level)
        pooled = set(self._pooled_doc_ids(name, qid))
        curve = self._curve(pooled, qid, assessors, min_grade)
        if not len(curve):
            return None
        return curve_estimate(
            curve, len(pooled), adaptive=judging_order != "blind", level=level, qid=qid
        )

    def _pooled_doc_ids(self, name: str, qid: str) -> list[int]:
        """The topic's pooled documents (ids only: the primary key answers it)."""
        with self._read() as conn:
            pool_id = self._pool_id(conn, name)
            rows = conn.exec_driver_sql(
                "SELECT doc_id FROM pool_docs WHERE pool_id = ? AND qid = ?", (pool_id, qid)
            ).fetchall()
        return [doc for (doc,) in rows]

    # -- writing ---------------------------------------------------------------------------
    def create_pool(
        self,
        name: str,
        *,
        runs: Sequence[str] | None = None,
        strategy: str = "depth",
        params: Mapping[str, Any] | None = None,
        judging_order: str = DEFAULT_ORDER,
        seed: int = 0,
        qids: Sequence[str] | None = None,
        progress: ProgressFn | None = None,
    ) -> PoolInfo:
        """Pool the chosen runs (all by default) over the chosen topics (all the runs have)
        and store the pool under `name`."""
        if judging_order not in ORDERS:
            raise _error(f"unknown judging order {judging_order!r} (one of {', '.join(ORDERS)})")
        try:
            clean = normalise_params(strategy, params or {})
        except PoolingError as exc:
            raise _error(str(exc)) from exc
        with self._read() as conn:
            if conn.execute(select(m.Pool.id).where(m.Pool.name == name)).first():
                raise _error(f"the project already has a pool named {name!r}")
        lists = self.load_ranked_lists(runs=runs, qids=qids)
        if not lists.runs:
            raise _error("the project has no runs to pool")
        if qids is not None:
            clean["topics"] = list(qids)
        judged = None
        if strategy == "sample":  # documents judged now form the sample's certain stratum
            judged = {q: ids for q, (ids, _) in self.judgment_arrays().topics.items()}
        topics = build_pool(lists.runs, strategy, clean, qids, progress, judged=judged, seed=seed)
        now = _now()
        with self._begin() as conn:
            pool_id = conn.execute(
                m.Pool.__table__.insert().returning(m.Pool.id),
                {
                    "name": name,
                    "strategy": strategy,
                    "params": clean,
                    "judging_order": judging_order,
                    "seed": int(seed),
                    "created_at": now,
                    "updated_at": now,
                },
            ).scalar_one()
            run_ids = self._run_ids(conn, list(lists.runs))
            conn.execute(
                m.PoolRun.__table__.insert(),
                [{"pool_id": pool_id, "run_id": run_ids[r]} for r in lists.runs],
            )
            self._write_docs(conn, pool_id, topics, run_ids, now, upsert=False)
            return self._pool_info(conn, pool_id)

    def extend_pool(
        self,
        name: str,
        *,
        runs: Sequence[str] = (),
        params: Mapping[str, Any] | None = None,
        progress: ProgressFn | None = None,
    ) -> PoolInfo:
        """Grow a pool: add `runs` and/or change `params` (a depth never below the pool's;
        for Take@N pools `budget` is how many new documents per topic to add, the pool's
        budget by default). No pooled document is ever dropped and judgments stay."""
        info = self.pool(name)
        if info.strategy == "sample":
            raise _error(f"pool {name!r} is a sample; a sample cannot grow (draw a new one)")
        all_runs = list(info.runs) + [r for r in dict.fromkeys(runs) if r not in info.runs]
        merged = {k: v for k, v in info.params.items() if k not in ("extensions", "topics")}
        merged.update(params or {})
        if "depth" in info.params and merged.get("depth", 0) < info.params["depth"]:
            raise _error(
                f"pool {name!r} has depth {info.params['depth']}; a pool cannot get shallower"
            )
        try:
            clean = normalise_params(info.strategy, merged)
        except PoolingError as exc:
            raise _error(str(exc)) from exc
        qids = info.params.get("topics")
        old = self.pool_topics(name)
        lists = self.load_ranked_lists(runs=all_runs, qids=qids)
        wanted = (
            list(qids)
            if qids is not None
            else sorted(set(old) | {q for t in lists.runs.values() for q in t}, key=str.encode)
        )
        grown: dict[str, PoolTopic] = {}
        for n, qid in enumerate(wanted):
            if progress:
                progress(n, len(wanted), f"topic {qid}")
            before = old.get(qid) or empty_topic(qid, info.runs)
            grown[qid] = extend_topic(
                before, all_runs, topic_lists(lists.runs, qid), info.strategy, clean
            )
        if progress:
            progress(len(wanted), len(wanted), "pooled")
        now = _now()
        stored = dict(info.params)
        if "depth" in clean:  # the pool's depth now; budgets and the rest stay as created
            stored["depth"] = clean["depth"]
        stored["extensions"] = [
            *info.params.get("extensions", []),
            {
                "runs": [r for r in all_runs if r not in info.runs],
                "params": clean,
                "at": now.isoformat(timespec="seconds"),
            },
        ]
        with self._begin() as conn:
            run_ids = self._run_ids(conn, all_runs)
            added = [r for r in all_runs if r not in info.runs]
            if added:
                conn.execute(
                    m.PoolRun.__table__.insert(),
                    [{"pool_id": info.id, "run_id": run_ids[r]} for r in added],
                )
            self._write_docs(conn, info.id, grown, run_ids, now, upsert=True)
            conn.execute(
                m.Pool.__table__.update()
                .where(m.Pool.id == info.id)
                .values(params=stored, updated_at=now)
            )
            return self._pool_info(conn, info.id)

    def set_judging_order(self, name: str, judging_order: str, seed: int | None = None) -> Changes:
        if judging_order not in ORDERS:
            raise _error(f"unknown judging order {judging_order!r} (one of {', '.join(ORDERS)})")
        values: dict[str, Any] = {"judging_order": judging_order, "updated_at": _now()}
        if seed is not None:
            values["seed"] = int(seed)
        with self._begin() as conn:
            pool_id = self._pool_id(conn, name)
            conn.execute(m.Pool.__table__.update().where(m.Pool.id == pool_id).values(**values))
        return Changes(pools=True)

    def delete_pool(self, name: str) -> Changes:
        """Delete a pool (its documents and run list); judgments are kept."""
        with self._begin() as conn:
            pool_id = self._pool_id(conn, name)
            conn.execute(m.PoolDoc.__table__.delete().where(m.PoolDoc.pool_id == pool_id))
            conn.execute(m.PoolRun.__table__.delete().where(m.PoolRun.pool_id == pool_id))
            conn.execute(m.Pool.__table__.delete().where(m.Pool.id == pool_id))
        return Changes(pools=True)

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _pool_id(conn: Connection, name: str) -> int:
        row = conn.execute(select(m.Pool.id).where(m.Pool.name == name)).first()
        if row is None:
            raise _error(f"no pool named {name!r}")
        return row[0]

    @staticmethod
    def _pool_runs(conn: Connection, pool_id: int) -> tuple[tuple[str, ...], np.ndarray]:
        """The pool's run names (by run id) and a lookup from run id to index (-1: gone)."""
        rows = conn.execute(
            select(m.Run.id, m.Run.name)
            .join(m.PoolRun, m.PoolRun.run_id == m.Run.id)
            .where(m.PoolRun.pool_id == pool_id)
            .order_by(m.Run.id)
        ).all()
        top = conn.execute(select(func.max(m.Run.id))).scalar() or 0
        to_index = np.full(top + 1, -1, np.int32)
        for i, (run_id, _) in enumerate(rows):
            to_index[run_id] = i
        return tuple(name for _, name in rows), to_index

    @staticmethod
    def _run_ids(conn: Connection, names: Sequence[str]) -> dict[str, int]:
        ids = dict(conn.execute(select(m.Run.name, m.Run.id).where(m.Run.name.in_(names))).all())
        missing = [n for n in names if n not in ids]
        if missing:
            raise _error(f"no run named {missing[0]!r} in the project")
        return ids

    def _pool_info(self, conn: Connection, pool_id: int) -> PoolInfo:
        row = conn.execute(
            select(
                m.Pool.id,
                m.Pool.name,
                m.Pool.strategy,
                m.Pool.params,
                m.Pool.judging_order,
                m.Pool.seed,
                m.Pool.created_at,
                m.Pool.updated_at,
            ).where(m.Pool.id == pool_id)
        ).one()
        runs, _ = self._pool_runs(conn, pool_id)
        n_topics, n_docs = conn.execute(
            select(func.count(func.distinct(m.PoolDoc.qid)), func.count()).where(
                m.PoolDoc.pool_id == pool_id
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
        topics: Mapping[str, PoolTopic],
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
            conn.exec_driver_sql(sql, rows)


def _topic_from_rows(
    qid: str, runs: tuple[str, ...], to_index: np.ndarray, rows: Sequence[tuple]
) -> PoolTopic:
    if not rows:
        return empty_topic(qid, runs)
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
    return PoolTopic(qid, runs, doc_ids, best, offsets, run_idx, ranks, prob, stratum)
