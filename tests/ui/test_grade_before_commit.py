"""A grade key shows the next document at once, before the judgment's commit: the judged
document's row says "saving" until the write is committed, and only then is the judgment
on the undo stack and in the store. A write the project refuses is taken back: the view
returns to the document, says it was not recorded, and nothing of it is stored. Run on
SQLite and PostgreSQL; the refusal is the database's own (a trigger on the judgments
table, added by another connection as a team's lock would be)."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QMessageBox

from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store
from tests.ui.test_shared_project import ASSESSOR, shared  # noqa: F401  (the fixture)
from tests.ui.waiting import settled

REFUSE = {
    "sqlite": [
        "CREATE TRIGGER refuse_judging BEFORE INSERT ON judgments BEGIN "
        "SELECT RAISE(ABORT, 'judging is closed for this topic'); END",
        "CREATE TRIGGER refuse_regrading BEFORE UPDATE ON judgments BEGIN "
        "SELECT RAISE(ABORT, 'judging is closed for this topic'); END",
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_judging() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION 'judging is closed for this topic'; END $$",
        "CREATE TRIGGER refuse_judging BEFORE INSERT OR UPDATE ON judgments "
        "FOR EACH ROW EXECUTE FUNCTION refuse_judging()",
    ],
}
ALLOW = {
    "sqlite": ["DROP TRIGGER refuse_judging", "DROP TRIGGER refuse_regrading"],
    "postgresql": ["DROP TRIGGER refuse_judging ON judgments", "DROP FUNCTION refuse_judging()"],
}


def run_sql(db: str, statements: dict[str, list[str]]) -> None:
    """Change the project's schema from another connection (the window's sees it)."""
    with Store.open(db) as store, store.db.begin() as conn:
        for sql in statements[conn.dialect.name]:
            conn.exec_driver_sql(sql)


def stored(db: str) -> dict[str, int]:
    with Store.open(db) as store:
        return {d: g for q, d, g in qrels_rows(store, [ASSESSOR]) if q == "1"}


def test_the_next_document_shows_before_the_commit_and_two_quick_keys_both_land(
    qtbot,
    shared,  # noqa: F811
):
    project, _window, controller = shared
    judging = controller.judging
    view, undo = judging.view, controller.undo_stack
    first = judging.current
    undone = undo.count()
    gate = threading.Event()  # the writing lane held: the commit waits until the test looked
    judging.ops.write(lambda: gate.wait(30))
    view.grade_requested.emit(2)
    # on screen at once, nothing claimed; with the frame after it the row says saving and
    # the undo stack waits
    second = judging.current
    assert second is not None and second != first
    assert view.viewer.doc_id == second
    qtbot.waitUntil(lambda: "(1 saving)" in view.progress_label.text())
    assert view.list_model.state_text(judging.queue.item(first)).endswith("(saving…)")
    assert undo.count() == undone
    view.grade_requested.emit(0)  # the next key before the first commit: queued behind it
    third = judging.current
    assert third not in (first, second)
    gate.set()
    settled()
    docnos = judging.queue.item(first).docno, judging.queue.item(second).docno
    mine = stored(str(project.db))
    assert mine[docnos[0]] == 2 and mine[docnos[1]] == 0
    assert undo.count() == undone + 2
    assert undo.undoText().startswith(f"judge {docnos[1]}")
    for doc in (first, second):
        assert "saving" not in view.list_model.state_text(judging.queue.item(doc))
    assert "saving" not in view.progress_label.text()
    assert judging.current == third


def test_a_refused_write_returns_to_the_document_and_says_nothing_was_recorded(
    qtbot,
    shared,  # noqa: F811
):
    project, _window, controller = shared
    db = str(project.db)
    judging = controller.judging
    view, undo = judging.view, controller.undo_stack
    before = stored(db)
    undone = undo.count()
    first = judging.current
    run_sql(db, REFUSE)
    view.grade_requested.emit(3)
    second = judging.current
    assert second != first  # shown before the write's answer
    view.grade_requested.emit(1)  # queued behind the one to be refused
    assert judging.current not in (first, second)
    settled()
    # both taken back: the view is on the first again, saying so, and nothing is stored
    assert judging.current == first
    assert view.viewer.doc_id == first
    assert "Not recorded: the grade 3 of" in view.notice.text()
    assert "and 1 after it" in view.notice.text()
    for doc in (first, second):
        item = judging.queue.item(doc)
        assert item.grade is None
        assert view.list_model.state_text(item) == "unjudged"
    boxes = [b for b in view.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and boxes[0].windowTitle() == "Not recorded"
    docnos = judging.queue.item(first).docno, judging.queue.item(second).docno
    assert f"{docnos[0]} (grade 3), {docnos[1]} (grade 1) NOT recorded" in boxes[0].text()
    assert "judging is closed for this topic" in boxes[0].text()  # the server's reason
    boxes[0].close()
    assert stored(db) == before
    assert undo.count() == undone
    assert judging.pending is None
    # the lock lifted, the same key on the same document records it
    run_sql(db, ALLOW)
    view.grade_requested.emit(3)
    settled()
    assert stored(db)[docnos[0]] == 3
    assert judging.queue.item(first).grade == 3
    assert undo.count() == undone + 1


def test_grades_given_just_before_the_window_closes_are_committed(qtbot, shared):  # noqa: F811
    """Closing the window (or opening another project) sends every grade not yet written
    to the writing lane first, and the window waits for it: none is lost."""
    project, window, controller = shared
    judging = controller.judging
    first = judging.current
    judging.view.grade_requested.emit(1)
    second = judging.current
    judging.view.grade_requested.emit(2)  # queued behind the first, nothing painted yet
    docnos = judging.queue.item(first).docno, judging.queue.item(second).docno
    window.close()
    mine = stored(str(project.db))
    assert mine[docnos[0]] == 1 and mine[docnos[1]] == 2


def test_a_flag_on_a_document_still_being_saved_waits_for_its_commit(qtbot, shared):  # noqa: F811
    """Back on a document whose grade is still being written, a flag is refused with a
    notice (its write would reach the project before the grade's); once the grade is
    committed the same key flags it."""
    project, _window, controller = shared
    judging = controller.judging
    first = judging.current
    judging.view.grade_requested.emit(1)
    judging.show_document(first)  # back to it (a click on its row) before the commit
    assert first in judging.writer.saving(judging.queue)
    judging.view.actions_by_name["flag"].trigger()
    assert "Still saving the judgment of" in judging.view.notice.text()
    settled()
    assert not judging.queue.item(first).flagged
    judging.view.actions_by_name["flag"].trigger()
    settled()
    assert judging.queue.item(first).flagged
    with Store.open(str(project.db)) as store:
        assert store.judgments.state("1", first, judging.workbench.judging.assessor.id).flagged


def test_undo_while_a_grade_is_being_saved_waits_for_it(qtbot, shared):  # noqa: F811
    """The grade just given reaches the undo stack at its commit: an undo pressed before
    that would take back the change before it. It does nothing and says so; once the grades
    are committed, the same key undoes the newest."""
    project, window, controller = shared
    judging = controller.judging
    view, undo = judging.view, controller.undo_stack
    window.tabs.setCurrentWidget(view)
    first = judging.current
    assert first is not None
    view.grade_requested.emit(1)
    second = judging.current
    assert second is not None and second != first
    docnos = judging.queue.item(first).docno, judging.queue.item(second).docno
    before = stored(str(project.db)).get(docnos[1])
    view.grade_requested.emit(2)  # queued behind the first grade's write
    index = undo.index()
    controller.undo_redo.undo_action.trigger()
    assert undo.index() == index  # nothing taken back
    assert f"the grade of {docnos[0]} is still being saved" in view.notice.text()
    settled()
    mine = stored(str(project.db))
    assert (mine[docnos[0]], mine[docnos[1]]) == (1, 2)  # both committed, neither undone
    assert undo.index() == index + 2
    controller.undo_redo.undo_action.trigger()
    settled()
    assert undo.index() == index + 1
    mine = stored(str(project.db))
    assert mine[docnos[0]] == 1 and mine.get(docnos[1]) == before  # the newest undone
