"""A second judging window in a process of its own, for the tests of two windows on one
project file (tests/ui/test_two_windows.py).

    python tests/ui/second_window.py DB ASSESSOR TOPIC GRADES

opens DB in the real main window (offscreen) as ASSESSOR, opens TOPIC in the judging view,
presses each grade key of GRADES (e.g. "0120") as a user does, each landing before the next,
prints the docnos it judged (one a line), closes the window and exits.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def wait_idle(timeout: float = 60.0) -> None:
    from PySide6.QtTest import QTest

    from judgeapp.ui.ops import Ops

    end = time.monotonic() + timeout
    while not Ops.all_idle():
        if time.monotonic() > end:
            raise SystemExit("the second window's work did not finish")
        QTest.qWait(2)
    QTest.qWait(20)
    while not Ops.all_idle():
        QTest.qWait(2)


def main(db: str, assessor: str, topic: str, grades: str) -> None:
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import build_main_window, ensure_app

    ensure_app()
    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        window, controller = build_main_window(settings)
        window.resize(1200, 760)
        window.show()
        controller.open_project(db)
        wait_idle()
        dialog = controller.show_assessor_dialog()
        dialog.combo.setCurrentText(assessor)
        dialog.accept()
        wait_idle()
        controller.open_topic(topic)
        wait_idle()
        window.show_view(window.judging_view)
        window.activateWindow()
        end = time.monotonic() + 10
        while QApplication.activeWindow() is not window and time.monotonic() < end:
            QTest.qWait(5)
        window.judging_view.viewer.text.setFocus()
        judging = controller.judging
        for grade in grades:
            queue, doc = judging.queue, judging.current
            assert queue is not None and doc is not None
            QTest.keyClick(window.judging_view.viewer.text, Qt.Key(ord(grade)))
            wait_idle()
            if queue.item(doc).grade != int(grade):
                raise SystemExit(f"grade {grade} of {queue.item(doc).docno} did not land")
            print(queue.item(doc).docno, flush=True)
        window.close()
        wait_idle()


if __name__ == "__main__":
    main(*sys.argv[1:5])
