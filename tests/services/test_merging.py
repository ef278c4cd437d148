"""Merging projects judged elsewhere: two laptops' SQLite copies into the team's PostgreSQL
project and back, with notes, flags, time spent and history; twice is once; conflicts listed."""

from __future__ import annotations

import shutil

import pytest

from judgeapp.cli import main
from judgeapp.records import JudgmentState
from judgeapp.services.judging import JudgingService
from judgeapp.store import Store
from tests.conftest import new_pg_project


def seed(db: str, tmp_path) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\tfirst\n2\tsecond\n")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n2 Q0 d4 1 1 a\n")
    for args in (
        ["init", db],
        ["import", "topics", db, str(topics)],
        ["import", "run", db, str(run)],
    ):
        assert main(args) == 0


def judge(db: str, assessor: str, *judgments) -> None:
    with Store.open(db) as store:
        service = JudgingService(store, assessor)
        for qid, docno, grade, note, flagged, seconds in judgments:
            service.record(qid, docno, grade, note=note, flagged=flagged, time_spent=seconds)


def state(db: str):
    with Store.open(db) as store:
        judged = sorted(
            (j.qid, j.docno, j.assessor, j.grade, j.note, j.flagged, round(j.time_spent, 6))
            for j in store.judgments.all()
        )
        return judged, sorted(e.uid for e in store.history.export())


@pytest.mark.postgres
def test_two_laptops_into_postgres_and_back_idempotent(pg_server, tmp_path, capsys):
    base = str(tmp_path / "base.db")
    seed(base, tmp_path)
    a, b = str(tmp_path / "laptop-a.db"), str(tmp_path / "laptop-b.db")
    shutil.copy(base, a)
    shutil.copy(base, b)
    server = new_pg_project(pg_server)
    seed(server, tmp_path)

    judge(a, "alice", ("1", "d1", 2, "on topic", False, 12.5), ("1", "d2", 0, "", True, 3.0))
    judge(b, "bob", ("1", "d1", 1, "partly", False, 7.0), ("2", "d4", 3, "", False, 4.0))
    judge(b, "alice", ("1", "d2", 3, "changed my mind", False, 5.0))  # later than on a
    with Store.open(a) as store:  # undone on the laptop: the undo travels too
        service = JudgingService(store, "alice")
        service.record("1", "d3", 1, time_spent=2.0)
        store.judgments.record("1", service.doc_id("d3"), service.assessor.id, JudgmentState(None))
    capsys.readouterr()

    assert main(["merge", server, a, b]) == 0
    out = capsys.readouterr().out
    assert f"merged {a}: 4 history events added, 2 judgments changed, 0 conflicts" in out
    assert f"merged {b}: 3 history events added, 3 judgments changed, 1 conflict" in out
    assert (
        "conflict: topic 1 document d2 by alice: grade 3 counts (the newer change), "
        "grade 0 kept in the history" in out
    )
    expected = [
        ("1", "d1", "alice", 2, "on topic", False, 12.5),
        ("1", "d1", "bob", 1, "partly", False, 7.0),
        # the newer change counts; alice spent 3 s on it on one laptop, 5 s on the other
        ("1", "d2", "alice", 3, "changed my mind", False, 8.0),
        ("2", "d4", "bob", 3, "", False, 4.0),
    ]
    judged, history = state(server)
    assert judged == expected
    assert len(history) == 7

    # twice is once
    assert main(["merge", server, a, b]) == 0
    assert capsys.readouterr().out.count("0 history events added, 0 judgments changed") == 2
    assert state(server) == (judged, history)

    # and back: each laptop ends where the server is
    for laptop in (a, b):
        assert main(["merge", laptop, server]) == 0
        assert state(laptop) == (judged, history)
        assert main(["merge", laptop, server]) == 0
        assert state(laptop) == (judged, history)
    with Store.open(a) as store:
        assert store.integrity_check() == "ok"
