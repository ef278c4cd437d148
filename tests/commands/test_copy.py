"""`copy`: a whole project into a new one and back (SQLite <-> PostgreSQL), row for row."""

from __future__ import annotations

from judgeapp.cli import main
from judgeapp.services.policy import qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.store import Store
from tests.services.test_merging import judge, seed


def contents(db: str):
    with Store.open(db) as store:
        pools = PoolService(store)
        return (
            [(t.qid, t.title) for t in store.topics.all()],
            [(r.name, r.n_entries) for r in store.runs.all()],
            {
                run: {q: (ids.tolist(), scores.tolist()) for q, (ids, scores) in topics.items()}
                for run, topics in store.runs.ranked_lists().runs.items()
            },
            qrels_rows(store),
            sorted((j.qid, j.docno, j.assessor, j.grade, j.note) for j in store.judgments.all()),
            sorted(e.uid for e in store.history.export()),
            [(p.name, p.n_docs) for p in store.pools.all()],
            {q: t.doc_ids.tolist() for q, t in pools.pool_topics("depth-10").items()},
        )


def test_copy_there_and_back(tmp_path, project_db, capsys):
    source = str(tmp_path / "source.db")
    seed(source, tmp_path)
    assert main(["pool", source, "--depth", "10"]) == 0
    judge(source, "alice", ("1", "d1", 2, "yes", False, 3.0), ("1", "d2", 0, "", True, 1.0))
    capsys.readouterr()
    assert main(["copy", source, project_db]) == 0
    assert main(["copy", source, project_db]) == 2  # never over a project
    assert "is a project already" in capsys.readouterr().err
    back = str(tmp_path / "back.db")
    assert main(["copy", project_db, back]) == 0
    expected = contents(source)
    assert contents(project_db) == expected
    assert contents(back) == expected
    # the copy lives on: new judgments get new ids after the copied ones
    judge(project_db, "bob", ("2", "d4", 1, "", False, 2.0))
    with Store.open(project_db) as store:
        assert ("2", "d4", 1) in qrels_rows(store, ["bob"])
