"""Long work off the GUI thread: a QRunnable running one core function.

The core reports through `progress(done, total, message)` callbacks; the worker turns each
call into a `progress` signal and, once the user pressed Cancel, raises `Cancelled` from
inside the callback. The core function then unwinds and its transaction rolls back, so a
cancelled import leaves the project exactly as it was.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from judgeapp.services.progress import Cancelled, ProgressFn


class WorkerSignals(QObject):
    progressed = Signal(int, int, str)  # done, total (-1: unknown), message
    succeeded = Signal(object)  # the function's return value
    failed = Signal(object)  # the exception (Cancelled when the user cancelled)
    finished = Signal()  # always last, after succeeded or failed


class Worker(QRunnable):
    """Runs `fn(progress)` on the global thread pool."""

    def __init__(self, fn: Callable[[ProgressFn], Any], description: str = "") -> None:
        super().__init__()
        self.setAutoDelete(False)  # the owner keeps it (and its signals) alive
        self.fn = fn
        self.description = description
        self.signals = WorkerSignals()
        self._cancel = threading.Event()
        self.traceback = ""
        self.result: Any = None
        self.error: BaseException | None = None

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _progress(self, done: int, total: int | None, message: str) -> None:
        if self._cancel.is_set():
            raise Cancelled(self.description or "cancelled")
        self.signals.progressed.emit(int(done), -1 if total is None else int(total), message)

    def run(self) -> None:
        try:
            if self._cancel.is_set():
                raise Cancelled(self.description or "cancelled")
            # a cancel that arrives after the last progress call is too late: the work
            # is committed and reported as done
            self.result = self.fn(self._progress)
        except Exception as exc:  # reported to the GUI thread, never lost
            self.traceback = traceback.format_exc()
            self.error = exc
            self._emit(self.signals.failed, exc)
        else:
            self._emit(self.signals.succeeded, self.result)
        finally:
            self._emit(self.signals.finished)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:
            pass  # the window (and the signals object) went away while the work ran

    def start(self, pool: QThreadPool | None = None) -> None:
        (pool or QThreadPool.globalInstance()).start(self)
