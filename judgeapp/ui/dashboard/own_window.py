"""Where the dashboard is: a tab of the main window, or a window of its own (to watch it
beside the judging view). Closing its own window puts it back among the tabs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from judgeapp.ui.dashboard.parts import DashboardParts
from judgeapp.ui.dashboard.view import DashboardWindow


class OwnWindowController(QObject):
    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self.main_window: Any = None
        self.tab_title = "Dashboard"
        self.window: DashboardWindow | None = None  # its own window, while it has one
        self._connect()

    def _connect(self) -> None:
        self.dash.view.window_button.toggled.connect(self._on_window_button_toggled)

    def attach(self, main_window: Any, tab_title: str) -> None:
        """The main window whose tab the dashboard is (`tab_title`) when not on its own."""
        self.main_window = main_window
        self.tab_title = tab_title

    def _on_window_button_toggled(self, checked: bool) -> None:
        self.set_own_window(checked)

    def set_own_window(self, own: bool) -> None:
        """Move the dashboard out of the main window's tabs into a window of its own (to
        watch it while judging), or back."""
        v, main = self.dash.view, self.main_window
        if own == (self.window is not None) or main is None:
            return
        if own:
            main.tabs.removeTab(main.tabs.indexOf(v))
            window = DashboardWindow(main)
            window.body.addWidget(v)
            window.closed.connect(lambda: self.set_own_window(False))
            self.window = window
            v.show()
            place_beside(main, window)
            window.show()
        else:
            closing, self.window = self.window, None
            assert closing is not None
            closing.body.removeWidget(v)
            main.add_view(self.tab_title, v)
            closing.hide()
            closing.deleteLater()
        v.window_button.blockSignals(True)
        v.window_button.setChecked(own)
        v.window_button.blockSignals(False)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()


def place_beside(main: Any, window: Any) -> None:
    """Put the dashboard's window beside the main window on the same screen, both fully
    in view: the screen's free width to the right of the main window when there is room,
    else each half of the screen (the judging view and the dashboard fit a half of a
    1366-pixel screen)."""
    screen = main.screen()
    if screen is None:
        return
    area = screen.availableGeometry()
    frame = main.frameGeometry()
    free = area.right() - frame.right()
    wanted = max(window.minimumSizeHint().width(), 640)
    if free >= wanted:
        window.setGeometry(frame.right() + 1, area.top(), min(free, 1280), area.height() - 40)
        return
    half = area.width() // 2
    if half < max(main.minimumSizeHint().width(), window.minimumSizeHint().width()):
        return  # too small for two: the dashboard's window goes where the system puts it
    main.setGeometry(area.left(), area.top(), half, area.height() - 40)
    window.setGeometry(area.left() + half, area.top(), area.width() - half, area.height() - 40)
