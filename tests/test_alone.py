"""The suite's two processes keep out of an `alone` test's way (tests/conftest.py): while
the other process runs a test, an `alone` test waits; while it runs, no other test starts."""

from __future__ import annotations

import multiprocessing
import threading
import time

from tests.conftest import _room


def _hold_shared(run, entered, release) -> None:
    with _room(run, alone=False):
        entered.set()
        release.wait(30)


def test_an_alone_test_waits_for_the_test_running_beside_it(tmp_path):
    context = multiprocessing.get_context("spawn")
    entered, release = context.Event(), context.Event()
    other = context.Process(target=_hold_shared, args=(tmp_path, entered, release))
    other.start()
    try:
        assert entered.wait(30)
        released_at = None

        def let_go() -> None:
            nonlocal released_at
            time.sleep(0.5)
            released_at = time.monotonic()
            release.set()

        threading.Thread(target=let_go).start()
        with _room(tmp_path, alone=True):
            entered_at = time.monotonic()
        assert released_at is not None and entered_at >= released_at
    finally:
        release.set()
        other.join(30)


def test_no_test_starts_while_an_alone_test_runs(tmp_path):
    context = multiprocessing.get_context("spawn")
    entered, release = context.Event(), context.Event()
    with _room(tmp_path, alone=True):
        other = context.Process(target=_hold_shared, args=(tmp_path, entered, release))
        other.start()
        assert not entered.wait(1.0)  # the other test is kept waiting
    assert entered.wait(30)  # and starts once the alone test ends
    release.set()
    other.join(30)
