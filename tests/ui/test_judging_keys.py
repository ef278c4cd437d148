"""An assessor's day at the keyboard (issue 15): every focus trap, navigation and state
item, driven by keys sent where the user's focus is, in the real main window.

Focus: after a field is confirmed or left the grade keys judge again; a key that records
nothing says why. Navigation: `/` + Enter goes to the first unjudged match with the words
marked; J/K keep to the rows shown; Enter in the topic filter opens a topic; Ctrl+Z keeps
to the topic or says what it undoes; Ctrl+End reaches the end. State: the flag shows
pressed, also on an unjudged document; skipped documents look skipped; the list filters
(L); a finished topic lights no grade and Enter goes on to the next topic; undo and redo
keep the time spent. Documents without text ask for a second key.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from judgeapp.store import Changes
from tests.ui.waiting import open_project, settled

ASSESSOR = "alice"


def press(qtbot, sequence: str, window=None) -> None:
    """A key (e.g. "1", "Ctrl+Shift+Z", "Return", "Esc") sent to the focus widget of the
    active window, as a real key press is."""
    from judgeapp.ui.main_window import MainWindow

    if window is None:
        [window] = [
            w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
        ]
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    target = QApplication.focusWidget()
    assert target is not None and (target is window or window.isAncestorOf(target)), target
    combination = QKeySequence(sequence)[0]
    qtbot.keyClick(target, combination.key(), combination.keyboardModifiers())
    settled()  # what the key asked of the project is on screen


def focus(window):
    return QApplication.focusWidget()


@pytest.fixture
def judging(qtbot, make_window, tmp_path):
    """The generated project (four topics, six runs, texts) open as alice, a blind
    depth-10 pool, topic 1 open in the judging view."""
    from live_project import write_project

    from tests.ui.test_main_window import choose_assessor

    project = write_project(tmp_path / "p")
    window, controller = make_window()
    open_project(controller, str(project.db))
    choose_assessor(controller, ASSESSOR)
    controller.workbench.build_pool(
        "pool", list(project.runs), "depth", {"depth": 10}, "blind", seed=7
    )
    controller.apply_changes(Changes(pools=True))
    settled()
    qtbot.waitUntil(controller.estimates_settled, timeout=30_000)
    controller.open_topic("1")
    settled()
    return window, controller


def grade_of(controller, doc):
    return controller.judging.queue.item(doc).grade


# -- focus traps ---------------------------------------------------------------------------------
def test_grade_keys_judge_after_the_terms_box_is_confirmed_or_left(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    press(qtbot, "T")
    assert focus(window) is view.terms
    qtbot.keyClicks(view.terms, "flutter, wing")
    settled()
    press(qtbot, "Return")
    assert view.terms.text() == "flutter, wing"  # nothing typed after Enter
    assert focus(window) is view.viewer.text
    doc = judge.current
    press(qtbot, "1")
    assert grade_of(controller, doc) == 1 and view.terms.text() == "flutter, wing"
    # Esc leaves the note without saving it; the next key judges
    press(qtbot, "N")
    qtbot.keyClicks(view.note, "draft")
    settled()
    press(qtbot, "Esc")
    assert focus(window) is view.viewer.text and view.note.text() == ""
    doc = judge.current
    press(qtbot, "0")
    assert grade_of(controller, doc) == 0
    assert judge.queue.item(doc).note == ""


def test_grade_keys_judge_after_the_dashboard_has_had_its_own_window(qtbot, judging):
    from judgeapp.ui.dashboard import find_dashboard

    window, controller = judging
    view, judge = window.judging_view, controller.judging
    dashboard = find_dashboard(controller)
    press(qtbot, "Ctrl+3")
    assert window.tabs.currentWidget() is dashboard.view
    press(qtbot, "Ctrl+Shift+3")  # Own window (the button's shortcut clicks it shortly)
    qtbot.waitUntil(lambda: dashboard.own_window is not None)
    own = dashboard.own_window
    assert own is not None and own.isVisible()
    qtbot.waitExposed(own)
    press(qtbot, "Ctrl+W", window=own)  # closes it: the dashboard is a tab again
    qtbot.waitUntil(lambda: dashboard.own_window is None)
    assert window.tabs.indexOf(dashboard.view) >= 0
    press(qtbot, "Ctrl+2")
    assert window.tabs.currentWidget() is view
    assert focus(window) is not view.note
    doc = judge.current
    press(qtbot, "0")
    assert grade_of(controller, doc) == 0
    assert view.note.text() == ""


def test_grade_keys_judge_after_the_topic_list_and_ctrl_2(qtbot, judging):
    window, controller = judging
    press(qtbot, "Ctrl+1")
    assert window.tabs.currentWidget() is window.topics_view
    press(qtbot, "Ctrl+2")
    assert window.tabs.currentWidget() is window.judging_view
    doc = controller.judging.current
    press(qtbot, "2")
    assert grade_of(controller, doc) == 2


def test_a_key_that_records_nothing_says_why(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    # every document of topic 1 judged: a grade key has nothing to judge
    for _ in range(len(judge.queue.items)):
        press(qtbot, "0")
    assert judge.current is None
    press(qtbot, "1")
    assert view.notice.isVisible()
    assert "Nothing was recorded" in view.notice.text() and "topic 1" in view.notice.text()
    assert "Enter opens topic 2" in view.notice.text()
    # undo when there is nothing to undo in an empty session says so too
    controller.undo_stack.clear()
    press(qtbot, "Ctrl+Z")
    assert view.notice.text() == "Nothing to undo."


# -- the scale, its definitions and the guidelines ------------------------------------------------
def test_definitions_and_guidelines_reach_buttons_sheet_and_topic(qtbot, judging):
    from judgeapp.services import scale

    window, controller = judging
    view, judge = window.judging_view, controller.judging
    spec = scale.ScaleSpec(
        scale.PRESETS["trec-dl"].grades, 2, "Judge the passage itself, not its source."
    )
    # the owner changes the scale in another process: the window follows
    from judgeapp.store import Store

    with Store.open(controller.workbench.store.url) as other:
        scale.apply(other, spec)
    qtbot.waitUntil(lambda: view.grade_bar.buttons[0].text().endswith("Irrelevant"), timeout=5000)
    tip = view.grade_bar.buttons[1].toolTip()
    assert "Related" in tip and "does not answer it" in tip
    assert view.topic_panel.guide_scroll.isVisible()
    assert "not its source" in view.topic_panel.guidelines.text()
    press(qtbot, "F1")
    sheet = judge.shortcut_sheet()
    qtbot.waitUntil(sheet.isVisible)
    actions = [sheet.table.item(r, 1).text() for r in range(sheet.table.rowCount())]
    assert any("Holds the exact answer" in a or "holds the exact answer" in a for a in actions)
    assert "not its source" in sheet.guidelines.toPlainText()
    sheet.reject()
    # grade 1 (Related) is not relevant any more: the counts follow
    doc = judge.current
    press(qtbot, "1")
    assert grade_of(controller, doc) == 1
    assert judge.queue.counts()[2] == 0
    doc = judge.current
    press(qtbot, "2")
    assert judge.queue.counts()[2] == 1


# -- navigation -----------------------------------------------------------------------------------
def test_search_enter_goes_to_the_first_unjudged_match_and_marks_the_words(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    queue = judge.queue
    word = "things"  # every generated document has it
    assert judge.pool_index.matches(word) == {i.doc_id for i in queue.items}
    # judge the first match of the list first
    first = queue.items[0].doc_id
    judge.show_document(first)
    press(qtbot, "3")
    assert grade_of(controller, first) == 3
    press(qtbot, "/")
    assert focus(window) is view.search
    qtbot.keyClicks(view.search, word)
    settled()
    press(qtbot, "Return")
    expected = next(i.doc_id for i in queue.items if i.grade is None)
    assert judge.current == expected != first
    assert view.viewer.n_search_highlights >= 1
    assert focus(window) is view.viewer.text
    doc = judge.current
    press(qtbot, "0")
    assert grade_of(controller, doc) == 0


def test_judging_a_match_goes_on_to_the_next_match_then_back_to_the_pool(qtbot, judging):
    """Issue 30, item 6: with a search narrowing the list, each grade (and "next
    unjudged") goes on to an unjudged match, never to a document the search hides; once
    every match is judged the view says so and the whole pool's order takes over."""
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    queue = judge.queue
    prefix = queue.items[0].docno[:-1]  # a docno's beginning: a few documents share it
    matches = {i.doc_id for i in queue.items if prefix.lower() in i.docno.lower()}
    assert 2 <= len(matches) < len(queue.items)
    press(qtbot, "/")
    qtbot.keyClicks(view.search, prefix)
    settled()
    press(qtbot, "Return")
    assert judge.current in matches
    judged = []
    while len(judged) < len(matches):
        doc = judge.current
        assert doc in matches and doc not in judged
        press(qtbot, "1")
        assert grade_of(controller, doc) == 1
        judged.append(doc)
    assert set(judged) == matches
    assert "Every document the search shows is judged" in view.notice.text()
    assert judge.current not in matches and grade_of(controller, judge.current) is None
    # with the search cleared, "next unjudged" follows the pool's order again
    press(qtbot, "/")
    press(qtbot, "Esc")
    before = judge.current
    press(qtbot, "U")
    assert judge.current is not None and judge.current != before
    assert grade_of(controller, judge.current) is None


def test_j_and_k_keep_to_the_rows_the_list_shows(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    queue = judge.queue
    # search for one docno: only its row is shown
    target = queue.items[4].docno
    press(qtbot, "/")
    qtbot.keyClicks(view.search, target)
    settled()
    press(qtbot, "Return")
    shown = [r for r in range(len(queue.items)) if not view.list.isRowHidden(r)]
    assert shown == [4] and judge.current == queue.items[4].doc_id
    press(qtbot, "J")
    assert judge.current == queue.items[4].doc_id  # no hidden row is stepped onto
    assert "No document after this one" in view.notice.text()
    press(qtbot, "K")
    assert judge.current == queue.items[4].doc_id
    # Esc in the search box clears it; every row comes back
    press(qtbot, "/")
    press(qtbot, "Esc")
    assert all(not view.list.isRowHidden(r) for r in range(len(queue.items)))
    press(qtbot, "J")
    assert judge.current == queue.items[5].doc_id


def test_enter_in_the_topic_filter_opens_the_topic(qtbot, judging):
    window, controller = judging
    topics = window.topics_view
    press(qtbot, "Ctrl+1")
    topics.filter.setFocus()
    qtbot.keyClicks(topics.filter, "number 3")
    settled()
    topics.table.clearSelection()
    topics.table.setCurrentIndex(topics.proxy.index(-1, -1))
    settled()
    press(qtbot, "Return")
    assert window.tabs.currentWidget() is window.judging_view
    assert controller.judging.queue.qid == "3"


def test_undo_keeps_to_the_topic_or_says_what_it_undoes(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    doc1 = judge.current
    press(qtbot, "2")
    assert grade_of(controller, doc1) == 2
    controller.open_topic("3")
    settled()
    doc3 = judge.current
    press(qtbot, "Ctrl+Z")
    # nothing undone, still in topic 3, and the notice says which change and where
    assert judge.queue.qid == "3" and judge.current == doc3
    with_store = controller.workbench.judging.state("1", doc1)
    assert with_store.grade == 2
    assert "topic 1" in view.notice.text() and "Ctrl+Z again" in view.notice.text()
    press(qtbot, "Ctrl+Z")
    assert controller.workbench.judging.state("1", doc1).grade is None
    assert judge.queue.qid == "1" and "Undone" in view.notice.text()
    # within the topic, Ctrl+Z undoes at once
    press(qtbot, "1")
    press(qtbot, "Ctrl+Z")
    assert controller.workbench.judging.state("1", doc1).grade is None


def test_ctrl_end_and_ctrl_home_move_through_a_long_document(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    record = judge.records[judge.current]  # the topic's texts, read when it opened
    body = "\n".join(f"line {i} of a long text about things" for i in range(3000)) + "\nEND"
    judge.records[judge.current] = type(record)(record.doc_id, record.docno, record.title, body, {})
    judge.show_document(judge.current)
    bar = view.viewer.text.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    press(qtbot, "Ctrl+End")
    assert bar.value() == bar.maximum()
    QApplication.processEvents()
    bottom = view.viewer.text.cursorForPosition(view.viewer.text.viewport().rect().bottomLeft())
    assert bottom.block().text() in ("END", "line 2999 of a long text about things")
    press(qtbot, "Ctrl+Home")
    assert bar.value() == 0


# -- state you can see --------------------------------------------------------------------------
def test_flag_on_an_unjudged_document_shows_and_is_saved_with_the_grade(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    doc = judge.current
    row = judge.queue.row_of(doc)
    press(qtbot, "F")
    assert view.grade_bar.flag_button.isChecked()
    assert "flag is saved with the grade" in view.position_label.text()
    assert view.list_model.index(row, 2).data().endswith("⚑")
    press(qtbot, "2")
    state = controller.workbench.judging.state("1", doc)
    assert (state.grade, state.flagged) == (2, True)


def test_skipped_documents_look_skipped_and_the_list_filters_by_key(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    queue = judge.queue
    skipped = judge.current
    press(qtbot, "S")
    row = queue.row_of(skipped)
    assert view.list_model.index(row, 2).data() == "skipped"
    flagged = judge.current
    press(qtbot, "1")
    press(qtbot, "K")  # back to the judged one: flag it
    assert judge.current == flagged
    press(qtbot, "F")
    # L cycles the filter: unjudged, skipped, flagged, judged, each grade, all
    labels = []
    for _ in range(view.filter.count()):
        press(qtbot, "L")
        labels.append(view.filter.currentData())
        shown = {
            queue.items[r].doc_id for r in range(len(queue.items)) if not view.list.isRowHidden(r)
        }
        kind = view.filter.currentData()
        if kind == "skipped":
            assert shown == {skipped}
        elif kind == "flagged":
            assert shown == {flagged}
            assert judge.current == flagged
        elif kind == "judged" or kind == "grade:1":
            assert shown == {flagged}
        elif kind == "unjudged":
            assert flagged not in shown and skipped in shown
    assert labels[:4] == ["unjudged", "skipped", "flagged", "judged"]
    assert labels[-1] == "all"


def test_a_finished_topic_lights_no_grade_and_enter_opens_the_next(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    for _ in range(len(judge.queue.items)):
        press(qtbot, "3")
    assert judge.current is None
    assert not any(b.isChecked() for b in view.grade_bar.buttons.values())
    assert "Enter: topic 2" in view.viewer.meta.text()
    press(qtbot, "Return")
    assert judge.queue.qid == "2" and judge.current is not None
    # while a document is shown, Enter does not leave the topic
    press(qtbot, "Return")
    assert judge.queue.qid == "2"


def test_undo_and_redo_keep_the_time_spent(qtbot, judging):
    window, controller = judging
    judge = controller.judging
    now = [100.0]
    judge.clock = lambda: now[0]
    doc = judge.current
    judge.show_document(doc)
    now[0] += 7.2
    qtbot.keyClick(window.judging_view.viewer.text, Qt.Key.Key_Down)  # activity
    settled()
    press(qtbot, "2")
    store = controller.workbench.store
    [j] = store.judgments.all("1", [ASSESSOR])
    assert j.time_spent == pytest.approx(7.2)
    press(qtbot, "Ctrl+Z")
    assert store.judgments.all("1", [ASSESSOR]) == []
    press(qtbot, "Ctrl+Shift+Z")
    [j] = store.judgments.all("1", [ASSESSOR])
    assert (j.grade, j.time_spent) == (2, pytest.approx(7.2))


# -- documents without text ------------------------------------------------------------------------
def test_a_document_without_text_is_judged_only_after_a_second_key(qtbot, judging):
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    doc = judge.current
    judge.records.pop(doc)  # the topic's texts are read: this one as if never imported
    judge.show_document(doc)
    assert "no text in the project" in view.viewer.header.text()
    assert "not in the project" in view.viewer.text.toPlainText()
    press(qtbot, "2")
    assert grade_of(controller, doc) is None
    assert "Press a grade key again" in view.notice.text()
    press(qtbot, "2")
    assert grade_of(controller, doc) == 2
    assert judge.current != doc


def test_the_owner_defines_the_scale_in_the_window(qtbot, judging, tmp_path):
    window, controller = judging
    view = window.judging_view
    window.actions_by_name["scale"].trigger()
    settled()
    dialog = controller.scale_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.preset.setCurrentIndex(dialog.preset.findData("binary"))
    settled()
    assert dialog.table.rowCount() == 2
    dialog.table.item(1, 3).setText("Helps with the topic in any way.")
    guide = tmp_path / "guide.txt"
    guide.write_text("Read the whole document before judging.\n", encoding="utf-8")
    dialog.load_guidelines(str(guide))
    # a key the judging view uses is refused, in the dialog, and nothing is saved
    dialog.table.item(1, 2).setText("J")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    settled()
    assert dialog.isVisible() and "'J' is taken" in dialog.message.text()
    dialog.table.item(1, 2).setText("1")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    settled()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    settled()  # the window reads the new scale
    store = controller.workbench.store
    assert [(g.grade, g.label) for g in store.settings.scale()] == [
        (0, "Not relevant"),
        (1, "Relevant"),
    ]
    assert store.settings.scale()[1].definition == "Helps with the topic in any way."
    assert store.settings.guidelines() == "Read the whole document before judging.\n"
    assert sorted(view.grade_bar.buttons) == [0, 1]
    assert "Helps with the topic" in view.grade_bar.buttons[1].toolTip()
    assert "whole document" in view.topic_panel.guidelines.text()
    doc = controller.judging.current
    press(qtbot, "2")  # no such grade any more: it says so
    assert grade_of(controller, doc) is None
    assert "'2' is not a key of this project's scale" in view.notice.text()
    press(qtbot, "1")
    assert grade_of(controller, doc) == 1
