"""`store.judgments`: the current judgments (one per topic, document and assessor) and
how they change: each change appends an event to the history (`store.history`) in the
same transaction, so a judgment is durable the moment `record` returns."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, cast

import numpy as np
from sqlalchemy import Connection, and_, case, exists, func, select

from judgeapp.records import (
    AssessorInfo,
    Changes,
    JudgmentChange,
    JudgmentLine,
    JudgmentRecord,
    JudgmentRows,
    JudgmentState,
    QrelsFile,
)
from judgeapp.store import models as m
from judgeapp.store.assessors import assessor_rows, create_assessor, find_assessor
from judgeapp.store.base import StoreError, raw, raw_rows, utcnow
from judgeapp.store.db import Repository
from judgeapp.store.docnos import intern
from judgeapp.store.locking import pipeline_to_commit

MAX_TIME_S = 31_536_000.0  # a judgment's time spent, at most (schema 0006 refuses more)


def keep_times(conn: Connection) -> None:
    """PostgreSQL: this transaction of the owner writes the times it was given (an
    import, a merge) instead of the server's clock (schema 0006's triggers; never in the
    future)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET LOCAL judgeapp.keep_times = 'on'")


def later_events(conn: Connection, assessor_id: int, now: Any) -> dict[tuple[str, int], Any]:
    """(qid, doc id) -> a moment after the newest event of each judgment of `assessor_id`
    whose history has an event at `now` or later (see `event_time`)."""
    h = m.JudgmentEvent.c
    newest = func.max(h.at)
    rows = conn.execute(
        select(h.qid, h.doc_id, newest)
        .where(h.assessor_id == assessor_id)
        .group_by(h.qid, h.doc_id)
        .having(newest >= now)
    ).all()
    return {(q, d): at + timedelta(microseconds=1) for q, d, at in rows}


# what `record` reads of a judgment before changing it
_STATE_COLUMNS = tuple(
    m.Judgment.c[name] for name in ("id", "grade", "note", "flagged", "found_by", "query")
)


def _this_judgment(qid: str, doc_id: int, assessor_id: int) -> Any:
    j = m.Judgment.c
    return and_(j.qid == qid, j.doc_id == doc_id, j.assessor_id == assessor_id)


def _newest_event(qid: str, doc_id: int, assessor_id: int) -> Any:
    h = m.JudgmentEvent.c
    where = (h.qid == qid, h.doc_id == doc_id, h.assessor_id == assessor_id)
    return select(func.max(h.at)).where(*where).scalar_subquery()


def event_after(newest: Any) -> Any:
    """Now, or a moment after `newest` (a judgment's newest event) if that one is later
    (merged from a machine whose clock ran ahead): the newest event says what it is."""
    now = utcnow()
    return now if newest is None or newest < now else newest + timedelta(microseconds=1)


def event_time(conn: Connection, qid: str, doc_id: int, assessor_id: int) -> Any:
    """The time of a new event of the judgment (`event_after` its newest)."""
    return event_after(conn.execute(select(_newest_event(qid, doc_id, assessor_id))).scalar())


