"""Active judging time: gaps up to a minute count, longer idle gaps count nothing."""

from __future__ import annotations

import pytest

from judgeapp.services.timing import IDLE_LIMIT, ActiveTimer


def test_busy_assessor_counts_every_second():
    timer = ActiveTimer()
    timer.start(100.0)
    for t in (105.0, 130.0, 160.0):
        timer.touch(t)
    assert timer.take(170.0) == pytest.approx(70.0)


def test_idle_gap_over_a_minute_is_not_counted():
    timer = ActiveTimer()
    timer.start(0.0)
    timer.touch(10.0)  # 10 s reading
    timer.touch(10.0 + IDLE_LIMIT + 0.5)  # away for just over a minute: nothing
    assert timer.take(20.0 + IDLE_LIMIT + 0.5) == pytest.approx(10.0 + 10.0)


def test_gap_of_exactly_the_limit_still_counts():
    timer = ActiveTimer(idle_limit=60.0)
    timer.start(0.0)
    assert timer.take(60.0) == pytest.approx(60.0)


def test_take_restarts_from_zero_for_the_next_document():
    timer = ActiveTimer()
    timer.start(0.0)
    assert timer.take(5.0) == pytest.approx(5.0)
    timer.touch(7.0)
    assert timer.take(8.0) == pytest.approx(3.0)


def test_events_before_start_or_out_of_order_are_ignored():
    timer = ActiveTimer()
    timer.touch(3.0)  # nothing shown yet
    assert timer.elapsed(10.0) == 0.0
    timer.start(10.0)
    timer.touch(9.0)  # a late event from before the document appeared
    assert timer.take(12.0) == pytest.approx(2.0)
