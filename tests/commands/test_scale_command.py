"""`scale`: the project's scale, presets, definitions, relevant grades and guidelines, kept
by the store (SQLite and PostgreSQL) and used by judging, counts and the judging list."""

from __future__ import annotations

import json

import pytest

from judgeapp.cli import main
from judgeapp.commands.scale import PRESET_HELP
from judgeapp.records import DEFAULT_SCALE, GradeInfo, Topic
from judgeapp.services import scale
from judgeapp.services.judging import JudgingError, JudgingService
from judgeapp.services.workbench import Workbench
from judgeapp.store import Store


def scale_json(db: str, capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(["scale", db, *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_presets_are_named_alike_in_the_help_and_the_service():
    assert list(PRESET_HELP) == list(scale.PRESETS)
    default = scale.PRESETS["default"]
    assert [(g.grade, g.label, g.key) for g in default.grades] == [
        (g.grade, g.label, g.key) for g in DEFAULT_SCALE
    ]


def test_reserved_keys_are_the_judging_views_own():
    from judgeapp.ui.judging_view import ACTIONS

    single = {k for _name, _text, keys in ACTIONS for k in keys if len(k) == 1}
    assert single == set(scale.RESERVED_KEYS)


def test_a_new_project_shows_the_default_scale(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    capsys.readouterr()
    assert main(["scale", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["0", "0", "Not", "relevant"]
    assert out[2].split()[:2] == ["1*", "1"]  # relevant from 1
    assert "relevant: grade 1 and above" in out[5]


def test_trec_dl_preset_makes_related_not_relevant_everywhere(tmp_path, project_db, capsys):
    db = project_db
    assert main(["init", db]) == 0
    got = scale_json(db, capsys, "--preset", "trec-dl")
    assert [(g["grade"], g["label"]) for g in got["grades"]] == [
        (0, "Irrelevant"),
        (1, "Related"),
        (2, "Highly relevant"),
        (3, "Perfectly relevant"),
    ]
    assert got["relevant_from"] == 2
    assert all(g["definition"] for g in got["grades"])

    # a topic, a run and a pool: grade 1 is judged but not counted relevant
    topics = tmp_path / "t.tsv"
    topics.write_text("7\tquestion seven\n")
    run = tmp_path / "r.run"
    run.write_text("".join(f"7 Q0 d{i} {i + 1} {10 - i} r\n" for i in range(4)))
    assert main(["import", "topics", db, str(topics)]) == 0
    assert main(["import", "run", db, str(run)]) == 0
    assert main(["pool", db, "--depth", "4"]) == 0
    with Store.open(db) as store:
        wb = Workbench(store, "ann")
        queue = wb.queue("7")
        docs = [item.doc_id for item in queue.items]
        queue.record(docs[0], 1)
        queue.record(docs[1], 2)
        assert queue.counts() == (4, 2, 1)
        [row] = wb.topic_rows()
        assert (row.judged, row.relevant) == (2, 1)


def test_grades_labels_keys_definitions_and_guidelines(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    guide = tmp_path / "guide.txt"
    guide.write_text("Judge the document, not the site.\nWhen in doubt: 1.\n", encoding="utf-8")
    got = scale_json(
        db,
        capsys,
        "--preset",
        "binary",
        "--grade",
        "2",
        "Key",
        "--key",
        "2",
        "x",
        "--define",
        "2",
        "The one document to read first.",
        "--guidelines",
        str(guide),
    )
    assert [(g["grade"], g["label"], g["key"]) for g in got["grades"]] == [
        (0, "Not relevant", "0"),
        (1, "Relevant", "1"),
        (2, "Key", "x"),
    ]
    assert got["grades"][2]["definition"] == "The one document to read first."
    assert got["guidelines"] == guide.read_text(encoding="utf-8")
    with Store.open(db) as store:
        assert store.settings.scale()[2] == GradeInfo(
            2, "Key", "x", "The one document to read first."
        )
        assert store.settings.guidelines().startswith("Judge the document")
        judging = JudgingService(store, "ann")
        store.documents.intern(["d1"])
        with pytest.raises(JudgingError, match="not on the project's scale"):
            judging.record("1", "d1", 3)
    # the guidelines stay when only a label changes, and go when asked
    got = scale_json(db, capsys, "--grade", "1", "On topic")
    assert got["guidelines"] and got["grades"][1]["label"] == "On topic"
    assert scale_json(db, capsys, "--no-guidelines")["guidelines"] == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--key", "1", "F"], "'F' is taken by the judging view"),
        (["--key", "1", "0"], "each grade needs its own key"),
        (["--key", "1", "ab"], "the key must be one character"),
        (["--relevant-from", "7"], "the scale has no such grade"),
        (["--define", "9", "x"], "the scale has no grade 9"),
        (["--grade", "x", "y"], "a grade is an integer"),
    ],
)
def test_bad_scales_are_refused_and_nothing_changes(tmp_path, capsys, args, message):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    capsys.readouterr()
    assert main(["scale", db, *args]) == 2
    assert message in capsys.readouterr().err
    with Store.open(db) as store:
        assert [(g.grade, g.label, g.key) for g in store.settings.scale()] == [
            (g.grade, g.label, g.key) for g in DEFAULT_SCALE
        ]


def test_a_grade_people_used_cannot_be_removed(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    with Store.open(db) as store:
        store.topics.put([(Topic("1", "one"), "test")])
        store.documents.intern(["d1"])
        JudgingService(store, "ann").record("1", "d1", 3)
    capsys.readouterr()
    assert main(["scale", db, "--preset", "trec3"]) == 2
    assert "judgments made with grade 3 exist" in capsys.readouterr().err
    assert main(["scale", db, "--remove", "2"]) == 0  # nobody used 2
    with Store.open(db) as store:
        assert [g.grade for g in store.settings.scale()] == [0, 1, 3]


def test_undo_and_redo_keep_the_time_spent(tmp_path):
    with Store.open(tmp_path / "p.db") as store:
        store.topics.put([(Topic("1", "one"), "test")])
        store.documents.intern(["d1"])
        judging = JudgingService(store, "ann")
        change = judging.record("1", "d1", 2, time_spent=7.2)
        judging.restore(change, undo=True)
        assert store.judgments.all("1") == []
        judging.restore(change, undo=False)
        [j] = store.judgments.all("1")
        assert (j.grade, j.time_spent) == (2, pytest.approx(7.2))
        # a second grade adds its own time; undoing it takes back only that
        again = judging.record("1", "d1", 1, time_spent=3.0)
        assert store.judgments.all("1")[0].time_spent == pytest.approx(10.2)
        judging.restore(again, undo=True)
        [j] = store.judgments.all("1")
        assert (j.grade, j.time_spent) == (2, pytest.approx(7.2))
