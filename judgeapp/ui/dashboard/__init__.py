"""The evaluator's dashboard (issue 6): runs x measures with significance marks and a
per-topic drill-down, precision-recall, nDCG@k, ΔAP and judging-progress plots, and
judging-coverage warnings, all following the judgments live.

`attach_dashboard(window, controller)` adds it to the main window as a tab and connects it
to the main controller's `project_opened` and `changes_applied` signals.
"""

from __future__ import annotations

from typing import Any

from judgeapp.ui.dashboard.controller import DashboardController
from judgeapp.ui.dashboard.view import DashboardView

TAB_TITLE = "Dashboard"


def attach_dashboard(window: Any, controller: Any, *, threaded: bool = True) -> DashboardController:
    """Add the dashboard tab to `window` and follow `controller` (a MainController); the
    dashboard's controller is a child of it (see `find_dashboard`)."""
    from PySide6.QtGui import QAction, QKeySequence

    view = DashboardView()
    window.add_view(TAB_TITLE, view)
    dashboard = DashboardController(view, parent=controller, threaded=threaded)
    dashboard.setObjectName("dashboard")
    dashboard.attach(controller, TAB_TITLE)
    show = QAction("&Dashboard", window)
    show.setShortcut(QKeySequence("Ctrl+3"))
    show.triggered.connect(lambda: window.show_view(view))
    window.addAction(show)
    dashboard.show_action = show
    show.setVisible(not dashboard.blinded)
    return dashboard


def find_dashboard(controller: Any) -> DashboardController | None:
    """The dashboard attached to a MainController, if any."""
    return controller.findChild(DashboardController, "dashboard")


__all__ = [
    "TAB_TITLE",
    "DashboardController",
    "DashboardView",
    "attach_dashboard",
    "find_dashboard",
]
