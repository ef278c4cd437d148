"""judgeapp.forked: results in order from forked processes, errors at their item's turn,
children gone when the consumer stops; work shared out from a queue (ForkedAhead)."""

from __future__ import annotations

import os
import time

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


def _large_result(args: tuple[str, int]) -> bytes:
    """300 KB, about what a run of 50 topics x 1000 documents is pickled; a file named
    after the item says it was computed."""
    folder, x = args
    open(os.path.join(folder, str(x)), "w").close()
    return bytes(300_000)


def test_a_child_runs_a_few_large_results_ahead_while_the_consumer_works(tmp_path):
    """A child's pipe holds a few results of 300 KB (forked.PIPE_BYTES): while the consumer
    works on the first, the child computes and sends the next ones. With Linux's default
    pipe (64 KiB) it waited at its first result, then at each one, until the consumer came to
    it (evaluate's reader idled while runs were evaluated)."""
    items = [(str(tmp_path), x) for x in range(12)]
    dealt = owners(len(items), 2)
    childs = {x for (_, x), k in zip(items, dealt, strict=True) if k == 1}
    results = forked_map(_large_result, items, processes=2)
    assert len(next(results)) == 300_000  # this process's item; the child is under way
    deadline = time.monotonic() + 20
    done: set[int] = set()
    while time.monotonic() < deadline and len(done) < 3:
        done = {int(name) for name in os.listdir(tmp_path)} & childs
        time.sleep(0.01)
    assert len(done) >= 3, f"the child computed only {sorted(done)} of {sorted(childs)}"
    assert [len(r) for r in results] == [300_000] * 11


def test_one_item_or_one_process_is_a_plain_loop():
    assert list(forked_map(square_with_pid, [4], processes=4)) == [(16, os.getpid())]
    assert {p for _, p in forked_map(square_with_pid, [1, 2], processes=1)} == {os.getpid()}


# -- ForkedAhead: children that take items ahead while this process works, then it joins -
PARENT = os.getpid()


def step(done: list[tuple[int, int]], x: int) -> None:
    """Square x, noting the process that did it (x 7 is a malformed run, x 9 a bug)."""
    done.append(square_with_pid(x))


def slow_step(done: list[tuple[int, int]], x: int) -> None:
    time.sleep(0.02)
    step(done, x)


def die_on_five(done: list[tuple[int, int]], x: int) -> None:
    if x == 5 and os.getpid() != PARENT:
        os._exit(3)  # a child killed before it sends its part
    step(done, x)


def parts_of(ahead: ForkedAhead) -> list[tuple[list[int], list[tuple[int, int]]]]:
    return ahead.results()


def test_ahead_every_item_is_done_once_children_from_the_front_this_process_the_back():
    before = _children()
    items = [1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13, 14]
    with ForkedAhead(list, slow_step, tuple, items, children=2) as ahead:
        time.sleep(0.1)  # this process's other work: the children take the first items
        parts = parts_of(ahead)
    assert sorted(i for done, _ in parts for i in done) == list(range(len(items)))
    for done, results in parts:  # a part: its items' results, in the order it took them
        assert [v for v, _ in results] == [items[i] * items[i] for i in done]
        assert len({p for _, p in results}) == 1
    mine = [done for done, results in parts if results[0][1] == os.getpid()]
    theirs = [done for done, results in parts if results[0][1] != os.getpid()]
    assert len(theirs) == 2 and all(done == sorted(done) for done in theirs)
    if mine:  # from the back: the last items, the last first
        assert mine[0] == sorted(mine[0], reverse=True)
        assert min(mine[0]) > max(i for done in theirs for i in done)
    assert 0 in theirs[0] + theirs[1]
    assert _children() == before


def test_ahead_takes_items_in_the_order_given():
    items = list(range(20, 30))
    order = [9, 0, 8, 1, 7, 2, 6, 3, 5, 4]
    with ForkedAhead(list, slow_step, tuple, items, order=order, children=1) as ahead:
        time.sleep(0.05)
        parts = parts_of(ahead)
    child = next(done for done, results in parts if results[0][1] != os.getpid())
    assert child == order[: len(child)]  # from the front of the order
    here = [done for done, results in parts if results[0][1] == os.getpid()]
    assert not here or here[0] == order[len(child) :][::-1]  # the back, the last first


def test_ahead_raises_a_childs_error_once_the_children_ended():
    before = _children()
    with ForkedAhead(list, step, tuple, list(range(12)), children=2) as ahead:
        with pytest.raises((FormatError, KeyError)) as err:
            parts_of(ahead)
    if err.type is FormatError:
        assert str(err.value) == "run7.txt:3: score 'abc' is not a number"
    assert _children() == before


def test_ahead_raises_this_processs_error_and_the_children_stop():
    before = _children()
    with ForkedAhead(list, step, tuple, [7, 1, 2, 3], children=0) as ahead:
        with pytest.raises(FormatError):
            parts_of(ahead)
    with ForkedAhead(list, slow_step, tuple, [1, 2, 3, 4, 5, 6, 8, 7], children=1) as ahead:
        with pytest.raises(FormatError):  # 7, the last, is this process's first
            parts_of(ahead)
    assert _children() == before


def test_ahead_does_here_what_a_dead_child_did_not_send():
    items = [5, 0, 1, 2, 3, 4, 6, 8]  # the child's first item kills it
    with ForkedAhead(list, die_on_five, tuple, items, children=1) as ahead:
        parts = parts_of(ahead)
    assert len(parts) == 1  # the child died: every item is done here, none twice
    done, results = parts[0]
    assert sorted(done) == list(range(len(items)))  # 5 too: the child took it, then died
    assert sorted(results) == sorted((x * x, os.getpid()) for x in items)


def test_ahead_left_unread_leaves_no_child():
    before = _children()
    with ForkedAhead(list, slow_step, tuple, list(range(6)), children=2):
        pass  # e.g. the project failed to open: the children are stopped
    assert _children() == before


def test_ahead_without_children_does_every_item_here_in_order():
    with ForkedAhead(list, step, tuple, [1, 2, 3], children=0) as ahead:
        assert parts_of(ahead) == [([0, 1, 2], tuple((x * x, os.getpid()) for x in (1, 2, 3)))]
