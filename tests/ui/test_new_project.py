"""A path with no project (issue 30, item 4): the command line refuses it and creates
nothing; the window asks before creating a project there; New project… creates one at once;
and an empty project shows the steps to judging, each a button of its own, instead of an
empty topic list."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from judgeapp.records import Changes
from tests.ui.waiting import open_project, settled


def visible_boxes(window) -> list[QMessageBox]:
    return [b for b in window.findChildren(QMessageBox) if b.isVisible()]


def test_the_window_asks_before_creating_a_project_where_there_is_none(tmp_path, make_window):
    typo = tmp_path / "robsut.db"
    window, controller = make_window()
    open_project(controller, typo)
    (box,) = visible_boxes(window)
    assert box.windowTitle() == "No project there"
    assert box.text() == f"There is no project at {typo}.\n\nCreate a new, empty project there?"
    assert box.defaultButton().text() == "Cancel"
    assert not typo.exists() and controller.workbench is None
    # Cancel: nothing is created, and the status bar says so
    next(b for b in box.buttons() if b.text() == "Cancel").click()
    settled()
    assert not typo.exists() and controller.workbench is None
    assert window.statusBar().currentMessage() == f"Nothing was created at {typo}."
    # asked again, Create: the project is created and opened
    open_project(controller, typo)
    (box,) = visible_boxes(window)
    next(b for b in box.buttons() if b.text() == "Create project").click()
    settled()
    assert typo.is_file() and controller.workbench is not None
    assert controller.workbench.path.endswith("robsut.db")


def test_new_project_creates_without_asking(tmp_path, make_window):
    window, controller = make_window()
    window.actions_by_name["new_project"].trigger()
    dialog = controller.file_dialog
    assert dialog is not None and dialog.windowTitle() == "New project"
    new = tmp_path / "fresh.db"
    dialog.fileSelected.emit(str(new))
    settled()
    assert visible_boxes(window) == []
    assert new.is_file() and controller.workbench is not None


def test_an_empty_project_shows_the_steps_to_judging(tmp_path, qtbot, make_window):
    window, controller = make_window()
    open_project(controller, tmp_path / "empty.db", create=True)
    view = window.topics_view
    panel = view.empty_panel
    assert view.is_empty_shown() and panel.isVisible() and not view.table.isVisible()
    # the keyboard starts on the first step
    assert panel.buttons["import_topics"].hasFocus()
    texts = [b.text().replace("&", "") for b in panel.buttons.values()]
    assert texts == ["Import topics…", "Import documents…", "Import runs…", "Build a pool…"]
    # each button is its menu item: the same dialog opens
    for name, kind in (("import_topics", "topics"), ("import_runs", "runs")):
        panel.buttons[name].click()
        assert controller.dialog is not None and controller.dialog.kind == kind
        controller.dialog.reject()
    # by the keyboard: the first step has the focus, Space takes it
    panel.buttons["import_topics"].setFocus()
    QTest.keyClick(panel.buttons["import_topics"], Qt.Key.Key_Space)
    assert controller.dialog.kind == "topics" and controller.dialog.isVisible()
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tfirst\n2\tsecond\n")
    controller.dialog.files.add_paths([str(topics)])
    with qtbot.waitSignal(controller.task_finished, timeout=30_000):
        controller.dialog.start_button.click()
    settled()
    # topics, no runs: the topic list, and above it the next step
    assert not view.is_empty_shown() and view.table.isVisible()
    bar = view.next_step
    assert bar.isVisible() and bar.runs_button.isVisible()
    assert bar.text.text().startswith("2 topics, no runs yet: import the systems' runs")
    run = tmp_path / "r.run"
    run.write_text("".join(f"{q} Q0 d{q}-{i} {i} {10 - i} r\n" for q in (1, 2) for i in (1, 2)))
    wb = controller.workbench
    controller.apply_changes(wb.import_files("runs", [run]).changes)
    settled()
    assert bar.isVisible() and not bar.runs_button.isVisible()
    assert bar.text.text() == "1 run, no pool yet: build a pool of their documents to judge."
    bar.pool_button.click()
    assert controller.dialog is not None and type(controller.dialog).__name__ == "PoolDialog"
    controller.dialog.reject()
    wb.build_pool("pool", ["r"], "depth", {"depth": 2}, "blind")
    controller.apply_changes(Changes(pools=True))
    settled()
    assert not bar.isVisible()  # a pool: nothing left to say
