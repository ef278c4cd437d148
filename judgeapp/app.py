"""The composition root: build the store and services, hand them to the main window.

`python main.py` with no arguments calls `run_gui()`, which reopens the project used last
(the demo project, built on first launch into the user's data directory, the first time);
`python main.py PROJECT` opens that one. Nothing else in judgeapp creates a QApplication,
a Store for the GUI, or QSettings.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
from pathlib import Path

from judgeapp.services.workbench import Workbench
from judgeapp.store import Store


def open_workbench(db: str, create: bool = False) -> Workbench:
    """Open (upgrading if old) the project at `db` for the workbench; with `create` a new
    one is created if nothing is there (else NoProject: a mistyped path is not a new
    project unless that is asked for). The file is not read through: opening takes the same time whatever the project's size. A
    project whose last session ended without closing it is checked in the background
    (the window's first write waits for the check; `Store.check_due`)."""
    return Workbench(Store.open(db, create=create))


def demo_builder():
    """`ensure_demo_project` when the demo module is available, else None."""
    try:
        from judgeapp.demo import ensure_demo_project
    except ImportError:
        return None
    return ensure_demo_project


def window_settings():
    """Where the window keeps what it remembers (the project used last, recent projects,
    its size, save folders): Qt's place for the user's settings (`~/.config/judgeapp/
    judgeapp.conf` on Linux), or `settings.ini` in JUDGEAPP_DATA_DIR when that is set, so
    that two people on one account with data folders of their own never reopen each
    other's projects."""
    from PySide6.QtCore import QSettings

    override = os.environ.get("JUDGEAPP_DATA_DIR")
    if override:
        folder = Path(override)
        folder.mkdir(parents=True, exist_ok=True)
        return QSettings(str(folder / SETTINGS_FILE), QSettings.Format.IniFormat)
    return QSettings("judgeapp", "judgeapp")


SETTINGS_FILE = "settings.ini"
DASHBOARD_DELAY_MS = 250


def build_main_window(settings=None, thread_pool=None, *, defer_dashboard: bool = False):
    """The main window and its controller, wired to real services (no project open yet).

    With `defer_dashboard` the evaluator's dashboard (which imports matplotlib, a second or
    so) is attached a moment after the first project has opened, so its topic list shows
    first; otherwise at once."""
    from PySide6.QtCore import QTimer

    from judgeapp.lasting import fewer_full_passes
    from judgeapp.ui.controller import MainController
    from judgeapp.ui.main_window import MainWindow

    if settings is None:
        settings = window_settings()
    fewer_full_passes()
    if not defer_dashboard:
        _import_statistics()
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


def _import_statistics() -> None:
    """scipy.stats (the dashboard's intervals and tests, the recall estimates), imported
    on the GUI thread before the dashboard is attached: before the window is built, or
    (`python main.py`) with matplotlib when the dashboard is attached a moment after the
    first topic list shows (1.2-1.5 s of CPU at load 8; the first window of a process
    only). Imported later, in the first evaluation's worker, it took 1.4 s while the
    window was in use, and parts of it (its compiled modules' set-up: scipy.optimize's
    HiGHS 50 ms, numpy.random's generator 70 ms) hold the interpreter lock throughout:
    GUI-thread stalls of 54 ms in bench_workbench (28 November 2026, load 7.6). Not in a
    thread beside the window's construction: at load 8 that took as long (11-12 s of wall
    time, against 6-7 s without scipy) as one after the other."""
    from judgeapp.lasting import import_for_good

    import_for_good("scipy.stats", "scipy.special")


def _attach_dashboard(window, controller, *, freeze: bool = False) -> None:
    """The evaluator's dashboard (issue 6): a tab fed by the controller's signals.

    `freeze`: the application is complete now; what it has loaded (Qt, matplotlib: some
    200,000 objects) lives as long as it does, so the garbage collector is told to stop
    scanning it (`gc.freeze`): its full passes took 5 ms per judgment on average, and
    more in the slowest ones."""
    from judgeapp.ui.dashboard import attach_dashboard

    if freeze:  # `python main.py`: the window is complete now, the topic list shown
        _import_statistics()
    attach_dashboard(window, controller)
    if freeze:
        gc.collect()
        gc.freeze()


# How long a thread may hold Python's interpreter lock while another waits for it. The
# window's work runs in worker threads (judgeapp.ui.ops); the GUI thread takes the lock
# back for every call into Qt, and at Python's default (5 ms) each of those waited up to
# 5 ms behind a busy worker: painting the judging view behind a dashboard update took
# 70-400 ms. At 0.5 ms the GUI thread waits at most that long per call.
SWITCH_INTERVAL_S = 0.0005


def ensure_app(argv: list[str] | None = None):
    from PySide6.QtWidgets import QApplication

    from judgeapp.ui.theme import apply_theme

    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else [sys.argv[0]])
        app.setApplicationName("judgeapp")
        app.setOrganizationName("judgeapp")
        apply_theme(app)
    return app


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """Why the window cannot open on this machine, in plain words, or None. Checked before
    Qt starts: Qt's own message for these cases ("could not load the Qt platform plugin
    xcb ... Reinstalling the application may fix this problem") ends the process."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if not platform.startswith("linux") or (chosen and not chosen.startswith("xcb")):
        return None  # Windows, macOS, offscreen, Wayland chosen explicitly: Qt copes
    if not chosen and environ.get("WAYLAND_DISPLAY"):
        return None
    if not environ.get("DISPLAY"):
        return (
            "no display: the window needs a graphical session (X11 or Wayland), and this "
            "one has none (DISPLAY is not set). Every command works without one: "
            "python main.py --help lists them; python main.py screenshot draws the "
            "window to a PNG."
        )
    try:
        ctypes.CDLL("libxcb-cursor.so.0")  # Qt 6.5 and newer need it for X11
    except OSError:
        return (
            "the window needs the system library libxcb-cursor0 to run on X11, and it is "
            "not installed (Debian and Ubuntu: sudo apt install libxcb-cursor0; Fedora: "
            "sudo dnf install xcb-util-cursor)."
        )
    return None


def run_gui(db: str | None = None) -> int:
    """Open the main window on `db`, else on the project used last, else on the demo
    project; returns the exit code."""
    problem = display_problem()
    if problem is not None:
        print(f"judgeapp: cannot open the window: {problem}", file=sys.stderr)
        return 2
    app = ensure_app()
    window, controller = build_main_window(defer_dashboard=True)
    controller.restore_geometry()
    window.show()
    if db is not None:
        controller.open_project(str(Path(db)) if "://" not in db else db)
    elif not controller.reopen_last() and controller.demo is not None:
        controller.open_demo()
    return app.exec()
