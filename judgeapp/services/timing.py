"""Active time spent on a judgment.

The assessor is *active* while input events (key presses, mouse presses, wheel turns, mouse
moves) reach the judging view. Time counts from the moment a document is shown: each gap
between two consecutive events (the first gap starting when the document appeared, the last
one ending with the grade key) counts in full when it is at most `idle_limit` seconds (one
minute by default) and not at all when it is longer: somebody who looked away for more than
a minute was not judging, and we cannot tell when during the gap they stopped. Reading a
long document without touching anything for over a minute therefore loses that minute; the
assessor who scrolls or moves the mouse now and then keeps it.

No Qt here: the view feeds events in with `touch(now)`; `now` is any monotonic clock in
seconds (time.monotonic in the app, a number in tests).
"""

from __future__ import annotations

IDLE_LIMIT = 60.0


class ActiveTimer:
    """Active seconds since `start`, by the rule in the module docstring."""

    def __init__(self, idle_limit: float = IDLE_LIMIT) -> None:
        self.idle_limit = idle_limit
        self._last: float | None = None
        self._active = 0.0

    @property
    def running(self) -> bool:
        return self._last is not None

    def start(self, now: float) -> None:
        """A document appeared: count from zero."""
        self._last = now
        self._active = 0.0

    def touch(self, now: float) -> None:
        """An input event at `now`."""
        if self._last is None:
            return
        gap = now - self._last
        if 0.0 <= gap <= self.idle_limit:
            self._active += gap
        self._last = max(self._last, now)

    def elapsed(self, now: float) -> float:
        """Active seconds so far, if the next event came at `now`."""
        if self._last is None:
            return 0.0
        gap = now - self._last
        return self._active + (gap if 0.0 <= gap <= self.idle_limit else 0.0)

    def take(self, now: float) -> float:
        """Active seconds up to `now` (the grade key), and start again from zero."""
        spent = self.elapsed(now)
        self.start(now)
        return spent
