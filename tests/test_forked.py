"""judgeapp.forked: results in order from forked processes, errors at their item's turn,
children gone when the consumer stops."""

from __future__ import annotations

import os

import pytest

from judgeapp.forked import ForkedAhead, forked_map, owners
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
    # each item computed by the process owners() deals it to: 0 this one, k child k
    dealt = owners(7, 3)
    assert dealt[0] == 0 and sorted(set(dealt)) == [0, 1, 2]
    by_owner = {k: {p for p, o in zip(pids, dealt, strict=True) if o == k} for k in (0, 1, 2)}
    assert by_owner[0] == {os.getpid()}
    assert all(len(by_owner[k]) == 1 for k in (1, 2))
    assert len(by_owner[0] | by_owner[1] | by_owner[2]) == 3
    assert _children() == before  # all reaped


def test_this_process_takes_a_little_less_than_an_equal_share():
    dealt = owners(100, 2)
    assert dealt[0] == 0 and 40 <= dealt.count(0) < 50
    dealt = owners(99, 3)
    assert 25 <= dealt.count(0) < 33 and abs(dealt.count(1) - dealt.count(2)) <= 1


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


# -- ForkedAhead: children that read ahead while this process works -----------------------
def die_on_five(x: int) -> tuple[int, int]:
    if x == 5 and os.getpid() != PARENT:
        os._exit(3)  # a child killed before it sends item 5
    return x * x, os.getpid()


PARENT = os.getpid()


def test_ahead_results_come_in_order_computed_by_the_children():
    before = _children()
    with ForkedAhead(square_with_pid, list(range(7)), children=2) as ahead:
        out = list(ahead.results())
    assert [v for v, _ in out] == [x * x for x in range(7)]
    pids = {p for _, p in out}
    assert len(pids) == 2 and os.getpid() not in pids  # this process computed none
    assert _children() == before


def test_ahead_raises_an_error_at_its_items_turn_as_in_a_loop():
    before = _children()
    seen = []
    with ForkedAhead(square_with_pid, list(range(12)), children=3) as ahead:
        with pytest.raises(FormatError) as err:
            for value, _ in ahead.results():
                seen.append(value)
    assert seen == [x * x for x in range(7)]
    assert str(err.value) == "run7.txt:3: score 'abc' is not a number"
    assert _children() == before


def test_ahead_computes_here_what_a_dead_child_did_not_send():
    with ForkedAhead(die_on_five, list(range(9)), children=2) as ahead:
        out = list(ahead.results())
    assert [v for v, _ in out] == [x * x for x in range(9)]
    # item 5 and the dead child's later item (7) came from this process
    assert out[5][1] == os.getpid() and out[7][1] == os.getpid()
    assert out[4][1] != os.getpid()


def test_ahead_left_unread_leaves_no_child():
    before = _children()
    with ForkedAhead(square_with_pid, list(range(6)), children=2):
        pass  # e.g. the project failed to open: the children are stopped
    assert _children() == before


def test_ahead_without_children_is_a_plain_loop():
    with ForkedAhead(square_with_pid, [1, 2, 3], children=0) as ahead:
        assert list(ahead.results()) == [(x * x, os.getpid()) for x in (1, 2, 3)]
