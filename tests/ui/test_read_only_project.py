"""A project this user may read but not write, opened in the window: it is shown, it says
once and plainly why it records nothing, and a name it does not know leads to choosing one
of its assessors or another project (it used to show nothing, a traceback, or
"ProjectFileError ... press the grade key again to retry" for every grade key).

The file is made unwritable with chmod. Root ignores file permissions, so under root each
test runs again in a child pytest whose root has lost the capabilities that override them
(`setpriv --bounding-set`), where chmod binds as for any user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from live_project import pooled_project
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from tests.ui.waiting import open_project, settled

ROOT = Path(__file__).resolve().parents[2]
OVERRIDES = "-dac_override,-dac_read_search,-fowner"


def make_unwritable(db: Path, request) -> None:
    """chmod the project and its folder so that nobody may write them (put back after the
    test)."""
    db.chmod(0o444)
    db.parent.chmod(0o555)

    def put_back() -> None:
        db.parent.chmod(0o755)
        db.chmod(0o644)

    request.addfinalizer(put_back)
    assert not os.access(db, os.W_OK) and not os.access(db.parent, os.W_OK)


def _chmod_binds(folder: Path) -> bool:
    probe = folder / "probe"
    probe.write_text("")
    probe.chmod(0o444)
    try:
        return not os.access(probe, os.W_OK)
    finally:
        probe.chmod(0o644)


@pytest.fixture(scope="module")
def child_outcomes(tmp_path_factory) -> dict[str, str] | None:
    """None where chmod binds this process; under root, every test of this file run once
    in a child pytest without root's permission overrides: {test name: outcome}."""
    if _chmod_binds(tmp_path_factory.mktemp("probe")):
        return None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores chmod here, and setpriv (util-linux) is not installed")
    drop = [setpriv, f"--bounding-set={OVERRIDES}"]
    probe = subprocess.run([*drop, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"root ignores chmod here, and cannot drop that power: {probe.stderr}")
    options = ["-q", "-rA", "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider"]
    child = subprocess.run(
        [*drop, sys.executable, "-m", "pytest", *options, str(Path(__file__).relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    outcomes: dict[str, str] = {}
    for line in child.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR", "SKIPPED") and "::" in rest:
            outcomes.setdefault(rest.split("::")[1].split()[0], word)
    outcomes["output"] = child.stdout[-6000:] + child.stderr[-2000:]
    return outcomes


@pytest.fixture
def unwritable(request, child_outcomes, tmp_path) -> Path | None:
    """A pooled project in a folder, both unwritable by this user. Under root: None, once
    the test has passed in the child (`child_outcomes`), which judges it."""
    if child_outcomes is not None:
        name = request.node.name
        assert child_outcomes.get(name) == "PASSED", child_outcomes["output"]
        return None
    db = pooled_project(tmp_path / "p")
    make_unwritable(db, request)
    return db


def visible_boxes(window) -> list[QMessageBox]:
    return [b for b in window.findChildren(QMessageBox) if b.isVisible()]


def open_as(name: str, db: Path, settings, make_window):
    """The window on `db`, with `name` the assessor asked for."""
    settings.setValue("assessor", name)
    window, controller = make_window()
    open_project(controller, db)
    return window, controller


def test_a_name_the_read_only_project_does_not_know_leads_to_choosing_one(
    unwritable, qtbot, make_window, settings
):
    db = unwritable
    if db is None:
        return  # passed in the child, as a user whom chmod binds
    window, controller = open_as("a-new-name", db, settings, make_window)
    boxes = visible_boxes(window)
    assert len(boxes) == 1, [b.text() for b in boxes]
    box = boxes[0]
    text = box.text()
    assert box.windowTitle() == "Opened for reading only"
    assert "read-only for you" in text and f"you may not write {db}" in text, text
    assert "'a-new-name' has no judgments in it" in text, text
    assert "Error" not in text and "retry" not in text, text
    # the project is shown (its topics, in the topic list), read-only as its title says
    assert window.topics_view.model.rowCount() == 4
    assert controller.workbench.assessor is None
    assert "(read-only)" in window.windowTitle()
    assert "read-only" in window.project_label.text()
    assert not window.actions_by_name["import_runs"].isEnabled()
    assert not window.actions_by_name["build_pool"].isEnabled()
    # its buttons: choose one of the project's assessors, or another project
    buttons = {b.text(): b for b in box.buttons()}
    assert set(buttons) == {"Choose an assessor…", "Open another project…", "Read only"}
    buttons["Choose an assessor…"].click()
    dialog = controller.assessor_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.chosen.emit("ann")
    settled()
    assert controller.workbench.assessor == "ann"
    # Enter on a topic now opens it
    window.show_view(window.topics_view)
    window.topics_view.select_qid("1")
    QTest.keyClick(window.topics_view.table, Qt.Key.Key_Return)
    settled()
    assert window.tabs.currentWidget() is window.judging_view
    assert controller.judging.queue is not None and controller.judging.queue.qid == "1"


def test_enter_without_an_assessor_asks_for_one_and_another_project_can_be_opened(
    unwritable, qtbot, make_window, settings
):
    db = unwritable
    if db is None:
        return  # passed in the child, as a user whom chmod binds
    window, controller = open_as("someone-else", db, settings, make_window)
    (box,) = visible_boxes(window)
    next(b for b in box.buttons() if b.text() == "Read only").click()
    # Enter on a topic with nobody to judge as: the assessor dialog, and a word why
    window.topics_view.table.setFocus()
    window.topics_view.select_qid("2")
    QTest.keyClick(window.topics_view.table, Qt.Key.Key_Return)
    settled()
    assert controller.assessor_dialog is not None and controller.assessor_dialog.isVisible()
    assert "Topic 2 opens once an assessor is chosen" in window.statusBar().currentMessage()
    controller.assessor_dialog.reject()
    # "Open another project…" is the project dialog
    controller.open_project(str(db))
    settled()
    (box,) = visible_boxes(window)
    next(b for b in box.buttons() if b.text() == "Open another project…").click()
    assert controller.file_dialog is not None and controller.file_dialog.isVisible()
    assert controller.file_dialog.windowTitle() == "Open project"
    controller.file_dialog.reject()


def test_grade_keys_in_a_read_only_project_say_once_plainly_why_nothing_is_recorded(
    unwritable, qtbot, make_window, settings
):
    db = unwritable
    if db is None:
        return  # passed in the child, as a user whom chmod binds
    window, controller = open_as("ann", db, settings, make_window)
    assert visible_boxes(window) == []
    assert controller.workbench.assessor == "ann" and controller.workbench.read_only
    window.show_view(window.topics_view)
    window.topics_view.table.setFocus()
    window.topics_view.select_qid("1")
    QTest.keyClick(window.topics_view.table, Qt.Key.Key_Return)
    settled()
    view = window.judging_view
    assert window.tabs.currentWidget() is view
    queue = controller.judging.queue
    assert queue is not None and queue.qid == "1"
    shown = controller.judging.current
    assert shown is not None
    judged_before = queue.counts()[1]
    for key in (Qt.Key.Key_2, Qt.Key.Key_0, Qt.Key.Key_F):
        QTest.keyClick(view, key)
        settled()
        notice = view.notice.text()
        assert notice.startswith("Nothing was recorded. This project is read-only for you"), notice
        assert f"you may not write {db}" in notice and "copy" in notice, notice
        assert "Error" not in notice and "retry" not in notice, notice
        # said under the document: no box to dismiss, and nothing else failed meanwhile
        assert visible_boxes(window) == []
        assert controller.last_error is None, controller.last_error
        assert "Failed" not in window.statusBar().currentMessage()
    assert controller.judging.current == shown  # still the same document
    assert queue.counts()[1] == judged_before
    # nothing was written to the file
    from judgeapp.store import Store

    with Store.open(db, create=False) as store:
        assert len(store.judgments.all(assessors=["ann"])) == 1
