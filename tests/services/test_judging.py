"""The judging service: grades on the scale, notes and flags, undo/redo through the store."""

from __future__ import annotations

import pytest

from judgeapp.records import Topic
from judgeapp.services.judging import JudgingError, JudgingService
from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store


@pytest.fixture
def service(project_db):
    store = Store.open(project_db)
    store.topics.put([(Topic("1", "one"), "test")])
    yield JudgingService(store, "alice")
    store.close()


def test_record_keeps_note_and_flag_unless_given(service):
    service.record("1", "d1", 2, note="first look", flagged=True)
    change = service.record("1", "d1", 1)
    assert change.after.note == "first look" and change.after.flagged
    service.annotate("1", "d1", flagged=False)
    assert service.state("1", "d1").flagged is False
    assert qrels_rows(service.store) == [("1", "d1", 1)]


def test_grade_off_the_scale_is_refused(service):
    with pytest.raises(JudgingError, match=r"grade 7 is not on the project's scale \(0, 1, 2, 3\)"):
        service.record("1", "d1", 7)
    assert qrels_rows(service.store) == []


def test_note_needs_a_judgment(service):
    with pytest.raises(JudgingError, match="judge the document before"):
        service.annotate("1", "d1", note="hm")


def test_undo_and_redo_go_through_the_store(service):
    first = service.record("1", "d1", 3)
    second = service.record("1", "d1", 0)
    service.restore(second, undo=True)
    assert service.state("1", "d1").grade == 3
    service.restore(first, undo=True)
    assert service.state("1", "d1").grade is None
    service.restore(first, undo=False)
    service.restore(second, undo=False)
    assert service.state("1", "d1").grade == 0
    origins = [(e["origin"], e["action"], e["grade"]) for e in service.store.history.rows()]
    assert origins == [
        ("judge", "create", 3),
        ("judge", "update", 0),
        ("undo", "update", 3),
        ("undo", "delete", None),
        ("redo", "create", 3),
        ("redo", "update", 0),
    ]


def test_imported_sources_cannot_judge(tmp_path):
    import numpy as np

    from judgeapp.records import QrelsFile

    store = Store.open(tmp_path / "p.db")
    store.judgments.import_qrels(
        [(QrelsFile("q", ["1"], ["d"], np.array([1]), np.array([1])), "official")]
    )
    with pytest.raises(JudgingError, match="imported qrels source"):
        JudgingService(store, "official")
    store.close()


def test_team_progress_lists_topics_in_natural_order(project_db):
    """Issue 30, item 10: the team view's topics read 2, 9, 10, not 10, 2, 9."""
    from judgeapp.services.team import team_progress

    with Store.open(project_db) as store:
        store.topics.put([(Topic(q, f"topic {q}"), "test") for q in ("10", "2", "9")])
        service = JudgingService(store, "alice")
        for qid in ("10", "9", "2"):
            service.record(qid, f"d{qid}", 1, flagged=True)
        [alice] = [p for p in team_progress(store) if p.assessor == "alice"]
        assert list(alice.judged) == ["2", "9", "10"]
        assert [q for q, _d in alice.flagged_docs] == ["2", "9", "10"]
