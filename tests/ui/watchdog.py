"""A watchdog on the GUI thread for pytest-qt scenarios (issue 28: the GUI thread never
blocks; a scenario fails if it stalls over 50 ms).

A heartbeat timer fires on the GUI thread every few milliseconds; a stall is a gap between
two beats. A gap is the window's fault only for the time the GUI thread was not waiting
for a CPU: the time it spent in the run queue (Linux's /proc/self/task/TID/schedstat, the
second field) is taken off, so a machine busy with other processes does not fail the test,
while time spent computing, waiting for a lock, for the interpreter lock or for the disk
counts. A thread beside it notes where the GUI thread was (its Python stack) during a gap
that grows past the limit, so that a failure names the code that stalled.

It also notes every SQL statement the GUI thread itself sends to a project (an SQLAlchemy
engine event): the window runs its queries in workers (judgeapp.ui.ops), and a statement
on the GUI thread is a stall waiting to happen at a larger size.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTimer
from sqlalchemy import event
from sqlalchemy.engine import Engine

BEAT_MS = 4
LIMIT_MS = 50.0


def _schedstat(tid: int) -> tuple[int, int] | None:
    """(ns on a CPU, ns waiting in the run queue) of thread `tid`, or None off Linux."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as fh:
            on_cpu, waiting, _slices = fh.read().split()
        return int(on_cpu), int(waiting)
    except (OSError, ValueError):
        return None


@dataclass
class Stall:
    wall_ms: float  # the gap between two beats
    queued_ms: float  # of which the GUI thread waited for a CPU
    where: str  # the GUI thread's stack seen during the gap ("" if not seen)

    @property
    def ms(self) -> float:
        return self.wall_ms - self.queued_ms


@dataclass
class GuiWatchdog:
    limit_ms: float = LIMIT_MS
    beats: int = 0
    gaps: list[float] = field(default_factory=list)  # every gap, ms, queue time taken off
    stalls: list[Stall] = field(default_factory=list)  # gaps over the limit
    statements: list[str] = field(default_factory=list)  # SQL sent from the GUI thread
    worst: float = 0.0

    def __post_init__(self) -> None:
        self._timer: QTimer | None = None
        self._last = 0.0
        self._last_queued = 0
        self._paused = 0
        self._tid = threading.get_native_id()
        self._gui = threading.main_thread().ident
        self._seen: str = ""
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._started = 0.0

    # -- running ---------------------------------------------------------------------------
    def start(self) -> None:
        assert threading.current_thread() is threading.main_thread()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(BEAT_MS)
        self._timer.timeout.connect(self._beat)
        self._reset_beat()
        self._timer.start()
        event.listen(Engine, "before_cursor_execute", self._on_statement)
        self._stop.clear()
        self._watcher = threading.Thread(target=self._watch, name="gui-watchdog", daemon=True)
        self._watcher.start()
        self._started = time.perf_counter()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        with contextlib.suppress(Exception):
            event.remove(Engine, "before_cursor_execute", self._on_statement)
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(1)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The test's own work on the GUI thread (setting up, reading the store to check
        a result) is not the window's: neither its gaps nor its statements count."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            self._reset_beat()

    def _reset_beat(self) -> None:
        self._last = time.perf_counter()
        stat = _schedstat(self._tid)
        self._last_queued = stat[1] if stat else 0
        self._seen = ""

    def _beat(self) -> None:
        now = time.perf_counter()
        stat = _schedstat(self._tid)
        queued = stat[1] if stat else 0
        if not self._paused:
            wall = (now - self._last) * 1000
            waited = (queued - self._last_queued) / 1e6
            gap = max(0.0, wall - waited)
            self.beats += 1
            self.gaps.append(gap)
            self.worst = max(self.worst, gap)
            if gap > self.limit_ms:
                self.stalls.append(Stall(wall, waited, self._seen))
        self._last, self._last_queued, self._seen = now, queued, ""

    def _watch(self) -> None:
        """Where the GUI thread is while a gap grows past the limit (once per gap)."""
        while not self._stop.wait(0.01):
            if self._paused or self._seen:
                continue
            late = (time.perf_counter() - self._last) * 1000
            if late > self.limit_ms:
                frame = sys._current_frames().get(self._gui)
                if frame is not None:
                    self._seen = "".join(traceback.format_stack(frame, limit=12))

    def _on_statement(self, _conn, _cursor, statement, *_args) -> None:
        if self._paused or threading.current_thread() is not threading.main_thread():
            return
        self.statements.append(statement.strip().splitlines()[0][:120])

    # -- what it saw -----------------------------------------------------------------------
    def percentile(self, q: float) -> float:
        if not self.gaps:
            return 0.0
        ordered = sorted(self.gaps)
        return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def report(self) -> str:
        lines = [
            f"{self.beats} beats in {time.perf_counter() - self._started:.1f} s; worst gap "
            f"{self.worst:.1f} ms, 99th percentile {self.percentile(99):.1f} ms; "
            f"{len(self.stalls)} over {self.limit_ms:.0f} ms; load {os.getloadavg()[0]:.2f}"
        ]
        for stall in self.stalls[:5]:
            lines.append(
                f"-- a stall of {stall.ms:.0f} ms ({stall.wall_ms:.0f} ms of wall time, "
                f"{stall.queued_ms:.0f} of them waiting for a CPU), the GUI thread at:\n"
                + (stall.where or "(not seen)")
            )
        if self.statements:
            lines.append(f"-- {len(self.statements)} SQL statements on the GUI thread, first:")
            lines.extend(f"   {s}" for s in self.statements[:10])
        return "\n".join(lines)

    def check(self) -> None:
        """Fail when the GUI thread stalled over the limit or sent SQL itself."""
        assert not self.stalls and not self.statements, self.report()
