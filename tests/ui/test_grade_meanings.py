"""Grade meanings in view while judging (issue 30, item 5): the definitions under the grade
buttons, the F1 sheet saying when the scale has none and where to add them, and the F1
table scrolled by keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judgeapp.store import Store
from tests.ui.test_judging_keys import judging, press  # noqa: F401 (a fixture)
from tests.ui.waiting import settled


def _sheet(qtbot, controller):
    press(qtbot, "F1")
    sheet = controller.judging.shortcut_sheet()
    qtbot.waitUntil(sheet.isVisible)
    sheet.activateWindow()  # as the window manager does with a new dialog
    qtbot.waitUntil(lambda: QApplication.activeWindow() is sheet)
    return sheet


def test_the_default_scale_says_it_has_no_definitions_and_the_sheet_scrolls_by_keys(
    qtbot,
    judging,  # noqa: F811
):
    window, controller = judging
    view = window.judging_view
    assert not any(g.definition for g in view.scale)  # the default scale defines nothing
    assert not view.grade_bar.legend.isVisible()
    sheet = _sheet(qtbot, controller)
    assert sheet.undefined.isVisible()
    text = sheet.undefined.text()
    assert "no definitions" in text and "Relevance scale and guidelines" in text
    assert "judgeapp scale" in text
    # a sheet smaller than its rows: the keys scroll it, from the table that has the focus
    sheet.resize(420, 260)
    qtbot.waitUntil(lambda: sheet.table.verticalScrollBar().maximum() > 0)
    bar = sheet.table.verticalScrollBar()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is sheet.table)
    top = bar.value()
    press(qtbot, "PgDown", sheet)
    assert bar.value() > top
    for _ in range(40):
        press(qtbot, "Down", sheet)
    assert bar.value() == bar.maximum()
    press(qtbot, "Home", sheet)
    press(qtbot, "Ctrl+Home", sheet)
    assert bar.value() == 0
    sheet.reject()


def test_definitions_stand_under_the_grade_buttons(qtbot, judging, tmp_path):  # noqa: F811
    from judgeapp.cli import main

    window, controller = judging
    view = window.judging_view
    db = controller.workbench.store.url
    definitions = {
        0: "Says nothing about the topic",
        1: "Mentions the topic in passing",
        2: "Answers part of the question",
        3: "Answers the whole question",
    }
    args = [a for g, text in definitions.items() for a in ("--define", str(g), text)]
    assert main(["scale", db, *args]) == 0  # another process: the window follows
    bar = view.grade_bar
    qtbot.waitUntil(bar.legend.isVisible, timeout=10_000)
    settled()
    legend = bar.legend.text()
    for g, text in definitions.items():
        assert text in legend
        assert f"{g} {next(x.label for x in view.scale if x.grade == g)}" in legend

    # in view: under the buttons, inside the window, not cut by its bottom edge
    def in_view() -> bool:
        bottom = bar.legend.mapTo(window, bar.legend.rect().bottomLeft()).y()
        whole = bar.legend.height() >= bar.legend.heightForWidth(bar.legend.width()) - 1
        return whole and bottom <= window.centralWidget().geometry().bottom()

    qtbot.waitUntil(in_view, timeout=5000)  # once laid out
    view.grab().save(str(tmp_path / "judging-defined.png"))
    sheet = _sheet(qtbot, controller)
    assert not sheet.undefined.isVisible()
    sheet.reject()
    with Store.open(db) as store:
        assert [g.definition for g in store.settings.scale()] == list(definitions.values())


def test_the_topic_goes_beside_the_document_by_a_key_and_stays_there(
    qtbot,
    judging,  # noqa: F811
    make_window,
    tmp_path,
):
    from judgeapp.ui.controller import TOPIC_BESIDE

    window, controller = judging
    view = window.judging_view
    panel, viewer = view.topic_panel, view.viewer
    assert panel.parent() is view  # above the list and the document
    press(qtbot, "Ctrl+Shift+B")
    qtbot.waitUntil(lambda: panel.parent() is view.splitter)
    qtbot.waitUntil(
        lambda: (
            panel.mapTo(view, panel.rect().topLeft()).x()
            >= viewer.mapTo(view, viewer.rect().topRight()).x()
        )
    )
    # beside: as tall as the view, the description and narrative in view while reading
    qtbot.waitUntil(lambda: panel.height() >= view.height() * 0.8)
    assert panel.height() >= viewer.height()
    assert panel.width() >= 200 and viewer.width() >= 300
    assert "Topic 1" in panel.title.text() and panel.isVisible()
    assert window.actions_by_name["topic_beside"].isChecked()
    assert controller.settings.value(TOPIC_BESIDE, type=bool) is True
    view.grab().save(str(tmp_path / "judging-beside.png"))
    # grade keys still judge
    doc = controller.judging.current
    press(qtbot, "2")
    assert controller.judging.queue.item(doc).grade == 2
    # remembered: a window opened next starts with the topic beside the document
    window2, _controller2 = make_window()
    qtbot.waitUntil(
        lambda: window2.judging_view.topic_panel.parent() is window2.judging_view.splitter
    )
    window2.close()
    # and back above, by the same key
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press(qtbot, "Ctrl+Shift+B", window)
    qtbot.waitUntil(lambda: panel.parent() is view)
    assert panel.mapTo(view, panel.rect().bottomLeft()).y() <= view.splitter.geometry().top()
    assert len(view.splitter.sizes()) == 2
    assert controller.settings.value(TOPIC_BESIDE, type=bool) is False


def test_instructions_come_before_the_first_document_and_one_key_after(
    qtbot, make_window, tmp_path
):
    """A project with guidelines: alice, who judged nothing yet, gets them (with the grade
    meanings) before her first document; Enter starts judging; I shows them again; bob,
    who judged before, is not stopped by them."""
    from live_project import write_project

    from judgeapp.cli import main
    from judgeapp.services.judging import JudgingService
    from judgeapp.store import Changes
    from tests.ui.test_main_window import choose_assessor
    from tests.ui.waiting import open_project

    project = write_project(tmp_path / "p")
    db = str(project.db)
    guide = "Judge each document on its own, as the person who asked would."
    assert main(["scale", db, "--guidelines-text", guide, "--define", "2", "Answers it"]) == 0
    with Store.open(db) as store:
        JudgingService(store, "bob").record("2", project.lists["run1"]["2"][0], 1)
    window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "alice")
    controller.workbench.build_pool(
        "pool", list(project.runs), "depth", {"depth": 10}, "blind", seed=7
    )
    controller.apply_changes(Changes(pools=True))
    settled()
    judge = controller.judging
    controller.open_topic("1")
    settled()
    dialog = judge.instructions()
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    text = dialog.text.toPlainText()
    assert guide in text and "2  Highly relevant: Answers it" in text
    assert dialog.start.text() == "Start judging"
    assert judge.current is not None  # the first document is behind it, ready
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    doc = judge.current
    press(qtbot, "2")
    assert judge.queue.item(doc).grade == 2
    # another topic: not again; I brings them back, Esc closes them
    controller.open_topic("2")
    settled()
    assert judge.instructions() is dialog and not dialog.isVisible()
    press(qtbot, "I")
    again = judge.instructions()
    qtbot.waitUntil(again.isVisible)
    assert guide in again.text.toPlainText() and again.start.text() == "Back to judging"
    again.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is again)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not again.isVisible())
    # bob judged before: his topic opens straight on the document
    choose_assessor(controller, "bob")
    controller.open_topic("3")
    settled()
    assert judge.instructions() is again and not again.isVisible()
