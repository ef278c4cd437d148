"""Judging a whole pool in an order, for the order tests."""

from __future__ import annotations


def judge_all(order, relevant: set[int]) -> list[int]:
    """Judge every document `order` proposes (relevant: grade 1, else 0); the sequence."""
    seen = []
    while (doc := order.next_doc()) is not None:
        seen.append(doc)
        order.record(doc, int(doc in relevant), doc in relevant)
    return seen
