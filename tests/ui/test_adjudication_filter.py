"""Adjudication keeps the team's own disagreements apart from those against imported qrels
(issue 30, item 8): a filter (all, within the team, against imported qrels) chosen by
keyboard, and the judgments column shown in full."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judgeapp.store import Store
from tests.ui.test_team_modes import choose_assessor
from tests.ui.waiting import open_project, settled


def open_adjudication(make_window, db: str):
    """The project open in the window as its owner, on the adjudication view: the window
    and the adjudication's controller."""
    window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "owner")
    adjudication = controller.show_adjudication()
    settled()
    return window, adjudication


def test_the_filter_separates_team_disagreements_from_imported_qrels(qtbot, tmp_path, make_window):
    from live_project import SOURCE, write_project

    from judgeapp.services.judging import JudgingService
    from judgeapp.ui.adjudication import DisagreementTableModel

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:
        imported = {
            j.docno: j.grade for j in store.judgments.all() if j.qid == "1" and j.assessor == SOURCE
        }
        ann, bob = JudgingService(store, "ann"), JudgingService(store, "bob")
        agreed, split = sorted(imported)[:2]
        # both agree with each other, not with the qrels: against the imported qrels only
        ann.record("1", agreed, (imported[agreed] + 1) % 3, note="a long note")
        bob.record("1", agreed, (imported[agreed] + 1) % 3)
        # ann as the qrels, bob not: both kinds
        ann.record("1", split, imported[split])
        bob.record("1", split, (imported[split] + 1) % 3)
        # a document the qrels never judged: the team only
        fresh = next(d for d in project.lists["run1"]["1"] if d not in imported)
        ann.record("1", fresh, 2)
        bob.record("1", fresh, 0)
    window, adjudication = open_adjudication(make_window, db)
    view = adjudication.view

    def listed() -> set[str]:
        return {d.docno for d in view.model.items}

    assert listed() == {agreed, split, fresh}
    assert view.filter.itemText(0) == "All disagreements (3)"
    assert view.filter.itemText(1) == "Within the team (2)"
    assert view.filter.itemText(2) == "Against imported qrels (2)"
    # the judgments column is wide enough for its longest text, and in view
    header = view.table.horizontalHeader()
    votes = DisagreementTableModel.VOTES
    longest = view.table.sizeHintForColumn(votes)
    assert header.sectionSize(votes) >= longest
    assert header.sectionPosition(votes) + longest <= view.table.viewport().width()
    shown = {d.docno: d.describe() for d in view.model.items}
    assert f"{SOURCE} {imported[split]}" in shown[split] and "ann" in shown[split]
    # Alt+S reaches the filter; Down chooses "Within the team"
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view.filter)
    qtbot.keyClick(view.filter, Qt.Key.Key_Down)
    settled()
    assert listed() == {split, fresh}
    assert "2 disagreements (of 3)" in view.summary.text()
    # decide the fresh one by its key while filtered; the decision holds across filters
    row = next(i for i, d in enumerate(view.model.items) if d.docno == fresh)
    adjudication.show(row)
    settled()
    qtbot.keyClick(QApplication.focusWidget(), "1")
    settled()
    qtbot.keyClick(view.filter, Qt.Key.Key_Down)
    settled()
    assert listed() == {agreed, split}
    qtbot.keyClick(view.filter, Qt.Key.Key_Home)
    settled()
    assert listed() == {agreed, split, fresh}
    assert {d.docno: d.decided for d in view.model.items}[fresh] == 1


def test_the_owner_reviews_one_assessor_s_disagreements(qtbot, tmp_path, make_window):
    """A review queue by assessor (as Argilla filters by annotator): Alt+I reaches the
    'Involving' choice; each assessor lists the disagreements their judgment is part of,
    with its count, combined with the kind filter."""
    from live_project import write_project

    from judgeapp.services.judging import JudgingService

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:
        docs = [d for d in project.lists["run1"]["2"]][:3]
        ann, bob, cid = (JudgingService(store, n) for n in ("ann", "bob", "cid"))
        ann.record("2", docs[0], 2)
        bob.record("2", docs[0], 0)  # ann - bob
        bob.record("2", docs[1], 1)
        cid.record("2", docs[1], 2)  # bob - cid
        ann.record("2", docs[2], 0)
        cid.record("2", docs[2], 1)  # ann - cid
    window, adjudication = open_adjudication(make_window, db)
    view = adjudication.view

    def listed() -> set[str]:
        return {d.docno for d in view.model.items if d.qid == "2"}

    names = [view.voter.itemData(i) for i in range(view.voter.count())]
    assert names[:1] == [None] and {"ann", "bob", "cid"} <= set(names)
    bob_row = view.voter.findData("bob")
    assert view.voter.itemText(bob_row).startswith("bob (")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view.voter)
    view.voter.setCurrentIndex(bob_row)
    settled()
    assert listed() == {docs[0], docs[1]}
    assert all(any(v.assessor == "bob" for v in d.votes) for d in view.model.items)
    view.voter.setCurrentIndex(view.voter.findData("cid"))
    settled()
    assert listed() == {docs[1], docs[2]}
    view.voter.setCurrentIndex(0)  # everyone again
    settled()
    assert listed() == set(docs)
