"""A project this user may read but not write, opened in the window: it is shown, and it says
why it records nothing (it used to show nothing, or a traceback, for a name the project did
not know yet)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from tests.ui.waiting import open_project


def test_a_read_only_project_opens_and_says_why_it_records_nothing(
    tmp_path, qtbot, make_window, settings, monkeypatch
):
    from live_project import write_project

    from judgeapp.store import store as store_module

    project = write_project(tmp_path / "p")
    # a file this user cannot write (the tests run as root, who can write anything)
    monkeypatch.setattr(store_module, "_writable", lambda path: False)
    settings.setValue("assessor", "a-new-name")
    window, controller = make_window()
    open_project(controller, project.db)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1, [b.text() for b in boxes]
    text = boxes[0].text()
    assert "the project is read-only here" in text and "'a-new-name'" in text, text
    assert boxes[0].windowTitle() == "Opened for reading only"
    boxes[0].accept()
    # the project is shown: its topics, in the topic list
    model = window.topics_view.model
    assert model.rowCount() == 4
    assert controller.workbench.assessor is None
