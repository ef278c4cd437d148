"""How long-running core work reports progress and learns it should stop.

Core functions take an optional `progress(done, total, message)` callback. The CLI turns it
into a tqdm bar; the GUI's worker turns it into a signal, and raises `Cancelled` from inside
the callback when the user pressed Cancel, which unwinds the work and rolls back its
transaction.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[int, int | None, str], None]


class Cancelled(Exception):
    """The user stopped the work; nothing of it was kept."""


def no_progress(_done: int, _total: int | None, _message: str) -> None:
    return None
