"""Waiting for the window as a user waits for it: every query and write of the window runs
off the GUI thread (judgeapp.ui.ops), so a test that asks something of it (opens a
project, presses a grade key) waits until the answer is on screen, the event loop running
meanwhile."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject


def settled(timeout: float = 60.0) -> None:
    """Wait until the window's ops are done (judgeapp.ui.ops): what was asked of the
    project (a topic read, a judgment committed, a search) is on screen, as a user sees it
    a moment later. The event loop runs meanwhile."""
    from PySide6.QtTest import QTest

    from judgeapp.ui.ops import Ops

    end = time.monotonic() + timeout
    while not Ops.all_idle():
        if time.monotonic() > end:
            raise AssertionError(f"the window's work did not finish in {timeout} s")
        QTest.qWait(2)


def open_project(controller, db, timeout: float = 60.0, create: bool = False) -> None:
    """Open `db` in the window (read in a worker) and wait until it is shown; `create`:
    a new project where nothing is yet (as Project ▸ New project… does)."""
    controller.open_project(str(db), create=create)
    settled(timeout)


class PaintLog(QObject):
    """An event filter that appends "painted" to `log` at each paint of the widgets it is
    installed on (keep it referenced while it is installed)."""

    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.log.append("painted")
        return False
