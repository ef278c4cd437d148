"""Long work of the main window (imports, pooling, building the demo) in a `Worker`, one at
a time, whose `TaskDialog` shows its progress and can cancel it: a cancelled or failed task
says so in its dialog and changes nothing; a task done closes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QThreadPool

from judgeapp.services.progress import Cancelled, ProgressFn
from judgeapp.ui.dialogs import TaskDialog
from judgeapp.ui.worker import Worker


class TaskRunner:
    def __init__(self, thread_pool: QThreadPool, finished: Callable[[Worker], None]) -> None:
        """`finished(worker)`: once a task is done, with its result or error."""
        self.thread_pool = thread_pool
        self.finished = finished
        self.worker: Worker | None = None  # the task running

    def run(
        self,
        dialog: TaskDialog,
        fn: Callable[[ProgressFn], Any],
        on_done: Callable[[Any], None],
        description: str,
    ) -> Worker:
        worker = Worker(fn, description)
        self.worker = worker
        dialog.set_running(True)
        dialog.cancel_requested.connect(worker.cancel)
        worker.signals.progressed.connect(dialog.set_progress)

        def succeeded(result: Any) -> None:
            dialog.set_running(False)
            on_done(result)
            dialog.accept()

        def failed(exc: BaseException) -> None:
            dialog.set_running(False)
            if isinstance(exc, Cancelled):
                dialog.show_message("Cancelled: nothing was changed.")
            else:
                dialog.show_error(str(exc) or type(exc).__name__)

        def finished() -> None:
            self.worker = None
            self.finished(worker)

        worker.signals.succeeded.connect(succeeded)
        worker.signals.failed.connect(failed)
        worker.signals.finished.connect(finished)
        worker.start(self.thread_pool)
        return worker

    def cancel_and_wait(self) -> None:
        """The window closes: the task running is cancelled, and waited for."""
        if self.worker is not None:
            self.worker.cancel()
            self.thread_pool.waitForDone()
