"""Pools of every topic, and judging a whole pool in an order, for the order tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from judgeapp.pooling import PoolTopic, depth_pool


def depth_pools(
    lists: Mapping[str, Mapping[str, np.ndarray]], qids: Iterable[str], depth: int = 100
) -> dict[str, PoolTopic]:
    """Each topic's depth-`depth` pool of every run in `lists` (run -> qid -> doc ids; a
    run without the topic adds nothing)."""
    names = list(lists)
    empty = np.empty(0, np.int64)
    return {q: depth_pool(q, names, [lists[r].get(q, empty) for r in names], depth) for q in qids}


def judge_all(order, relevant: set[int]) -> list[int]:
    """Judge every document `order` proposes (relevant: grade 1, else 0); the sequence."""
    seen = []
    while (doc := order.next_doc()) is not None:
        seen.append(doc)
        order.record(doc, int(doc in relevant), doc in relevant)
    return seen
