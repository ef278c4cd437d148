"""Training fusion on judged topics, as ranx trains it (ranx.optimize_fusion).

What is learnt from the training topics' judgments (a document is relevant from grade 1):

- ``posfuse``, ``slidefuse``: per run, the probability that the document at place p is
  relevant (the share of training topics whose p-th document is relevant, among those the
  run retrieved p documents for);
- ``probfuse``: per run and segment k (each topic's ranking cut into S segments of
  ceil(len / S) documents), the share of relevant documents in the segment, averaged over
  the training topics;
- ``segfuse``: the same for fixed segments 5, 10, 20, 40, ... documents long (a segment's
  share counted over its full length);
- ``bayesfuse``: per run, log(P / (1 - P)) for the bands 1-5, 6-10, 11-15, 16-20, 21-30,
  31-100, 101-200, 201-500, 501-1000, P the precision in the band averaged over topics
  (0 and 1 moved 0.001 inwards);
- ``mapfuse``: each run's MAP.

Parameters chosen by trying every candidate and keeping the best score of the fused
training topics (the last of equal bests, as ranx): weights on ranx's grid (``step``,
summing to 1) for wsum, mixed, wmnz, w_bordafuse, w_condorcet (or judgeapp's coordinate
search); rrf's k in 10, 20, ..., 100; gmnz's gamma, logn_isr's sigma, rbc's phi in 0.01,
0.02, ..., 1; probfuse's segments and slidefuse's window in 1..100.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from judgeapp.fusion import (
    TRAINED_METHODS,
    WEIGHTED,
    Fusion,
    Topic,
    fuse_prepared,
    method_name,
    prepared,
    weight_grid,
)
from judgeapp.records import RankedTopic, RunFile

BANDS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
TUNED = ("rrf", "gmnz", "logn_isr", "rbc", "probfuse", "slidefuse", *WEIGHTED)


@dataclass(frozen=True, slots=True)
class Choice:
    fusion: Fusion
    score: float  # the measure on the fused training topics (NaN when nothing was tuned)
    tried: int


def hit_lists(topics: Mapping[str, Topic], qrels: Mapping[str, Mapping[str, int]]) -> list:
    """Per run, one 0/1 array per training topic: is the document at each place relevant."""
    runs = next(iter(topics.values())).place.shape[0] if topics else 0
    out: list[list[np.ndarray]] = [[] for _ in range(runs)]
    for qid, t in topics.items():
        judged = qrels.get(qid, {})
        rel = np.array([judged.get(d, 0) >= 1 for d in t.docs], dtype=np.float64)
        for r in range(runs):
            have = np.flatnonzero(t.place[r] >= 0)
            hits = np.zeros(int(t.lengths[r]))
            hits[t.place[r, have]] = rel[have]
            out[r].append(hits)
    return out


def by_place(hits: Sequence[np.ndarray]) -> np.ndarray:
    """P(relevant | place): over the topics with a document there."""
    depth = max((h.size for h in hits), default=0)
    found, seen = np.zeros(depth), np.zeros(depth)
    for h in hits:
        found[: h.size] += h
        seen[: h.size] += 1
    return found / np.maximum(seen, 1)


def by_segment(hits: Sequence[np.ndarray], segments: int) -> np.ndarray:
    probs = np.zeros(segments)
    for h in hits:
        size = math.ceil(h.size / segments)
        for k in range(segments):
            part = h[k * size : (k + 1) * size]
            if part.size:
                probs[k] += part.mean()
    return probs / max(len(hits), 1)


def by_fixed_segment(hits: Sequence[np.ndarray]) -> np.ndarray:
    from judgeapp.fusion import SEGMENTS

    probs = np.zeros(SEGMENTS.size - 1)
    for h in hits:
        for k in range(probs.size):
            lo, hi = int(SEGMENTS[k]), int(SEGMENTS[k + 1])
            probs[k] += h[lo:hi].sum() / (hi - lo)
    return probs / max(len(hits), 1)


def log_odds(hits: Sequence[np.ndarray]) -> np.ndarray:
    odds = np.zeros(BANDS[-1])
    for lo, hi in itertools.pairwise(BANDS):
        p = sum(h[lo:hi].sum() / (hi - lo) for h in hits) / max(len(hits), 1)
        p = p if p != 0 else 0.001
        q = 1 - p if p != 1 else 0.001
        odds[lo:hi] = math.log(p / q)
    return odds


def one_run(layout: Mapping[str, Topic], r: int) -> RunFile:
    """Run ``r`` of a layout on its own, in its order, scored n..1 (for evaluation)."""
    topics = {}
    for qid, t in layout.items():
        have = np.flatnonzero(t.place[r] >= 0)
        ranked = have[np.argsort(t.place[r, have])]
        n = ranked.size
        topics[qid] = RankedTopic(
            [t.docs[i] for i in ranked.tolist()],
            np.arange(n, 0, -1, dtype=np.float64),
            np.arange(1, n + 1),
        )
    return RunFile("", f"run{r}", topics, 0)


def _tuple(x: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in x.tolist())


def _candidates(base: Fusion, runs: int, step: float, hits: list) -> list[Fusion]:
    m = base.method
    grid = [round(x, 2) for x in np.arange(0.01, 1.0 + 0.01, 0.01).tolist()]
    if m == "rrf":
        return [replace(base, k=float(k)) for k in range(10, 101, 10)]
    if m == "gmnz":
        return [replace(base, gamma=g) for g in grid]
    if m == "logn_isr":
        return [replace(base, sigma=s) for s in grid if s <= 1]
    if m == "rbc":
        return [replace(base, phi=p) for p in grid if p < 1]
    if m == "probfuse":
        return [
            replace(base, trained=tuple(_tuple(by_segment(h, s)) for h in hits))
            for s in range(1, 101)
        ]
    if m == "slidefuse":
        probs = tuple(_tuple(by_place(h)) for h in hits)
        return [replace(base, trained=probs, window=w) for w in range(1, 101)]
    return [replace(base, weights=w) for w in weight_grid(runs, step)]


def bare(spec: Mapping[str, object]) -> Fusion:
    """A Fusion from keyword ``spec``, with placeholders where training fills in."""
    fill: dict[str, object] = dict(spec)
    m = method_name(str(fill.get("method", "rrf")))
    if m in TRAINED_METHODS and fill.get("trained") is None:
        fill["trained"] = ()
    if m == "gmnz" and fill.get("gamma") is None:
        fill["gamma"] = 1.0
    if m == "rbc" and fill.get("phi") is None:
        fill["phi"] = 0.5
    if m == "slidefuse" and fill.get("window") is None:
        fill["window"] = 1
    return Fusion(**fill)  # type: ignore[arg-type]


def train(
    runs: Sequence[RunFile],
    base: Fusion,
    qrels: Mapping[str, Mapping[str, int]],
    topics: Sequence[str],
    score_of: Callable[[RunFile], float],
    map_of: Callable[[RunFile], float],
    *,
    depth: int = 0,
    search: Literal["grid", "coordinate"] = "grid",
    step: float = 0.1,
) -> Choice:
    """Train ``base.method`` (made with :func:`bare`) on ``topics`` (those of ``qrels`` to use): learn what it
    learns, try its candidates and keep the best ``score_of`` of the fused training topics
    (cut to ``depth``, as the fused run is written). ``map_of`` gives one run's MAP
    (mapfuse)."""
    m = base.method
    if m not in TUNED and m not in TRAINED_METHODS:
        raise ValueError(
            f"{m} has nothing to train; these do: {', '.join((*TUNED, *TRAINED_METHODS))}"
        )
    layout = prepared(runs, base, topics)
    hits = hit_lists(layout, qrels)
    if m in ("posfuse", "segfuse", "bayesfuse", "mapfuse"):
        trained: tuple[tuple[float, ...], ...]
        if m == "mapfuse":
            trained = tuple((map_of(one_run(layout, r)),) for r in range(len(runs)))
        else:
            learn = {"posfuse": by_place, "segfuse": by_fixed_segment, "bayesfuse": log_odds}[m]
            trained = tuple(_tuple(learn(h)) for h in hits)
        f = replace(base, trained=trained)
        return Choice(f, score_of(fuse_prepared(layout, f, depth=depth)), 0)
    if m in WEIGHTED and search == "coordinate":
        return _coordinate(layout, base, len(runs), score_of, depth, step)
    best: Choice | None = None
    candidates = _candidates(base, len(runs), step, hits)
    if not candidates:
        raise ValueError(f"no weights on a grid of step {step} sum to 1")
    for f in candidates:
        s = score_of(fuse_prepared(layout, f, depth=depth))
        if best is None or s >= best.score:  # the last of equal bests, as ranx keeps
            best = Choice(f, s, 0)
    assert best is not None
    return Choice(best.fusion, best.score, len(candidates))


def _coordinate(
    layout: dict,
    base: Fusion,
    n: int,
    score_of: Callable[[RunFile], float],
    depth: int,
    step: float,
) -> Choice:
    """judgeapp's coordinate search: from equal weights, one weight at a time over the
    grid, while the score improves."""
    ticks = round(1.0 / step)
    f = replace(base, weights=tuple([1.0 / n] * n))
    best = Choice(f, score_of(fuse_prepared(layout, f, depth=depth)), 1)
    tried = 1
    improved = True
    while improved:
        improved = False
        for i in range(n):
            for tick in range(ticks + 1):
                w = list(best.fusion.weights or ())
                w[i] = tick / ticks
                f = replace(base, weights=tuple(w))
                s = score_of(fuse_prepared(layout, f, depth=depth))
                tried += 1
                if s > best.score + 1e-12:
                    best, improved = Choice(f, s, tried), True
    return Choice(best.fusion, best.score, tried)
