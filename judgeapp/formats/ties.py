"""How documents with equal scores are ranked: the rule of each tool, selectable.

Every tool sorts a topic by score, descending; they differ in the order of equal scores
(docs/interop.md has the table):

- ``trec_eval``: docno descending, in byte order (trec_eval's form_res_rels.c; pytrec_eval
  and ir_measures' pytrec_eval provider do the same). judgeapp's default.
- ``docno``: docno ascending (trec_eval's own preference measures, ir_measures' judged and
  compat providers, which sort by docno before sorting by score).
- ``file``: the order the run gives them (its lines, or a dict's order): a stable sort by
  score, as ir_measures' cwl_eval and pyndeval providers do (Python's ``sorted``).
- ``ranx``: the order ranx leaves them in. ranx sorts each topic with numba's
  ``np.argsort`` of the negated scores, taken in the order the documents were added (the
  file's, for a file). That sort is numba's quicksort, which is not stable: spans of 16 or
  more are split around a median-of-three pivot, shorter spans are insertion-sorted.
  :func:`ranx_argsort` is that algorithm written out, so that the permutation, ties
  included, is the same (tests/fusion/test_ties.py checks it against numba itself).

A document listed twice in a topic keeps its first place (a dict's rule, as ranx and
ir_measures read files); trec_eval and judgeapp's readers refuse such a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from judgeapp.records import RankedTopic, RunFile

Ties = Literal["trec_eval", "docno", "file", "ranx"]
TIES: tuple[str, ...] = ("trec_eval", "docno", "file", "ranx")

_SMALL = 15  # numba's quicksort insertion-sorts spans up to this many elements (high - low)


def check(ties: str) -> str:
    if ties not in TIES:
        raise ValueError(f"unknown tie order {ties!r} ({', '.join(TIES)})")
    return ties


def ranx_argsort(keys: Sequence[float]) -> list[int]:
    """Positions that sort ``keys`` ascending, in exactly the order numba's quicksort
    ``np.argsort`` gives (equal keys included)."""
    a = list(keys)
    r = list(range(len(a)))
    if len(a) < 2:
        return r
    pending = [(0, len(a) - 1)]
    while pending:
        low, high = pending.pop()
        while high - low >= _SMALL:
            p = _split(a, r, low, high)
            # the larger side waits on the stack, the smaller is split next
            if high - p > p - low:
                if high > p:
                    pending.append((p + 1, high))
                high = p - 1
            else:
                if p > low:
                    pending.append((low, p - 1))
                low = p + 1
        _insertion(a, r, low, high)
    return r


def _insertion(a: list[float], r: list[int], low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        moving = r[i]
        v = a[moving]
        j = i
        while j > low and v < a[r[j - 1]]:
            r[j] = r[j - 1]
            j -= 1
        r[j] = moving


def _split(a: list[float], r: list[int], low: int, high: int) -> int:
    """Partition r[low..high] around the median of its first, middle and last keys; the
    pivot's final place."""
    mid = (low + high) >> 1
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    if a[r[high]] < a[r[mid]]:
        r[high], r[mid] = r[mid], r[high]
    if a[r[mid]] < a[r[low]]:
        r[low], r[mid] = r[mid], r[low]
    pivot = a[r[mid]]
    r[high], r[mid] = r[mid], r[high]  # the pivot waits at the end
    i, j = low, high - 1
    while True:
        while i < high and a[r[i]] < pivot:
            i += 1
        while j >= low and pivot < a[r[j]]:
            j -= 1
        if i >= j:
            break
        r[i], r[j] = r[j], r[i]
        i += 1
        j -= 1
    r[i], r[high] = r[high], r[i]
    return i


def order(docnos: Sequence[str], scores: np.ndarray, ties: str) -> np.ndarray:
    """The ranking of one topic given in input order (``docnos``, ``scores``): positions
    into the input, best first, equal scores ordered by ``ties``."""
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.size
    if n < 2:
        return np.arange(n)
    if ties == "file":
        return np.argsort(-scores, kind="stable")
    if ties == "ranx":
        by_score = np.argsort(-scores, kind="stable")
        s = scores[by_score]
        if not (s[1:] == s[:-1]).any():
            return by_score  # no ties: every sort agrees
        return np.asarray(ranx_argsort((-scores).tolist()), dtype=np.int64)
    # docno order among equal scores: byte order, as trec_eval compares (code points for
    # text that is valid UTF-8 compare the same way)
    names = np.array([d.encode("utf-8", "surrogateescape") for d in docnos], dtype=object)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(n)
    if ties == "trec_eval":
        return np.lexsort((-rank, -scores))
    if ties == "docno":
        return np.lexsort((rank, -scores))
    raise ValueError(f"unknown tie order {ties!r} ({', '.join(TIES)})")


def in_file_order(t: RankedTopic) -> tuple[list[str], np.ndarray, np.ndarray]:
    """A reader's topic (trec_eval order) back in the order of its lines."""
    back = np.argsort(t.lines, kind="stable")
    return [t.docnos[i] for i in back.tolist()], t.scores[back], t.lines[back]


def reorder(run: RunFile, ties: str, *, rescore: bool = False) -> RunFile:
    """``run`` (as a reader gives it, in trec_eval order) with each topic ranked by the tie
    rule ``ties``. ``rescore`` replaces the scores by n, n-1, ..., 1, so that any later
    trec_eval-order sort (the evaluation engine's) keeps this ranking."""
    check(ties)
    if ties == "trec_eval" and not rescore:
        return run
    topics: dict[str, RankedTopic] = {}
    for qid, t in run.topics.items():
        docnos, scores, lines = in_file_order(t)
        o = order(docnos, scores, ties)
        ranked = [docnos[i] for i in o.tolist()]
        new_scores = np.arange(len(o), 0, -1, dtype=np.float64) if rescore else scores[o]
        topics[qid] = RankedTopic(ranked, new_scores, lines[o])
    return RunFile(run.path, run.tag, topics, run.n_lines)
