"""A watchdog on the GUI thread for pytest-qt scenarios (issue 28: the GUI thread never
blocks; a scenario fails if it stalls over 50 ms).

A heartbeat timer fires on the GUI thread every few milliseconds; a stall is a gap between
two beats. A gap is the window's fault only for the time nobody in the process was waiting
for a CPU: the time the process's threads spent in the run queue (Linux's
/proc/self/task/TID/schedstat, the second field) is taken off, so a machine busy with
other processes does not fail the test (the GUI thread itself waiting for a CPU, or
waiting for the interpreter lock while the worker holding it waits for one), while time
counts. A thread beside it notes every thread's Python stack once a gap grows past the
limit, so that a failure names the code that stalled; it needs the interpreter lock for
that, so a gap in which something held the lock the whole time is "not seen". With
JUDGEAPP_WATCHDOG_STACKS=1 Python's faulthandler (a C thread, which needs no lock) writes
them instead: for diagnosis only, as reading the stacks of running threads without the
lock can crash the process.

It also notes every SQL statement the GUI thread itself sends to a project (an SQLAlchemy
engine event): the window runs its queries in workers (judgeapp.ui.ops), and a statement
on the GUI thread is a stall waiting to happen at a larger size.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTimer
from sqlalchemy import event
from sqlalchemy.engine import Engine

BEAT_MS = 10
FAULTHANDLER = os.environ.get("JUDGEAPP_WATCHDOG_STACKS") == "1"
LIMIT_MS = 50.0


def _queued() -> tuple[int, int]:
    """(ns the GUI thread, ns every other thread of the process) waited in the run queue
    so far (0, 0 off Linux)."""
    me, others = 0, 0
    gui = threading.main_thread().native_id
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 0, 0
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as fh:
                waiting = int(fh.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if int(tid) == gui:
            me = waiting
        else:
            others += waiting
    return me, others


@dataclass
class Stall:
    wall_ms: float  # the gap between two beats
    queued_ms: float  # of which the process's threads waited for a CPU
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
        self._last_queued = (0, 0)
        self._paused = 0
        self._dumps = tempfile.TemporaryFile("w+")  # faulthandler's stacks of a gap
        self._read = 0
        self._started = 0.0
        self._gui = threading.main_thread().ident
        self._sampled = ""  # the watcher thread's stacks of the gap going on
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

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
        self._started = time.perf_counter()
        if not FAULTHANDLER:
            self._stop.clear()
            self._watcher = threading.Thread(target=self._watch, name="watchdog", daemon=True)
            self._watcher.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if FAULTHANDLER:
            faulthandler.cancel_dump_traceback_later()
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(1)
        with contextlib.suppress(Exception):
            event.remove(Engine, "before_cursor_execute", self._on_statement)

    def _watch(self) -> None:
        """Every thread's stack while a gap grows past the limit (once a gap)."""
        while not self._stop.wait(0.01):
            if self._paused or self._sampled:
                continue
            if (time.perf_counter() - self._last) * 1000 > self.limit_ms:
                names = {t.ident: t.name for t in threading.enumerate()}
                seen = []
                for ident, frame in sys._current_frames().items():
                    if ident != threading.get_ident():
                        gui = " (the GUI thread)" if ident == self._gui else ""
                        seen.append(f"Thread {names.get(ident, ident)}{gui}:")
                        seen.extend(traceback.format_stack(frame, limit=8))
                self._sampled = "".join(seen)

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
        self._last_queued = _queued()
        self._arm()

    def _arm(self) -> None:
        """The stacks are written if the next beat is later than the limit."""
        self._sampled = ""
        if FAULTHANDLER:
            faulthandler.cancel_dump_traceback_later()
            if not self._paused:
                faulthandler.dump_traceback_later(self.limit_ms / 1000, file=self._dumps)

    def _seen(self) -> str:
        """The stacks seen during the gap that ends."""
        if not FAULTHANDLER:
            return self._sampled
        self._dumps.flush()
        self._dumps.seek(self._read)
        text = self._dumps.read()
        self._read = self._dumps.tell()
        return text

    def _beat(self) -> None:
        now = time.perf_counter()
        queued = _queued()
        if not self._paused:
            wall = (now - self._last) * 1000
            mine = (queued[0] - self._last_queued[0]) / 1e6
            others = (queued[1] - self._last_queued[1]) / 1e6
            waited = min(wall, mine + others)
            gap = max(0.0, wall - waited)
            self.beats += 1
            self.gaps.append(gap)
            self.worst = max(self.worst, gap)
            seen = self._seen() if wall > self.limit_ms else ""
            if gap > self.limit_ms:
                self.stalls.append(Stall(wall, waited, seen))
        self._last, self._last_queued = now, queued
        self._arm()

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
                f"-- a stall of {stall.ms:.0f} ms ({stall.wall_ms:.0f} ms of wall time, the "
                f"process's threads {stall.queued_ms:.0f} ms waiting for a CPU), the GUI "
                "thread at:\n" + ("\n".join(stall.where.splitlines()[:60]) or "(not seen)")
            )
        if self.statements:
            lines.append(f"-- {len(self.statements)} SQL statements on the GUI thread, first:")
            lines.extend(f"   {s}" for s in self.statements[:10])
        return "\n".join(lines)

    def check(self) -> None:
        """Fail when the GUI thread stalled over the limit or sent SQL itself."""
        assert not self.stalls and not self.statements, self.report()
