"""A copy of a project made ready for pictures: pooled, and with judging under way.

`python main.py screenshot` and the README pictures work on a copy, so taking a picture
never changes the project. A copy without a pool gets one (depth 20 over every run, blind
order); with `simulate` > 0 the first documents of the first topics are judged in the copy
with the grades of the project's imported qrels, so the picture shows judging under way.
"""

from __future__ import annotations

from pathlib import Path

from judgeapp.services.judging import JudgingService
from judgeapp.services.pools import PoolService
from judgeapp.services.rows import natural_key
from judgeapp.store import Store
from judgeapp.store.copying import copy_project as copy_rows
from judgeapp.store.files import copy_project_file
from judgeapp.store.schema import database_url, sqlite_path

ASSESSOR = "demo assessor"


def copy_project(db: str, into: Path) -> str:
    """A copy of project `db` (a path or any URL) in the folder `into`: the file copied,
    or a project on a server copied row for row into a new file."""
    path = sqlite_path(database_url(db))
    if path is None:
        target = into / "project.db"
        with Store.open(db, create=False) as source, Store.open(target) as copy:
            copy_rows(source.db, copy.db)
        return str(target)
    with Store.open(path, create=False):
        pass  # a project judgeapp can open, or its error
    target = into / path.name
    copy_project_file(path, target)  # complete while others write, their WAL included
    return str(target)


def prepare(db: str, simulate: int, topics: int) -> str | None:
    """Give the copy `db` a pool and some judgments; returns the topic to show."""
    with Store.open(db) as store:
        pools = PoolService(store)
        if not store.pools.all() and store.runs.all():
            pools.create_pool("depth-20", strategy="depth", params={"depth": 20})
        names = store.pools.names()
        if not names:
            return None
        pool = names[-1]
        sizes = store.pools.sizes(pool)
        qids = sorted((q for q in sizes if sizes[q] > 0), key=natural_key)
        if not qids:
            return None
        service = JudgingService(store, ASSESSOR)
        if simulate > 0 and not store.judgments.all(assessors=[ASSESSOR]):
            truth = {
                (j.qid, j.doc_id): j.grade for j in store.judgments.all() if j.assessor != ASSESSOR
            }
            for qid in qids[:topics]:
                order = pools.open_judging_order(pool, qid, assessors=[ASSESSOR])
                for _ in range(min(simulate, sizes[qid] - 1)):
                    doc = order.next_doc()
                    if doc is None:
                        break
                    grade = max(0, truth.get((qid, doc), 0))
                    service.record(qid, doc, grade, time_spent=20.0, origin="screenshot")
                    order.record(doc, grade, grade >= 1)
        return qids[min(topics, len(qids)) - 1]


def unjudged_pooled_doc(store: Store, pool: str, qid: str) -> int | None:
    """A pooled document of `qid` nobody has judged (for a judgment that changes numbers)."""
    judged = {j.doc_id for j in store.judgments.all(qid)}
    pooled = store.pools.doc_ids(pool, [qid]).get(qid)
    return next((int(d) for d in (pooled if pooled is not None else ()) if d not in judged), None)


CAMPAIGN = ("ann", "bob", "cid")


def prepare_campaign(db: str, topics: int = 12, per_topic: int = 15, seed: int = 5) -> None:
    """A judging campaign in the copy `db`, for pictures of the team views: three
    assessors with the first `topics` topics assigned (half of them shared), each judging
    `per_topic` pooled documents with the grades of the imported qrels, one in five shifted
    by a grade (assessors disagree), a few flagged, with plausible time spent."""
    import numpy as np

    from judgeapp.services import team

    rng = np.random.default_rng(seed)
    prepare(db, 0, 0)  # a pool, if the copy has none
    with Store.open(db) as store:
        pools = PoolService(store)
        pool = store.pools.names()[-1]
        sizes = store.pools.sizes(pool)
        qids = sorted((q for q in sizes if sizes[q] > 0), key=natural_key)[:topics]
        plan = team.assign(store, qids, list(CAMPAIGN), pool=pool, overlap=0.5, seed=seed)
        truth = {
            (j.qid, j.doc_id): j.grade for j in store.judgments.all() if j.assessor not in CAMPAIGN
        }
        top = max(g.grade for g in store.settings.scale())
        for a in plan:
            service = JudgingService(store, a.assessor)
            order = pools.open_judging_order(pool, a.qid, assessors=[a.assessor])
            for _ in range(min(per_topic, sizes[a.qid])):
                doc = order.next_doc()
                if doc is None:
                    break
                grade = max(0, truth.get((a.qid, doc), 0))
                if rng.random() < 0.2:
                    grade = int(np.clip(grade + rng.choice((-1, 1)), 0, top))
                service.record(
                    a.qid,
                    doc,
                    grade,
                    flagged=bool(rng.random() < 0.05),
                    time_spent=float(rng.lognormal(3.0, 0.5)),
                    origin="screenshot",
                )
                order.record(doc, grade, grade >= 1)
