"""The GUI-thread watchdog of the TREC-scale scenarios (tests/ui/watchdog.py) catches what
it is there to catch: a GUI thread busy past the limit, and SQL sent from the GUI thread;
and it does not blame the window for the test's own paused work."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import create_engine, text

from tests.ui.watchdog import GuiWatchdog

pytestmark = pytest.mark.alone  # measures the GUI thread's gaps (tests/conftest.py)


def busy(ms: float) -> None:
    """The GUI thread on a CPU for `ms` milliseconds of its own CPU time (what the
    window's code does when it computes; a machine busy with other processes stretches
    the wall time, which the watchdog does not hold against the window)."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


@pytest.fixture
def dog(qtbot):
    watchdog = GuiWatchdog(fail_ms=100)
    watchdog.start()
    qtbot.wait(50)
    yield watchdog
    watchdog.stop()


def test_a_busy_gui_thread_fails_the_check(qtbot, dog):
    busy(180)
    qtbot.wait(40)
    assert dog.worst > 150
    with pytest.raises(AssertionError, match="over 100 ms"):
        dog.check()


def test_a_stall_over_the_target_is_counted_but_fails_only_past_the_failing_limit(qtbot, dog):
    busy(70)
    qtbot.wait(40)
    assert dog.stalls and all(s.ms < 100 for s in dog.stalls)
    dog.check()  # reported, not failing
    assert "over 50 ms" in dog.report()


def test_sql_from_the_gui_thread_fails_the_check(qtbot, dog, tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    engine.dispose()
    assert dog.statements == ["SELECT 1"]
    with pytest.raises(AssertionError, match="SQL statements on the GUI thread"):
        dog.check()


def test_paused_work_is_not_the_window_s(qtbot, dog, tmp_path):
    with dog.paused():
        busy(150)
        engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
    qtbot.wait(40)
    assert not dog.stalls and not dog.statements
    dog.check()
