"""What every pooling strategy and the estimators work on: a topic's pooled documents
(`PoolTopic`, the stored arrays of `judgeapp.records.PoolRows` with what pooling asks of
them) and the candidates of the runs' lists, grouped by document (`Candidates`). Kept apart
from the strategies (judgeapp.pooling.pools) so that the estimators, which the "sample"
strategy uses, can read pools without importing the strategies back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from judgeapp.records import PoolRows


class PoolingError(ValueError):
    """Parameters that do not make a pool (unknown strategy, missing budget, ...)."""


@dataclass(frozen=True, slots=True)
class PoolTopic(PoolRows):
    """The pooled documents of one topic (the stored arrays of `PoolRows`), with what
    pooling asks of them."""

    @classmethod
    def of(cls, rows: PoolRows) -> PoolTopic:
        """The same arrays (not copied) as a `PoolTopic`."""
        if isinstance(rows, PoolTopic):
            return rows
        return cls(*(getattr(rows, f.name) for f in fields(PoolRows)))

    def index_of(self, doc_id: int) -> int:
        """Position of `doc_id` in `doc_ids`, or -1 when it is not pooled."""
        i = int(np.searchsorted(self.doc_ids, doc_id))
        return i if i < len(self.doc_ids) and self.doc_ids[i] == doc_id else -1

    def contributors(self, doc_id: int) -> list[tuple[str, int]]:
        """(run, rank) pairs that put `doc_id` in the pool."""
        i = self.index_of(doc_id)
        if i < 0:
            return []
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return [
            (self.runs[r], int(k))
            for r, k in zip(self.run_idx[lo:hi].tolist(), self.ranks[lo:hi].tolist(), strict=True)
        ]

    def unique_to(self) -> dict[str, np.ndarray]:
        """For each run, the pooled documents no other run contributed (Zobel's test)."""
        single = np.flatnonzero(self.n_runs == 1)
        owners = self.run_idx[self.offsets[single]]
        return {run: self.doc_ids[single[owners == i]] for i, run in enumerate(self.runs)}


def empty_topic(qid: str, runs: Sequence[str]) -> PoolTopic:
    return PoolTopic.empty(qid, runs)


@dataclass(slots=True)
class Candidates:
    """Every (document, run, rank) of the candidate lists, grouped by document."""

    doc_ids: np.ndarray  # unique, ascending
    offsets: np.ndarray
    run_idx: np.ndarray
    ranks: np.ndarray

    @property
    def best_rank(self) -> np.ndarray:
        if len(self.doc_ids) == 0:
            return np.empty(0, np.int32)
        return np.minimum.reduceat(self.ranks, self.offsets[:-1]).astype(np.int32)

    def per_doc_sum(self, values: np.ndarray) -> np.ndarray:
        if len(self.doc_ids) == 0:
            return np.empty(0)
        return np.add.reduceat(values, self.offsets[:-1])


def candidates(run_lists: Sequence[np.ndarray], depth: int | None) -> Candidates:
    docs, runs, ranks = [], [], []
    for i, ids in enumerate(run_lists):
        ids = np.asarray(ids)[:depth]
        docs.append(ids.astype(np.int64, copy=False))
        runs.append(np.full(len(ids), i, np.int32))
        ranks.append(np.arange(1, len(ids) + 1, dtype=np.int32))
    if not docs:
        none = np.empty(0, np.int32)
        return Candidates(np.empty(0, np.int64), np.zeros(1, np.int64), none, none)
    doc = np.concatenate(docs)
    run = np.concatenate(runs)
    rank = np.concatenate(ranks)
    order = np.lexsort((rank, run, doc))
    doc, run, rank = doc[order], run[order], rank[order]
    # A document listed twice by one run (trec_eval keeps both) counts once, at its best rank.
    keep = np.ones(len(doc), bool)
    keep[1:] = (doc[1:] != doc[:-1]) | (run[1:] != run[:-1])
    doc, run, rank = doc[keep], run[keep], rank[keep]
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]]) if len(doc) else np.empty(0, int)
    offsets = np.r_[starts, len(doc)].astype(np.int64)
    return Candidates(doc[starts], offsets, run, rank)


def subset(entries: Candidates, chosen: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sub-CSR of the chosen document positions (ascending)."""
    counts = np.diff(entries.offsets)[chosen]
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    idx = block_ranges(entries.offsets[chosen], counts)
    return entries.doc_ids[chosen], offsets, entries.run_idx[idx], entries.ranks[idx]


def block_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + c)`` for each start and count, without a Python loop."""
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, np.int64)
    ends = np.cumsum(counts)
    out = np.ones(total, np.int64)
    out[0] = starts[0]
    nonempty = counts > 0
    first = (ends - counts)[nonempty]
    s = starts[nonempty]
    c = counts[nonempty]
    # at each block start, jump from the previous block's last value to this block's start
    out[first[1:]] = s[1:] - (s[:-1] + c[:-1] - 1)
    return np.cumsum(out)