class Judgments(Repository):
    """Judgments by (topic, document, assessor)."""

    def import_qrels(
        self, files: Sequence[tuple[QrelsFile, str]], *, replace: bool = False
    ) -> Changes:
        """Store qrels files as judgments, each of a named source (an assessor of kind
        'source'), all in one transaction. Importing into a source that has judgments
        already is an error unless `replace` is set (then its judgments are updated, each
        change recorded in the history)."""
        now = utcnow()
        changed: set[str] = set()
        with self.db.begin() as conn:
            for qrels, source in files:
                row = conn.execute(
                    select(m.Assessor.c.id, m.Assessor.c.kind).where(m.Assessor.c.name == source)
                ).first()
                if row is None:
                    assessor_id = create_assessor(conn, source, "source")
                    previous: dict[tuple[str, int], int] = {}
                else:
                    assessor_id = row[0]
                    previous = {
                        (q, d): g
                        for q, d, g in conn.execute(
                            select(m.Judgment.c.qid, m.Judgment.c.doc_id, m.Judgment.c.grade).where(
                                m.Judgment.c.assessor_id == assessor_id
                            )
                        ).all()
                    }
                    if previous and not replace:
                        raise StoreError(
                            f"judgment source {source!r} has {len(previous)} judgments already "
                            "(import under another name, or replace)"
                        )
                ids = intern(conn, qrels.docnos).tolist()
                later = later_events(conn, assessor_id, now) if previous else {}
                rows, events = [], []
                for qid, doc_id, grade in zip(qrels.qids, ids, qrels.grades.tolist(), strict=True):
                    before = previous.get((qid, doc_id))
                    if before == grade:
                        continue
                    at = later.get((qid, doc_id), now)
                    rows.append((qid, doc_id, assessor_id, grade, at, at))
                    events.append(
                        (
                            qid,
                            doc_id,
                            assessor_id,
                            "create" if before is None else "update",
                            "import",
                            grade,
                            before,
                            at,
                            uuid.uuid4().hex,
                        )
                    )
                    changed.add(qid)
                if not rows:  # the same judgments again (--replace): nothing to write, and
                    continue  # an empty list of rows would run the statement once, unbound
                # the events first: each judgment then changes to what its newest event says
                raw_rows(
                    conn,
                    "INSERT INTO judgment_history (qid, doc_id, assessor_id, action, origin, "
                    "grade, previous_grade, note, flagged, time_spent, at, uid) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, '', FALSE, 0.0, ?, ?)",
                    events,
                )
                raw_rows(
                    conn,
                    "INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, "
                    "time_spent, created_at, updated_at) VALUES (?, ?, ?, ?, '', FALSE, 0.0, ?, ?) "
                    "ON CONFLICT (qid, doc_id, assessor_id) DO UPDATE SET "
                    "grade = excluded.grade, updated_at = excluded.updated_at",
                    rows,
                )
            self.db.changed(conn, Changes(topics=frozenset(changed), assessors=True))
        return Changes(topics=frozenset(changed), assessors=True)

    def automatic_scores(self, qid: str) -> dict[int, float]:
        """For `qid`, each document's score from the automatic judges (their mean where
        several scored it; a judgment without a score counts its grade)."""
        j, a = m.Judgment, m.Assessor
        with self.db.read() as conn:
            rows = conn.execute(
                select(j.c.doc_id, func.avg(func.coalesce(j.c.score, j.c.grade)))
                .join(a, a.c.id == j.c.assessor_id)
                .where(j.c.qid == qid, a.c.kind == "automatic")
                .group_by(j.c.doc_id)
            ).all()
        return {int(d): float(s) for d, s in rows}

    def export(self) -> list[JudgmentLine]:
        """Every current judgment with every field, the last change's origin and how the
        document was found among them, by topic, document and assessor."""
        j, d, a = m.Judgment, m.Docno, m.Assessor
        h = m.JudgmentEvent.alias()
        last = (
            select(h.c.origin)
            .where(h.c.qid == j.c.qid, h.c.doc_id == j.c.doc_id, h.c.assessor_id == j.c.assessor_id)
            .order_by(h.c.id.desc())
            .limit(1)
            .correlate(j)
            .scalar_subquery()
        )
        with self.db.read() as conn:
            rows = conn.execute(
                select(
                    j.c.qid,
                    d.c.docno,
                    a.c.name,
                    a.c.kind,
                    j.c.grade,
                    j.c.score,
                    j.c.note,
                    j.c.flagged,
                    j.c.time_spent,
                    j.c.created_at,
                    j.c.updated_at,
                    last,
                    j.c.found_by,
                    j.c.query,
                )
                .join(d, d.c.id == j.c.doc_id)
                .join(a, a.c.id == j.c.assessor_id)
            ).all()
        out = [
            JudgmentLine(0, q, dn, g, an, ak, sc, nt or "", bool(fl), float(ts), c, u, o, fb, qy)
            for q, dn, an, ak, g, sc, nt, fl, ts, c, u, o, fb, qy in rows
        ]
        return sorted(out, key=lambda r: (r.topic.encode(), r.docno.encode(), r.assessor or ""))

    def put(
        self, rows: Sequence[JudgmentLine], *, assessor: str | None = None, kind: str = "person"
    ) -> Changes:
        """Store judgments with every field, in one transaction: each row's assessor (or
        `assessor`; created with the row's kind, or `kind`), each change recorded in the
        history. A judgment equal to the stored one changes nothing."""
        table, events = m.Judgment, m.JudgmentEvent
        now = utcnow()
        changed: set[str] = set()
        with self.db.begin() as conn:
            keep_times(conn)
            ids = {x.name: x for x in assessor_rows(conn)}
            for r in rows:
                name = r.assessor or assessor
                if name is None:
                    raise StoreError(f"line {r.line}: whose judgment? (name the assessor)")
                if name not in ids:
                    new_kind = r.kind or kind
                    ids[name] = AssessorInfo(create_assessor(conn, name, new_kind), name, new_kind)
            docs = dict(
                zip(
                    [r.docno for r in rows],
                    intern(conn, [r.docno for r in rows]).tolist(),
                    strict=True,
                )
            )
            for r in rows:
                who = ids[r.assessor or assessor or ""]
                doc = docs[r.docno]
                old = conn.execute(
                    select(
                        table.c.id, table.c.grade, table.c.note, table.c.flagged, table.c.score
                    ).where(
                        table.c.qid == r.topic, table.c.doc_id == doc, table.c.assessor_id == who.id
                    )
                ).first()
                state = {
                    "grade": r.grade,
                    "note": r.note,
                    "flagged": r.flagged,
                    "score": r.score,
                    "time_spent": r.time_spent,
                    "updated_at": r.updated_at or now,
                }
                if old is not None and (
                    old.grade,
                    old.note or "",
                    bool(old.flagged),
                    old.score,
                ) == (
                    r.grade,
                    r.note,
                    r.flagged,
                    r.score,
                ):
                    continue
                # the event first: the judgment then changes to what it says
                conn.execute(
                    events.insert(),
                    {
                        "uid": uuid.uuid4().hex,
                        "qid": r.topic,
                        "doc_id": doc,
                        "assessor_id": who.id,
                        "action": "create" if old is None else "update",
                        "origin": r.origin or "import",
                        "grade": r.grade,
                        "previous_grade": None if old is None else old.grade,
                        "note": r.note,
                        "flagged": r.flagged,
                        "time_spent": r.time_spent,
                        "score": r.score,
                        # when this project learnt of it: the history's newest event says
                        # what the judgment is now (the judgment keeps the file's times)
                        "at": event_time(conn, r.topic, doc, who.id),
                        "query": r.query if r.origin == "search" else None,
                    },
                )
                if old is None:
                    conn.execute(
                        table.insert(),
                        {
                            "qid": r.topic,
                            "doc_id": doc,
                            "assessor_id": who.id,
                            "created_at": r.created_at or r.updated_at or now,
                            "found_by": r.found_by,
                            "query": r.query if r.found_by == "search" else None,
                            **state,
                        },
                    )
                else:
                    conn.execute(table.update().where(table.c.id == old.id).values(**state))
                changed.add(r.topic)
            changes = Changes(topics=frozenset(changed), assessors=True)
            self.db.changed(conn, changes)
        return changes

    @staticmethod
    def _state(conn: Connection, qid: str, doc_id: int, assessor_id: int) -> Any:
        """The judgment's (id, grade, note, flagged, found_by, query), or None."""
        return conn.execute(
            select(*_STATE_COLUMNS).where(_this_judgment(qid, doc_id, assessor_id))
        ).first()

    @staticmethod
    def _state_and_newest(conn: Connection, qid: str, doc_id: int, assessor_id: int) -> Any:
        """`_state`'s columns (None each when there is no judgment) and the time of the
        judgment's newest event, in one statement (one round trip on a server)."""
        newest = select(_newest_event(qid, doc_id, assessor_id).label("newest")).subquery()
        on = _this_judgment(qid, doc_id, assessor_id)
        return conn.execute(
            select(*_STATE_COLUMNS, newest.c.newest).select_from(newest.outerjoin(m.Judgment, on))
        ).one()

    def record(
        self,
        qid: str,
        doc_id: int,
        assessor_id: int,
        state: JudgmentState | Callable[[JudgmentState], JudgmentState],
        *,
        time_spent: float = 0.0,
        origin: str = "judge",
        found_by: str = "pool",
        query: str | None = None,
        new_assessor: tuple[str, str] | None = None,
    ) -> JudgmentChange:
        """Make the judgment of (qid, doc, assessor) equal `state` (grade None removes it),
        and append the change to the history, in one committed transaction: when this
        returns, the judgment is on disk. Time spent is added to the judgment's total (which
        stays within 0 and a year). `new_assessor` (name, kind): the assessor is made in the
        same transaction (`assessor_id` is then ignored), so a judgment that fails leaves
        no assessor behind.

        `state` may be a function of the current state (read in the same transaction), for
        changes such as "this grade, keeping the note"; an exception from it changes nothing.
        A judgment made now takes `found_by` ("search": the document was found by searching
        the collection, with `query`); one that exists keeps its own. An event of origin
        "search" notes the query too. A team member's role writes through the server's
        `judgeapp_judge` (schema 0006, found_by and query since 0007), which takes the state
        read before and writes nothing if it changed meanwhile (this then reads it again).
        """
        if self.db.scope is not None:
            return self._member_judgment(
                qid, doc_id, assessor_id, state, time_spent, origin, found_by, query
            )
        table = m.Judgment
        with self.db.begin() as conn:
            if new_assessor is not None:
                found = find_assessor(conn, new_assessor[0])
                assessor_id = (
                    found.id
                    if found is not None
                    else create_assessor(conn, new_assessor[0], new_assessor[1])
                )
                if found is None:
                    self.db.changed(conn, Changes(assessors=True))
            found = self._state_and_newest(conn, qid, doc_id, assessor_id)
            row = None if found[0] is None else found
            before = JudgmentState(None) if row is None else JudgmentState(row[1], row[2], row[3])
            if row is not None:
                found_by, query_kept = str(row[4]), row[5]
            else:
                query_kept = query if found_by == "search" else None
            if callable(state):
                state = state(before)
            if state.grade is None and row is None:
                return JudgmentChange(qid, doc_id, assessor_id, before, before, Changes())
            action = "delete" if state.grade is None else "create" if row is None else "update"
            now = event_after(found[6])
            # on a server the writes and the commit go together, in one round trip
            pipeline_to_commit(conn)
            # the event first: the judgment then changes to what the newest event says
            conn.execute(
                m.JudgmentEvent.insert().inline(),
                {
                    "qid": qid,
                    "doc_id": doc_id,
                    "assessor_id": assessor_id,
                    "action": action,
                    "origin": origin,
                    "grade": state.grade,
                    "previous_grade": before.grade,
                    "note": state.note,
                    "flagged": state.flagged,
                    "time_spent": time_spent,
                    "at": now,
                    "uid": uuid.uuid4().hex,
                    "query": query if origin == "search" else None,
                },
            )
            if row is None:
                conn.execute(
                    table.insert().inline(),
                    {
                        "qid": qid,
                        "doc_id": doc_id,
                        "assessor_id": assessor_id,
                        "grade": state.grade,
                        "note": state.note,
                        "flagged": state.flagged,
                        "time_spent": min(max(time_spent, 0.0), MAX_TIME_S),
                        "created_at": now,
                        "updated_at": now,
                        "found_by": found_by,
                        "query": query_kept,
                    },
                )
            elif state.grade is None:
                conn.execute(table.delete().where(table.c.id == row[0]))
            else:
                total = table.c.time_spent + time_spent
                conn.execute(
                    table.update()
                    .where(table.c.id == row[0])
                    .values(
                        grade=state.grade,
                        note=state.note,
                        flagged=state.flagged,
                        # an undo takes back what its change added: never below 0 by rounding
                        time_spent=case(
                            (total < 0, 0.0), (total > MAX_TIME_S, MAX_TIME_S), else_=total
                        ),
                        updated_at=now,
                    )
                )
            changes = Changes(topics=frozenset([qid]), judged=((qid, doc_id),))
            self.db.changed(conn, changes)
        return JudgmentChange(
            qid, doc_id, assessor_id, before, state, changes, time_spent, found_by, query_kept
        )

    def _member_judgment(
        self,
        qid: str,
        doc_id: int,
        assessor_id: int,
        state: JudgmentState | Callable[[JudgmentState], JudgmentState],
        time_spent: float,
        origin: str,
        found_by: str,
        query: str | None,
    ) -> JudgmentChange:
        query = query if found_by == "search" or origin == "search" else None
        for _try in range(8):
            # the state read in the write's own transaction: 2 round trips fewer than a read
            # of its own (BEGIN, ROLLBACK) before it; the server checks it again anyway
            with self.db.member_write() as conn:
                row = self._state(conn, qid, doc_id, assessor_id)
                before = JudgmentState(None) if row is None else JudgmentState(*row[1:4])
                after = state(before) if callable(state) else state
                done = raw(
                    conn,
                    "SELECT judgeapp_judge(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        qid,
                        int(doc_id),
                        int(assessor_id),
                        before.grade,
                        before.note if before.grade is not None else None,
                        before.flagged if before.grade is not None else None,
                        after.grade,
                        after.note,
                        after.flagged,
                        float(time_spent),
                        origin,
                        self.db.token,
                        found_by,
                        query if found_by == "search" else None,
                    ),
                ).scalar_one()
            if done != "changed":
                break
        else:
            raise StoreError(
                f"the judgment of topic {qid!r} kept changing (another window of the same "
                "assessor?): nothing was recorded; try again"
            )
        if done == "none":
            return JudgmentChange(qid, doc_id, assessor_id, before, before, Changes())
        changes = Changes(topics=frozenset([qid]), judged=((qid, doc_id),))
        if row is not None:  # the judgment keeps where it was found
            found_by, query = str(row[4]), row[5]
        return JudgmentChange(
            qid, doc_id, assessor_id, before, after, changes, time_spent, found_by, query
        )

    def state(self, qid: str, doc_id: int, assessor_id: int) -> JudgmentState:
        with self.db.read() as conn:
            row = self._state(conn, qid, doc_id, assessor_id)
        return JudgmentState(None) if row is None else JudgmentState(row[1], row[2], row[3])

    @staticmethod
    def _judgment_where(ids: list[int] | None, qid: str | None) -> tuple[str, tuple]:
        """The WHERE clause choosing the judgments (table alias `j`) of assessors `ids`
        (all: None) and of topic `qid` (all: None)."""
        where: list[str] = []
        params: list[Any] = []
        if ids is not None:
            where.append(f"j.assessor_id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        if qid is not None:
            where.append("j.qid = ?")
            params.append(qid)
        return ("WHERE " + " AND ".join(where)) if where else "", tuple(params)

    def rows(
        self,
        assessors: Sequence[str] | None = None,
        qid: str | None = None,
        *,
        docnos: bool = False,
    ) -> JudgmentRows:
        """The stored judgments of `assessors` (all by default), of `qid` (all topics by
        default), grouped by topic and document with each document's most recently changed
        judgment last (see `JudgmentRows`); with their docnos if `docnos`. Which of them
        counts is a policy's choice (`judgeapp.services.policy`), not the store's."""
        columns = "j.qid, j.doc_id, j.assessor_id, j.grade"
        join = ""
        if docnos:
            columns += ", d.docno"
            join = "JOIN docnos AS d ON d.id = j.doc_id "
        with self.db.read() as conn:
            clause, params = self._judgment_where(self.db.assessor_ids(conn, assessors), qid)
            rows = raw(
                conn,
                f"SELECT {columns} FROM judgments AS j {join}{clause} "
                "ORDER BY j.qid, j.doc_id, j.updated_at, j.id",
                params,
            ).fetchall()
        n = len(rows)
        qids = [r[0] for r in rows]
        starts = [0] + [i for i in range(1, n) if qids[i] != qids[i - 1]] if n else []
        return JudgmentRows(
            qids=[qids[i] for i in starts],
            bounds=np.array([*starts, n], dtype=np.int64),
            doc_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=n),
            assessor_ids=np.fromiter((r[2] for r in rows), dtype=np.int64, count=n),
            grades=np.fromiter((r[3] for r in rows), dtype=np.int64, count=n),
            docnos=[r[4] for r in rows] if docnos else None,
        )

    def found_by_search(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> dict[str, set[int]]:
        """Per topic, the documents whose judgments (of `assessors`, all by default) were
        found by searching the collection (`found_by` "search")."""
        with self.db.read() as conn:
            clause, params = self._judgment_where(self.db.assessor_ids(conn, assessors), qid)
            where = f"{clause} AND" if clause else "WHERE"
            rows = raw(
                conn,
                f"SELECT j.qid, j.doc_id FROM judgments AS j {where} j.found_by = 'search'",
                params,
            ).fetchall()
        out: dict[str, set[int]] = {}
        for q, doc in rows:
            out.setdefault(str(q), set()).add(int(doc))
        return out

    def any_by(self, assessor: str) -> bool:
        """Whether `assessor` has any stored judgment: one EXISTS query on the
        (assessor, qid) index, no judgment read."""
        with self.db.read() as conn:
            ids = self.db.assessor_ids(conn, [assessor])
            found = select(exists().where(m.Judgment.c.assessor_id.in_(ids or [])))
            return bool(conn.execute(found).scalar())

    def all(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> list[JudgmentRecord]:
        """Every stored judgment (not only the effective ones), with who made it."""
        with self.db.read() as conn:
            ids = self.db.assessor_ids(conn, assessors)
            stmt = (
                select(
                    m.Judgment.c.qid,
                    m.Judgment.c.doc_id,
                    m.Docno.c.docno,
                    m.Assessor.c.name,
                    m.Judgment.c.grade,
                    m.Judgment.c.note,
                    m.Judgment.c.flagged,
                    m.Judgment.c.time_spent,
                    m.Judgment.c.created_at,
                    m.Judgment.c.updated_at,
                )
                .join(m.Docno, m.Docno.c.id == m.Judgment.c.doc_id)
                .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
            )
            if qid is not None:
                stmt = stmt.where(m.Judgment.c.qid == qid)
            if ids is not None:
                stmt = stmt.where(m.Judgment.c.assessor_id.in_(ids))
            rows = conn.execute(stmt.order_by(m.Judgment.c.qid, m.Docno.c.docno)).all()
        return [JudgmentRecord(*cast(tuple[Any, ...], row)) for row in rows]
