"""How the window reaches the project: every store query and every write runs off the GUI
thread, and its result comes back to the view on the GUI thread (anki's QueryOp and
CollectionOp: qt/aqt/operations). The GUI thread then never waits for the database, however
large the project, and a slow query (a search of 500,000 documents, a topic's queue) holds
up no key.

- `ops.read(fn, done, key=...)` runs a query in the reading pool (two threads: a search of
  the collection does not hold up the next document). `key` names what the result is for
  ("topic rows", "pool search"): reading the same key again makes every earlier read of it
  stale, and a stale result is dropped, never handed to the view (generation numbers, as
  pyside's mandelbrot example and glue's compute worker tag their work).
- `ops.write(fn, done)` runs a change in the writing lane: one at a time, in the order they
  were asked for (a grade, then its note), each committed before its `done` runs.
- `ops.read(..., lane="dashboard")` runs in a lane of its own instead, one at a time in
  order: for work on an object that is not for two threads at once (the dashboard's live
  evaluation, a judging order's model, the estimates).
- A failure goes to `failed(exc)` if given, else to `on_error(what, exc)`.
- `ops.after_paint(widget, fn)` runs `fn` on the GUI thread once `widget` has been
  painted: what follows a grade key (the dashboard, the topic list, the estimates and the
  workers they start) waits until the frame with the next document is on screen, instead
  of delaying it. It counts as running for `idle()`.
- `ops.when_quiet(fn)` runs `fn` on the GUI thread once the window is quiet: no read or
  write running outside the BACKGROUND lanes, no paint awaited, and what the callback before
  it started done. Work that nobody waits for (the dashboard's full evaluation, the topic
  list's estimates, the pool's text index) starts there, one after another, so that its
  Python does not share the interpreter lock with the GUI thread while the GUI thread takes
  a result in and paints it (a project's opening: its topic list, then its last topic; then
  each of these results). A callback waiting counts as running for `idle()`.
- `forget()` drops every result still to come (another project is opened); `idle()` says
  whether anything is still running or waiting to be delivered (tests, screenshots, closing).

Long jobs with progress and Cancel (imports, pools) run in a `Worker` of their own too (the
same runnable, shown by a dialog); what is here is for the short ones the user does not
watch.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QEvent, QObject, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QWidget

from judgeapp.ui.worker import Worker

READERS = 2
# lanes of work nobody waits for: what they bring follows the judging (the dashboard, the
# estimates, a judging order's model, other processes' changes); `idle(background=False)`
# leaves them out
BACKGROUND = frozenset({"dashboard", "dashboard analysis", "estimates", "training", "feed"})
# how long work waiting for a paint (`after_paint`) waits at most: a widget that is not
# repainted (covered, or nothing on it changed) holds nothing up for longer
PAINT_WAIT_MS = 100


class Ops(QObject):
    failed = Signal(str, object)  # (what, exception) of an op that had no failure handler
    settled = Signal()  # nothing running any more
    _every: ClassVar[weakref.WeakSet[Ops]] = weakref.WeakSet()

    def __init__(self, parent: QObject | None = None, readers: int = READERS) -> None:
        super().__init__(parent)
        Ops._every.add(self)
        self.read_pool = QThreadPool(self)
        self.read_pool.setMaxThreadCount(readers)
        self.write_pool = QThreadPool(self)
        self.write_pool.setMaxThreadCount(1)  # writes run one at a time, in order
        self._lanes: dict[str, QThreadPool] = {"write": self.write_pool}
        self._generation: dict[str, int] = {}
        self._epoch = 0
        self._closed = False
        self._running: dict[Worker, str | None] = {}  # -> its lane (None: the readers)
        self.on_error: Callable[[str, BaseException], None] | None = None
        self.dropped = 0  # stale results not delivered
        self.done = 0  # results delivered
        self._painting: dict[QWidget, _AfterPaint] = {}  # work waiting for a widget's paint
        self._quiet_waiting: list[Callable[[], None]] = []  # work waiting for `when_quiet`
        self._quiet_posted = False  # a check of `when_quiet`'s callbacks is posted
        self._in_quiet_callback = False
        self._quiet_jobs: set[Worker] = set()  # started by a `when_quiet` callback, running

    # -- running -------------------------------------------------------------------------------
    def read(
        self,
        fn: Callable[..., Any],  # takes the progress function when `cancellable`
        done: Callable[[Any], None] | None = None,
        *,
        key: str | None = None,
        failed: Callable[[BaseException], None] | None = None,
        what: str = "",
        lane: str | None = None,
        cancellable: bool = False,
        finished: Callable[[], None] | None = None,
    ) -> Worker:
        """Run the query `fn` in the reading pool (or in `lane`); `done(result)` on the GUI
        thread unless `key` was read again meanwhile. With `cancellable`, `fn` takes the
        worker's progress function, which raises `Cancelled` once `cancel()` is called on
        the worker returned. `finished()` follows every outcome, stale ones too."""
        pool = self.read_pool if lane is None else self.lane(lane)
        what = what or key or lane or "read"
        return self._run(pool, fn, done, key, failed, what, cancellable, finished, lane)

    def lane(self, name: str) -> QThreadPool:
        """The one-thread pool `name` (made when first asked for)."""
        pool = self._lanes.get(name)
        if pool is None:
            pool = self._lanes[name] = QThreadPool(self)
            pool.setMaxThreadCount(1)
        return pool

    def write(
        self,
        fn: Callable[[], Any],
        done: Callable[[Any], None] | None = None,
        *,
        failed: Callable[[BaseException], None] | None = None,
        what: str = "",
    ) -> Worker:
        """Run the change `fn` in the writing lane (after every write asked for before it);
        `done(result)` on the GUI thread once it is committed."""
        return self._run(
            self.write_pool, fn, done, None, failed, what or "write", False, None, "write"
        )

    def _run(
        self,
        pool: QThreadPool,
        fn: Callable[..., Any],
        done: Callable[[Any], None] | None,
        key: str | None,
        failed: Callable[[BaseException], None] | None,
        what: str,
        cancellable: bool,
        after: Callable[[], None] | None,
        lane: str | None,
    ) -> Worker:
        if self._closed:  # the window closed: nothing runs for it any more
            return Worker(lambda _progress: None, what)
        generation = 0
        if key is not None:
            generation = self._generation[key] = self._generation.get(key, 0) + 1
        epoch = self._epoch
        worker = Worker(fn if cancellable else (lambda _progress: fn()), what)

        def fresh() -> bool:
            if epoch != self._epoch or (key is not None and self._generation[key] != generation):
                self.dropped += 1
                return False
            return True

        def succeeded(result: Any) -> None:
            if fresh():
                self.done += 1
                if done is not None:
                    done(result)

        def errored(exc: BaseException) -> None:
            if not fresh():
                return
            if failed is not None:
                failed(exc)
            elif self.on_error is not None:
                self.on_error(what, exc)
            else:
                self.failed.emit(what, exc)

        def finished() -> None:
            try:
                if after is not None:
                    after()
            finally:
                self._running.pop(worker, None)
                self._quiet_jobs.discard(worker)
                self._maybe_quiet()
                if not self._running:
                    self.settled.emit()

        worker.signals.succeeded.connect(succeeded)
        worker.signals.failed.connect(errored)
        worker.signals.finished.connect(finished)
        self._running[worker] = lane
        if self._in_quiet_callback:
            self._quiet_jobs.add(worker)
        worker.start(pool)
        return worker

    def after_paint(self, widget: QWidget, fn: Callable[[], None]) -> None:
        """Run `fn` on the GUI thread once `widget` has been painted (at once when it is not
        visible; after PAINT_WAIT_MS at the latest), after the whole frame that painted it
        is done. Until then the ops are not idle."""
        waiter = self._painting.get(widget)
        if waiter is None:
            waiter = self._painting[widget] = _AfterPaint(widget, self)
        waiter.add(fn)

    def _painted(self) -> None:
        self._maybe_quiet()
        if not self._running and not self.waiting_for_paint():
            self.settled.emit()

    def when_quiet(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the GUI thread once nothing runs outside the BACKGROUND lanes, no
        paint is awaited, the events already posted (the repaints that follow a frame) are
        handled and the ops the callback before it started are done: soon if so now, else
        after the last of them. Callbacks run one at a time, in the order asked for. Until
        then the ops are not idle."""
        self._quiet_waiting.append(fn)
        self._maybe_quiet()

    def _maybe_quiet(self) -> None:
        if self._quiet_waiting and not self._quiet_posted and self._foreground_quiet():
            self._quiet_posted = True  # after the events posted before now
            QTimer.singleShot(0, self, self._run_quiet)

    def _run_quiet(self) -> None:
        self._quiet_posted = False
        if self._closed or not self._foreground_quiet():
            return  # what runs now calls _maybe_quiet again when it is done
        fn = self._quiet_waiting.pop(0)
        self._in_quiet_callback = True  # the ops it starts: the next callback waits for them
        try:
            fn()
        except Exception:  # reported as a slot's error is; the others still start
            sys.excepthook(*sys.exc_info())
        finally:
            self._in_quiet_callback = False
        self._maybe_quiet()  # the next, once what this one started is done

    def _foreground_quiet(self) -> bool:
        return (
            not self._quiet_jobs
            and not self.waiting_for_paint()
            and all(lane in BACKGROUND for lane in self._running.values())
        )

    def waiting_for_paint(self) -> bool:
        return any(waiter.waiting for waiter in self._painting.values())

    # -- state ---------------------------------------------------------------------------------
    def stale(self, key: str, generation: int) -> bool:
        return self._generation.get(key, 0) != generation

    def generation(self, key: str) -> int:
        return self._generation.get(key, 0)

    def invalidate(self, *keys: str) -> None:
        """Make every result still to come for `keys` stale (what they were for is gone)."""
        for key in keys:
            self._generation[key] = self._generation.get(key, 0) + 1

    def forget(self) -> None:
        """Drop every result still to come (what they were for is gone)."""
        self._epoch += 1

    def idle(self, background: bool = True) -> bool:
        """Nothing running, nothing waiting to be delivered (`background`: in the lanes
        of BACKGROUND too)."""
        if self.waiting_for_paint() or self._quiet_waiting:
            return False
        if background:
            return not self._running
        return all(lane in BACKGROUND for lane in self._running.values())

    @classmethod
    def all_idle(cls, background: bool = False) -> bool:
        """Every window's ops idle (screenshots, tests: what was asked is on screen); the
        background lanes too with `background`."""
        return all(ops.idle(background) for ops in list(cls._every))

    def close(self, ms: int = 30_000) -> None:
        """The window closes: wait for the running ops (their results are dropped; the
        writes asked for are committed) and start none any more."""
        self._closed = True
        self.forget()
        self._quiet_waiting.clear()
        self._quiet_jobs.clear()
        for waiter in self._painting.values():  # the window that would paint is going
            waiter.timer.stop()
            waiter.waiting.clear()
        for pool in (self.read_pool, *self._lanes.values()):
            pool.waitForDone(ms)


class _AfterPaint(QObject):
    """The work waiting for one widget's next paint (`Ops.after_paint`)."""

    def __init__(self, widget: QWidget, ops: Ops) -> None:
        super().__init__(widget)
        self.widget = widget
        self.ops = ops
        self.waiting: list[Callable[[], None]] = []
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.run)
        widget.installEventFilter(self)

    def add(self, fn: Callable[[], None]) -> None:
        self.waiting.append(fn)
        if not self.widget.isVisible():
            QTimer.singleShot(0, self, self.run)  # no paint is coming
        elif not self.timer.isActive():
            self.timer.start(PAINT_WAIT_MS)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.waiting:
            # posted now, delivered once the frame being painted is complete and shown
            QTimer.singleShot(0, self, self.run)
        return False

    def run(self) -> None:
        self.timer.stop()
        waiting, self.waiting = self.waiting, []
        try:
            for fn in waiting:
                fn()
        finally:
            self.ops._painted()
