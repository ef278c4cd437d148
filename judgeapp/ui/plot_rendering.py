"""The dashboard's full plot draws, done by a child process (judgeapp.ui.plot_child) and
shown by the window when they come back: the GUI thread pickles the figure (3-6 ms) and
later copies the picture into the canvas (under 1 ms) and draws the animated artists over
it, as every live update does; the child does the rest (40-60 ms of CPU a plot, and its
first draw's fonts, 400-500 ms) without the GUI thread's interpreter lock.

One child serves the whole application (`shared()`, a child object of the QApplication),
started when the first plot is to be drawn (its start-up, matplotlib and the fonts, 1-2 s of
CPU, would otherwise compete with every window built, tests' windows included, whose plots
are never shown); that first picture comes when the child is ready. One request is out at a time; a plot asking again while its request
is out or waiting is asked once, with the figure as it is when its turn comes. An answer to
an older request than the plot's last is dropped (the plot has changed since: its next
picture is on the way). Where no child can run (it failed to start, it died, or
JUDGEAPP_PLOTS_IN_PROCESS=1), the plots are drawn in the window's process, on the GUI thread,
as before.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import traceback
import weakref
from collections import OrderedDict
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QObject, Signal

from judgeapp.ui.plot_child import Picture, Request, receive, render, send

IN_PROCESS = os.environ.get("JUDGEAPP_PLOTS_IN_PROCESS") == "1"


class Drawn(Protocol):
    """What a plot offers the renderer (judgeapp.ui.dashboard.plots.LivePlot)."""

    def render_request(self) -> Request | None: ...

    def show_picture(self, picture: Picture) -> None: ...


class PlotRenderer(QObject):
    _answered = Signal(object)  # a Picture, or None when the child ended (its reader thread)
    _spawned = Signal(object)  # the child's Popen once started, or None if it could not be

    def __init__(self, parent: QObject | None = None, in_process: bool = IN_PROCESS) -> None:
        super().__init__(parent)
        self._answered.connect(self._on_answered)
        self._spawned.connect(self._on_spawned)
        self._starting = False  # the child is being started (by its reader thread)
        self._plots: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self._waiting: OrderedDict[int, None] = OrderedDict()  # plots to draw, in order
        self._out: int | None = None  # the plot whose request is with the child
        self._child: subprocess.Popen[bytes] | None = None
        self._ready = threading.Event()
        self._failed = in_process
        self.rendered = 0  # pictures drawn by the child
        self.in_process = 0  # pictures drawn on the GUI thread (no child)
        self.dropped = 0  # answers to an older request than the plot's last
        self.child_cpu_ms = 0.0

    # -- the child -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the child (it loads matplotlib and its fonts meanwhile); nothing if it runs.
        It is started by its reader thread: a process started from the GUI thread held it
        until the new process had run up to its exec (`_fork_exec`: 0.25-0.3 s of wall time
        under load, tests/ui/test_trec_scale.py's watchdog); requests wait for it meanwhile."""
        if self._child is not None or self._failed or self._starting:
            return
        self._starting = True
        self._ready.clear()
        threading.Thread(target=self._run, name="plot child", daemon=True).start()
        atexit.register(self.stop)

    def _run(self) -> None:
        """The reader thread: starts the child, then reads its answers."""
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "judgeapp.ui.plot_child"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": _import_path()},
            )
        except OSError:
            self._spawned.emit(None)
            return
        self._spawned.emit(child)
        self._read(child)

    def _on_spawned(self, child: subprocess.Popen[bytes] | None) -> None:
        self._starting = False
        if child is None:  # it cannot run: the plots are drawn here
            self._gone()
            return
        if self._failed:  # stopped while it started
            _end(child)
            return
        self._child = child
        self._next()

    def stop(self) -> None:
        """End the child (its input closed, it leaves; killed if it does not within 2 s)."""
        child, self._child = self._child, None
        if child is None:
            if self._starting:
                self._failed = True  # the child that comes is ended (`_on_spawned`)
            return
        self._failed = True  # what is asked later is drawn here
        _end(child)

    def _read(self, child: subprocess.Popen[bytes]) -> None:
        """The child's answers, handed to the GUI thread (a queued signal)."""
        assert child.stdout is not None
        try:
            if receive(child.stdout) == "ready":
                self._ready.set()
                while (picture := receive(child.stdout)) is not None:
                    self._answered.emit(picture)
        except Exception:  # a broken answer: the child is of no use any more
            traceback.print_exc()
        if self._child is child:
            self._answered.emit(None)  # it died: the rest is drawn here

    # -- asking for pictures -------------------------------------------------------------------
    def draw(self, plot: Drawn) -> None:
        """Draw `plot` in full when its turn comes (with the figure as it then is)."""
        key = id(plot)
        self._plots[key] = plot
        if self._failed:
            self.draw_now(plot)
            return
        self.start()
        self._waiting[key] = None
        self._next()

    def draw_now(self, plot: Drawn) -> None:
        """Draw `plot` in full at once, on the GUI thread (a screenshot; no child)."""
        request = plot.render_request()
        if request is not None:
            self.in_process += 1
            plot.show_picture(render(request))

    def _next(self) -> None:
        while self._out is None and self._waiting and self._child is not None:
            key, _ = self._waiting.popitem(last=False)
            plot = self._plots.get(key)
            request = plot.render_request() if plot is not None else None
            if request is None:
                continue
            request.plot = key
            try:
                assert self._child.stdin is not None
                send(self._child.stdin, request)
            except (OSError, ValueError):
                self._gone()
                return
            self._out = key

    def _on_answered(self, picture: Picture | None) -> None:
        if picture is None:
            self._gone()
            return
        self._out = None
        self.child_cpu_ms += picture.cpu_ms
        plot = self._plots.get(picture.plot)
        try:
            if plot is not None:
                if picture.error:
                    print(f"a plot's draw failed in the child:\n{picture.error}", file=sys.stderr)
                    self.draw_now(plot)
                else:
                    self.rendered += 1
                    plot.show_picture(picture)
        finally:
            self._next()  # whatever became of this one, the others are drawn

    def _gone(self) -> None:
        """The child ended or cannot be reached: draw here from now on."""
        self.stop()
        self._failed = True
        waiting = [
            self._plots.get(k) for k in ([self._out] if self._out else []) + [*self._waiting]
        ]
        self._out = None
        self._waiting.clear()
        for plot in waiting:
            if plot is not None:
                self.draw_now(plot)

    def idle(self) -> bool:
        return self._out is None and not self._waiting

    def wait_ready(self, timeout: float) -> bool:
        return self._ready.wait(timeout)


def _end(child: subprocess.Popen[bytes]) -> None:
    """Close the child's input (it leaves); kill it if it does not within 2 s."""
    try:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(2)
    except (OSError, subprocess.TimeoutExpired):
        child.kill()
        child.wait()


def shared(start: bool = True) -> PlotRenderer:
    """The application's renderer (one child for every plot), made and started the first
    time; stopped when the application quits."""
    app = QCoreApplication.instance()
    found = app.findChild(PlotRenderer, "plot renderer") if app is not None else None
    if found is None:
        found = PlotRenderer(app)
        found.setObjectName("plot renderer")
        if app is not None:
            app.aboutToQuit.connect(found.stop)
    if start:
        found.start()
    return found


def _import_path() -> str:
    """The child imports the same judgeapp as the window (a checkout before the installed one)."""
    import judgeapp

    root = os.path.dirname(os.path.dirname(os.path.abspath(judgeapp.__file__)))
    rest = os.environ.get("PYTHONPATH", "")
    return root + (os.pathsep + rest if rest else "")
