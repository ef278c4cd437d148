"""Waiting in Qt's event loop, for the benchmarks that time a window.

The GUI thread waits in Qt's event loop, sleeping until an event comes, as it does in use: a
Python loop spinning processEvents(), or a fast timer waking it, would take the interpreter
lock from a worker thread again and again. The benchmarks take their times in the event
handlers (paints), so waking late costs nothing; a 50 ms timer is only a safety net.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class EventWait:
    """`until(condition, seconds)` and `idle(seconds)` for `app`, while the object lives."""

    def __init__(self, app) -> None:
        from PySide6.QtCore import QTimer

        self.app = app
        self.ticker = QTimer()
        self.ticker.start(50)

    def until(self, condition: Callable[[], bool], seconds: float = 60.0) -> bool:
        """Process events until `condition()` holds (True) or `seconds` pass (False)."""
        from PySide6.QtCore import QEventLoop

        end = time.perf_counter() + seconds
        while not condition():
            if time.perf_counter() > end:
                return False
            self.app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        return True

    def idle(self, seconds: float) -> None:
        """Process events for `seconds`."""
        end = time.perf_counter() + seconds
        self.until(lambda: time.perf_counter() >= end, seconds + 1)
