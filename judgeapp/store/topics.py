"""`store.topics`: the topics of the project (their statements and where they came from)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from judgeapp.records import Changes, Topic, TopicRecord
from judgeapp.store import models as m
from judgeapp.store.base import StoreError, rows_in, utcnow
from judgeapp.store.db import Repository


class TopicExists(StoreError):
    """A topic of the project would get another statement, and replacing was not asked for."""

    def __init__(self, qid: str) -> None:
        super().__init__(
            f"topic {qid} is in the project already, with another statement (--replace replaces it)"
        )
        self.qid = qid


class Topics(Repository):
    """Topics by qid."""

    def put(self, topics: Iterable[tuple[Topic, str | None]], *, replace: bool = False) -> Changes:
        """Add topics, each with the file it came from. A topic whose qid exists already
        with the same statement is left as it is; with another statement it is refused
        (`TopicExists`, nothing written) unless `replace`, which updates it in place."""
        now = utcnow()
        rows = {
            t.qid: {
                "qid": t.qid,
                "title": t.title,
                "description": t.description,
                "narrative": t.narrative,
                "fields": t.fields,
                "source": source,
                "imported_at": now,
            }
            for t, source in topics
        }
        if not rows:
            return Changes()
        table = m.Topic
        statement = ("title", "description", "narrative", "fields")
        with self.db.begin() as conn:
            qids = list(rows)
            columns = select(table.c.qid, *(table.c[c] for c in statement))
            stored = {row[0]: tuple(row[1:]) for row in rows_in(conn, columns, table.c.qid, qids)}
            fresh, changed = [], []
            for qid, row in rows.items():
                old = stored.get(qid)
                if old is None:
                    fresh.append(row)
                elif old != tuple(row[c] for c in statement):
                    if not replace:
                        raise TopicExists(qid)
                    changed.append(row)
            # a topic that stays is updated in place (an assessor's judgment being recorded
            # may hold a share lock on its row: schema 0006), never deleted and inserted
            for row in changed:
                conn.execute(table.update().where(table.c.qid == row["qid"]).values(**row))
            if fresh:
                conn.execute(table.insert(), fresh)
            if not fresh and not changed:
                return Changes()
            self.db.changed(conn, Changes(topic_list=True))
        return Changes(topic_list=True)

    _TOPIC_COLUMNS = (
        m.Topic.c.qid,
        m.Topic.c.title,
        m.Topic.c.description,
        m.Topic.c.narrative,
        m.Topic.c.fields,
        m.Topic.c.source,
    )

    def all(self) -> list[TopicRecord]:
        """Every topic, in code-point order of their qids."""
        with self.db.read() as conn:
            rows = conn.execute(select(*self._TOPIC_COLUMNS)).all()
        return sorted((TopicRecord(*row) for row in rows), key=lambda t: t.qid.encode())

    def get(self, qid: str) -> TopicRecord | None:
        with self.db.read() as conn:
            row = conn.execute(select(*self._TOPIC_COLUMNS).where(m.Topic.c.qid == qid)).first()
        return None if row is None else TopicRecord(*row)

    def titles(self) -> dict[str, str]:
        with self.db.read() as conn:
            return {
                qid: title for qid, title in conn.execute(select(m.Topic.c.qid, m.Topic.c.title))
            }
