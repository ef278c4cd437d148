"""Ideal rankings for the gain-based measures (nDCG and its trec_eval relatives).

The gain of each grade (gain_init.c: listed grades with their gains, then grades 0..max
with gain = grade), the discount, and the ideal ranking of one topic as gain_init.c and
m_ndcg.c build it, down to the order of gain_init.c's qsort for gains less than 1 apart.
:class:`BatchIdeal` looks the ideal DCG up per row of a batch. No measure is defined here:
the families using it are in :mod:`judgeapp.measures.families.gain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np


def gain_lookup(grades: np.ndarray, gains: tuple[tuple[int, float], ...] | None) -> np.ndarray:
    """Gain of each grade: the given gain for listed grades, else the grade (negative: 0)."""
    out = np.maximum(grades, 0).astype(np.float64)
    if gains:
        for level, gain in gains:
            out[grades == level] = gain
    return out


GainT = TypeVar("GainT", np.ndarray, np.float64)


def transform_gain(gain: GainT, dcg: str) -> GainT:
    if dcg == "exp-log2":
        return np.exp2(gain) - 1.0
    return gain


def discount(rank0: np.ndarray, dcg: str) -> np.ndarray:
    """Discount for 0-based ranks: log2(rank + 1); Jarvelin-Kekalainen: max(1, log2(rank))."""
    if dcg == "jk":
        return np.maximum(1.0, np.log2(rank0 + 1.0))
    return np.log2(rank0 + 2.0)


@dataclass(slots=True)
class Ideal:
    """The ideal ranking of one topic: positive gains, best first."""

    gains: np.ndarray
    prefix: np.ndarray  # prefix[i] = ideal DCG of the first i documents (prefix[0] = 0)
    top_gain: float  # the highest gain any listed grade has (trec_eval starts from it)


def _c_gain_order(entries: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """gain_init.c's qsort of the gain list, with its comparator ``(int)(g1 - g2)``: gains
    less than 1 apart compare equal and keep their list order. glibc sorts such small arrays
    with a stable top-down merge sort, reproduced here (entries: (gain, count))."""
    if len(entries) <= 1:
        return list(entries)
    half = len(entries) // 2
    left, right = _c_gain_order(entries[:half]), _c_gain_order(entries[half:])
    out: list[tuple[float, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if int(left[i][0] - right[j][0]) <= 0:  # C truncates the difference toward zero
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def build_ideal(grades: np.ndarray, gains: tuple | None, dcg: str) -> Ideal:
    """The ideal ranking as gain_init.c and m_ndcg.c build it from a topic's judged grades
    (>= 0): the listed grades (in the order given) then grades 0..max, each with its gain and
    number of judged documents, sorted by gain; walked from the top, it stops at the first
    gain <= 0 it reaches."""
    counts = np.bincount(grades) if grades.size else np.zeros(0, dtype=np.int64)
    listed: list[list[float]] = [[level, gain, 0] for level, gain in (gains or ())]
    for level in range(counts.size):
        found = next((e for e in listed if e[0] == level), None)
        if found is not None:
            found[2] = int(counts[level])
        else:
            listed.append([level, float(level), int(counts[level])])
    entries = [(float(transform_gain(np.float64(g), dcg)), int(n)) for _, g, n in listed]
    ordered = _c_gain_order(entries)
    top = ordered[-1][0] if ordered else 0.0
    seq: list[float] = []
    for gain, count in reversed(ordered):
        if count == 0:
            continue
        if gain <= 0:
            break
        seq.extend([gain] * count)
    positive = np.array(seq, dtype=np.float64)
    terms = positive / discount(np.arange(positive.size), dcg)
    prefix = np.concatenate(([0.0], np.cumsum(terms)))  # cumsum adds in order
    return Ideal(positive, prefix, top)


class BatchIdeal:
    """The ideal rankings of the topics of a batch, looked up per row."""

    def __init__(self, ideals: Sequence[Ideal], row_topic: np.ndarray) -> None:
        self.ideals = ideals
        self.row_topic = row_topic
        self.size = np.array([i.gains.size for i in ideals], dtype=np.int64)
        lengths = self.size + 1
        self.offset = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.flat = np.concatenate([i.prefix for i in ideals]) if ideals else np.zeros(1)

    def at(self, topic: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Ideal DCG of the first n documents for the given topics (broadcasting)."""
        n = np.minimum(n, self.size[topic])
        return self.flat[self.offset[topic] + n]

    def rows_size(self) -> np.ndarray:
        return self.size[self.row_topic]

    def rows_total(self) -> np.ndarray:
        return self.at(self.row_topic, self.rows_size())
