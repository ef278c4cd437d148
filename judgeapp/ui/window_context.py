"""What the main window's parts share: the window, its ops and settings, the project open
in it (`Workbench`, and `WorkbenchState`: what the window shows of it), the dialogs shown
last, and the last warning and error said (tests and screenshots read them).

`MainController` owns one and hands it to the parts it is made of (the topic list, the
estimates, imports and exports, pools, the project's settings): each reads the project open
now from here, never a copy kept from an earlier project.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from judgeapp.services.workbench import Workbench, WorkbenchState
from judgeapp.ui.dialogs import AssessorDialog, ScaleDialog, StopTargetDialog, TaskDialog
from judgeapp.ui.main_window import MainWindow
from judgeapp.ui.ops import Ops
from judgeapp.ui.plain import plain


class WindowContext:
    def __init__(self, window: MainWindow, ops: Ops, settings: QSettings) -> None:
        self.window = window
        self.ops = ops  # every query and write of the window (judgeapp.ui.ops)
        self.settings = settings
        self.workbench: Workbench | None = None
        self.state: WorkbenchState | None = None  # what the window shows of the project
        self.blind = False  # the current assessor judges blind (judgeapp.services.team)
        self.dialog: TaskDialog | None = None  # long work: imports, pools, the demo
        self.file_dialog: QFileDialog | None = None
        self.assessor_dialog: AssessorDialog | None = None
        self.scale_dialog: ScaleDialog | None = None
        self.stop_dialog: StopTargetDialog | None = None
        self.last_error: str | None = None
        self.last_warning: str | None = None

    def say(self, text: str, ms: int = 0) -> None:
        """`text` in the status bar (for `ms` milliseconds; 0: until replaced)."""
        self.window.statusBar().showMessage(text, ms)

    def warn(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.open()
        self.last_warning = text

    def error(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self.last_error = text
