"""Every judgment out with every field and back in (JSON Lines and CSV), an automatic
judge's qrels with scores, and judgment files with a bad line refused whole."""

from __future__ import annotations

import pytest

from judgeapp.cli import main
from judgeapp.records import JudgmentState
from judgeapp.services.judging import JudgingService
from judgeapp.store import Store
from tests.services.test_merging import seed


def fields(db: str):
    with Store.open(db) as store:
        return [r.record() for r in store.judgments.export()]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_and_import_judgments_round_trip(tmp_path, project_db, fmt, capsys):
    db = str(tmp_path / "a.db")
    seed(db, tmp_path)
    with Store.open(db) as store:
        alice = JudgingService(store, "alice")
        alice.record("1", "d1", 2, note='says "yes", twice', time_spent=12.5)
        alice.record("1", "d2", 0, flagged=True, time_spent=3.0)
        alice.record("1", "d1", 1, note="on reflection", time_spent=1.5)  # an update
        bob = JudgingService(store, "bob")
        bob.record("2", "d4", 3, time_spent=4.25)
        store.judgments.record("2", bob.doc_id("d4"), bob.assessor.id, JudgmentState(None))
        bob.record("2", "d4", 2, time_spent=1.0)
    out = tmp_path / f"judgments.{fmt}"
    assert main(["export", "judgments", db, "--format", fmt, "--out", str(out)]) == 0
    seed(project_db, tmp_path)
    assert main(["import", "judgments", project_db, str(out)]) == 0
    again = tmp_path / f"again.{fmt}"
    assert main(["export", "judgments", project_db, "--format", fmt, "--out", str(again)]) == 0
    before = fields(db)
    assert [(r["topic"], r["docno"], r["assessor"], r["grade"]) for r in before] == [
        ("1", "d1", "alice", 1),
        ("1", "d2", "alice", 0),
        ("2", "d4", "bob", 2),
    ]
    assert before[0]["note"] == "on reflection" and before[0]["time_spent"] == 14.0
    assert before[1]["flagged"] is True and before[0]["origin"] == "judge"
    after = fields(project_db)
    for b, a in zip(before, after, strict=True):
        assert {k: v for k, v in a.items() if k != "origin"} == {
            k: v for k, v in b.items() if k != "origin"
        }
        assert a["origin"] == b["origin"]  # the file carries the origin of the last change
    assert again.read_text() == out.read_text()
    # importing the same again changes nothing
    with Store.open(project_db) as store:
        events = len(store.history.export())
    assert main(["import", "judgments", project_db, str(out)]) == 0
    with Store.open(project_db) as store:
        assert len(store.history.export()) == events


def test_an_automatic_judge_imports_with_scores(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    seed(db, tmp_path)
    llm = tmp_path / "llm.qrels"
    llm.write_text("1 0 d1 2 0.91\n1 0 d2 0 0.12\n2 0 d4 1 0.55\n")
    assert (
        main(
            [
                "import",
                "judgments",
                db,
                str(llm),
                "--assessor",
                "llm-x",
                "--judge-kind",
                "automatic",
            ]
        )
        == 0
    )
    with Store.open(db) as store:
        kinds = {a.name: a.kind for a in store.team.assessors()}
        assert kinds["llm-x"] == "automatic"
        rows = {(r.topic, r.docno): (r.grade, r.score) for r in store.judgments.export()}
    assert rows == {("1", "d1"): (2, 0.91), ("1", "d2"): (0, 0.12), ("2", "d4"): (1, 0.55)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"topic": "1", "docno": "d1"}\n', "bad.jsonl:1: the judgment has no grade"),
        (
            '{"topic": "1", "docno": "d1", "grade": "x"}\n',
            "bad.jsonl:1: grade 'x' is not an integer",
        ),
        (
            '{"topic": "1", "docno": "d1", "grade": 1}\n{"topic": "1", "docno": "d1", "grade": 2}\n',
            "bad.jsonl:2: topic 1 document d1 is judged on line 1 already",
        ),
        ('{"topic": "1", "docno": "d1", "grade": 1, "colour": "red"}\n', "unknown field 'colour'"),
        (
            '{"topic": "1", "docno": "d1", "grade": 1, "kind": "alien"}\n',
            "kind 'alien' is not one of",
        ),
        (
            '{"topic": "1", "docno": "d1", "grade": 1, "updated_at": "yesterday"}\n',
            "is not an ISO 8601 time",
        ),
    ],
)
def test_a_bad_judgments_file_is_refused_whole(tmp_path, text, message, capsys):
    db = str(tmp_path / "a.db")
    seed(db, tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    before = (tmp_path / "a.db").read_bytes()
    assert main(["import", "judgments", db, str(bad), "--assessor", "x"]) == 1
    assert message in capsys.readouterr().err
    assert (tmp_path / "a.db").read_bytes() == before
