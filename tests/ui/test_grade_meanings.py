"""Grade meanings in view while judging (issue 30, item 5): the definitions under the grade
buttons, the F1 sheet saying when the scale has none and where to add them, and the F1
table scrolled by keyboard."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from judgeapp.store import Store
from tests.ui.test_judging_keys import judging, press  # noqa: F401 (a fixture)


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
    assert main(["scale", db, *args]) == 0
    controller.judging.refresh_scale()
    bar = view.grade_bar
    qtbot.waitUntil(bar.legend.isVisible, timeout=5000)
    legend = bar.legend.text()
    for g, text in definitions.items():
        assert text in legend
        assert f"{g} {next(x.label for x in view.scale if x.grade == g)}" in legend
    # in view: under the buttons, inside the window, not cut by its bottom edge
    bottom = bar.legend.mapTo(window, bar.legend.rect().bottomLeft()).y()
    assert bottom <= window.centralWidget().geometry().bottom()
    assert bar.legend.height() >= bar.legend.heightForWidth(bar.legend.width()) - 1
    view.grab().save(str(tmp_path / "judging-defined.png"))
    sheet = _sheet(qtbot, controller)
    assert not sheet.undefined.isVisible()
    sheet.reject()
    with Store.open(db) as store:
        assert [g.definition for g in store.scale()] == list(definitions.values())
