"""The composition root: build the store and services, hand them to the main window.

`python main.py` with no arguments calls `run_gui()`, which opens the demo project (built
on first launch into the user's data directory) unless a project is named. Nothing else in
judgeapp creates a QApplication, a Store for the GUI, or QSettings.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from judgeapp.services.workbench import Workbench
from judgeapp.store import Store


def open_workbench(db: str) -> Workbench:
    """Open (creating if new, upgrading if old) the project at `db` for the workbench. A
    damaged file is refused here, with the message box the controller shows, rather than
    opened and judged into (SQLite's quick_check, judgeapp.store.files)."""
    store = Store.open(db)
    try:
        store.verify()
    except BaseException:
        store.close()
        raise
    return Workbench(store)


def demo_builder():
    """`ensure_demo_project` when the demo module is available, else None."""
    try:
        from judgeapp.demo import ensure_demo_project
    except ImportError:
        return None
    return ensure_demo_project


DASHBOARD_DELAY_MS = 250


def build_main_window(settings=None, thread_pool=None, *, defer_dashboard: bool = False):
    """The main window and its controller, wired to real services (no project open yet).

    With `defer_dashboard` the evaluator's dashboard (which imports matplotlib, a second or
    so) is attached a moment after the first project has opened, so its topic list shows
    first; otherwise at once."""
    from PySide6.QtCore import QSettings, QTimer

    from judgeapp.ui.controller import MainController
    from judgeapp.ui.main_window import MainWindow

    if settings is None:
        settings = QSettings("judgeapp", "judgeapp")
    window = MainWindow()
    controller = MainController(
        window, open_workbench, settings, demo=demo_builder(), thread_pool=thread_pool
    )
    if defer_dashboard:
        # a moment after the first project has opened (its topic list on screen), or after
        # a longer moment when none is opened
        timer = QTimer(window)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: _attach_dashboard(window, controller, freeze=True))
        timer.start(4 * DASHBOARD_DELAY_MS)
        controller.project_opened.connect(
            lambda _wb: timer.start(DASHBOARD_DELAY_MS) if timer.isActive() else None
        )
    else:
        _attach_dashboard(window, controller)
    return window, controller


def _attach_dashboard(window, controller, *, freeze: bool = False) -> None:
    """The evaluator's dashboard (issue 6): a tab fed by the controller's signals.

    `freeze`: the application is complete now; what it has loaded (Qt, matplotlib: some
    200,000 objects) lives as long as it does, so the garbage collector is told to stop
    scanning it (`gc.freeze`): its full passes took 5 ms per judgment on average, and
    more in the slowest ones."""
    from judgeapp.ui.dashboard import attach_dashboard

    attach_dashboard(window, controller)
    if freeze:
        gc.collect()
        gc.freeze()


def ensure_app(argv: list[str] | None = None):
    from PySide6.QtWidgets import QApplication

    from judgeapp.ui.theme import apply_theme

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else [sys.argv[0]])
        app.setApplicationName("judgeapp")
        app.setOrganizationName("judgeapp")
        apply_theme(app)
    return app


def run_gui(db: str | None = None) -> int:
    """Open the main window on `db`, or on the demo project; returns the exit code."""
    app = ensure_app()
    window, controller = build_main_window(defer_dashboard=True)
    controller.restore_geometry()
    window.show()
    if db is not None:
        controller.open_project(str(Path(db)) if "://" not in db else db)
    elif controller.demo is not None:
        controller.open_demo()
    return app.exec()
