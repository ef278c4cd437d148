"""`store.runs`: the runs of the project, each a ranked list per topic stored as two
BLOBs (docno ids and scores), read back as numpy arrays without copying."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select

from judgeapp.bytekeys import Numbered
from judgeapp.records import Changes, RankedLists, RunFile, RunInfo
from judgeapp.store import models as m
from judgeapp.store.base import StoreError, raw, raw_binary, utcnow
from judgeapp.store.db import Repository
from judgeapp.store.docnos import ID_DTYPE, intern_columns

SCORE_DTYPE = np.dtype("<f8")


@dataclass(frozen=True, slots=True)
class RunImport:
    """A run and how to store it."""

    run: RunFile
    name: str | None = None  # defaults to the run's tag
    sha256: str | None = None


class Runs(Repository):
    """Runs by name."""

    def add(
        self,
        imports: Sequence[RunImport],
        *,
        replace: bool = False,
        docnos: Numbered | None = None,
    ) -> list[RunInfo]:
        """Store parsed runs, all in one transaction. A run's name defaults to its tag; a
        name already in the project is an error unless `replace` is set. `docnos`, if
        given, numbers the runs' docnos already (judgeapp.formats.bulk.NumberedRuns: the runs' own
        docno columns may then be empty)."""
        if docnos is not None and len(docnos.ids) != len(imports):
            raise ValueError("give one column of docno numbers per run")
        names = [imp.name or imp.run.tag for imp in imports]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise StoreError(f"two runs of this import are both named {dupes[0]!r}; name them")
        now = utcnow()
        with self.db.begin() as conn:
            existing = dict(
                conn.execute(select(m.Run.c.name, m.Run.c.id).where(m.Run.c.name.in_(names))).all()
            )
            if existing and not replace:
                name = min(existing)
                raise StoreError(
                    f"the project already has a run named {name!r} "
                    "(give another name, or replace it)"
                )
            if existing:
                conn.execute(m.Run.delete().where(m.Run.c.id.in_(existing.values())))
            # every entry of every run, in order; ids come back aligned with it
            runs = [imp.run for imp in imports]
            run_ids = intern_columns(conn, runs, docnos)
            for imp, name, run, doc_ids in zip(imports, names, runs, run_ids, strict=True):
                run_id = conn.execute(
                    m.Run.insert().returning(m.Run.c.id),
                    {
                        "name": name,
                        "tag": run.tag,
                        "source_path": run.path,
                        "source_sha256": imp.sha256,
                        "imported_at": now,
                        "n_topics": len(run.qids),
                        "n_entries": len(run.scores),
                    },
                ).scalar_one()
                bounds = run.bounds.tolist()
                scores = np.ascontiguousarray(run.scores, dtype=SCORE_DTYPE)
                ids = doc_ids.astype(ID_DTYPE, copy=False)
                rows = [
                    (run_id, qid, b - a, ids[a:b].tobytes(), scores[a:b].tobytes())
                    for qid, a, b in zip(run.qids, bounds, bounds[1:], strict=False)
                ]
                raw(
                    conn,
                    "INSERT INTO ranked_lists (run_id, qid, n, doc_ids, scores) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            self.db.changed(conn, Changes(runs=True))
        return [r for r in self.all() if r.name in set(names)]

    def all(self) -> list[RunInfo]:
        """Every run, in the order they were added."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(
                    m.Run.c.id,
                    m.Run.c.name,
                    m.Run.c.tag,
                    m.Run.c.source_path,
                    m.Run.c.source_sha256,
                    m.Run.c.imported_at,
                    m.Run.c.n_topics,
                    m.Run.c.n_entries,
                ).order_by(m.Run.c.id)
            ).all()
        return [RunInfo(*row) for row in rows]

    def remove(self, name: str) -> Changes:
        with self.db.begin() as conn:
            gone = conn.execute(m.Run.delete().where(m.Run.c.name == name)).rowcount
            self.db.changed(conn, Changes(runs=True))
        if not gone:
            raise StoreError(f"no run named {name!r}")
        return Changes(runs=True)

    def ranked_lists(
        self, runs: Sequence[str] | None = None, qids: Sequence[str] | None = None
    ) -> RankedLists:
        """Every ranked list of the chosen runs (all by default), for evaluation and
        pooling: one BLOB read per (run, topic), turned into numpy arrays without copying."""
        if runs is not None and not runs:  # (a pool whose runs the server hides from a role)
            return RankedLists()
        sql = (
            "SELECT r.name, l.qid, l.doc_ids, l.scores FROM ranked_lists AS l "
            "JOIN runs AS r ON r.id = l.run_id"
        )
        where: list[str] = []
        params: list[str] = []
        if runs is not None:
            where.append(f"r.name IN ({','.join('?' * len(runs))})")
            params.extend(runs)
        if qids is not None:
            where.append(f"l.qid IN ({','.join('?' * len(qids))})")
            params.extend(qids)
        if where:
            sql += " WHERE " + " AND ".join(where)
        result = RankedLists()
        with self.db.read() as conn:
            tags = dict(raw(conn, "SELECT name, tag FROM runs ORDER BY id").fetchall())
            if runs is not None:
                missing = [r for r in runs if r not in tags]
                if missing:
                    raise StoreError(f"no run named {missing[0]!r} in the project")
                order = list(runs)
            else:
                order = list(tags)
            for name in order:
                result.runs[name] = {}
                result.tags[name] = tags[name]
            frombuffer = np.frombuffer
            for name, qid, ids, scores in raw_binary(conn, sql, params):
                if name not in result.runs:  # imported by another writer while this read
                    continue  # (PostgreSQL reads each statement afresh): not asked for
                result.runs[name][qid] = (
                    frombuffer(ids, dtype=ID_DTYPE),
                    frombuffer(scores, dtype=SCORE_DTYPE),
                )
        return result

    def topics(self) -> set[str]:
        """The topics any run has a ranked list for."""
        with self.db.read() as conn:
            return {q for (q,) in conn.execute(select(m.RankedList.c.qid).distinct())}
