"""judgeapp.forked: results in order from forked processes, errors at their item's turn,
children gone when the consumer stops."""

from __future__ import annotations

import os

import pytest

from judgeapp.forked import forked_map
from judgeapp.formats.errors import FormatError


def _children() -> set[int]:
    pid = os.getpid()
    found: set[int] = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            found |= {int(x) for x in f.read().split()}
    return found


def square_with_pid(x: int) -> tuple[int, int]:
    if x == 7:
        raise FormatError("run7.txt", 3, "score 'abc' is not a number")
    if x == 9:
        raise KeyError(x)
    return x * x, os.getpid()


def test_results_come_in_order_from_every_process():
    before = _children()
    out = list(forked_map(square_with_pid, list(range(7)), processes=3))
    assert [v for v, _ in out] == [x * x for x in range(7)]
    pids = [p for _, p in out]
    # item i by process i % 3: this one for 0, 3, 6, a child each for the others
    assert pids[0] == pids[3] == pids[6] == os.getpid()
    assert len({pids[1], pids[4]}) == 1 and len({pids[2], pids[5]}) == 1
    assert len({pids[0], pids[1], pids[2]}) == 3
    assert _children() == before  # all reaped


@pytest.mark.parametrize("processes", [1, 2, 3])
def test_an_error_is_raised_at_its_items_turn_as_in_a_loop(processes):
    before = _children()
    seen = []
    with pytest.raises(FormatError) as err:
        for value, _ in forked_map(square_with_pid, list(range(12)), processes=processes):
            seen.append(value)
    assert seen == [x * x for x in range(7)]
    assert str(err.value) == "run7.txt:3: score 'abc' is not a number"
    assert (err.value.path, err.value.line, err.value.byte) == ("run7.txt", 3, None)
    assert _children() == before


def test_a_consumer_that_stops_early_leaves_no_child():
    before = _children()
    results = forked_map(square_with_pid, list(range(6)), processes=3)
    assert next(results)[0] == 0
    results.close()
    assert _children() == before


def test_one_item_or_one_process_is_a_plain_loop():
    assert list(forked_map(square_with_pid, [4], processes=4)) == [(16, os.getpid())]
    assert {p for _, p in forked_map(square_with_pid, [1, 2], processes=1)} == {os.getpid()}
