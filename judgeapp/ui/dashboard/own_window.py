"""Where the dashboard is: a tab of the main window, or a window of its own (to watch it
beside the judging view). Closing its own window puts it back among the tabs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from judgeapp.ui.dashboard.view import DashboardWindow

if TYPE_CHECKING:
    from judgeapp.ui.dashboard.controller import DashboardController


class OwnWindowController(QObject):
    def __init__(self, dash: DashboardController) -> None:
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
            window.layout().addWidget(v)
            window.closed.connect(lambda: self.set_own_window(False))
            self.window = window
            v.show()
            window.show()
        else:
            window, self.window = self.window, None
            window.layout().removeWidget(v)
            main.add_view(self.tab_title, v)
            window.hide()
            window.deleteLater()
        v.window_button.blockSignals(True)
        v.window_button.setChecked(own)
        v.window_button.blockSignals(False)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
