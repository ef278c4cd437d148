"""Run fusion: many runs into one, and the weights that fuse best on training topics.

Per topic, each run's scores are first normalised (``none``, ``minmax``, ``zscore``,
``sum``, ``rank``), then combined over the union of the retrieved documents:

- ``combsum``: sum of the scores; ``combmnz``: that sum times the number of runs that
  retrieved the document; ``combanz``: the sum over that number; ``combmax`` /
  ``combmin``: the largest / smallest score (Fox and Shaw 1994);
- ``wsum``: sum of weight x score (a run that misses the document adds 0);
- ``rrf``: sum of 1 / (k + rank), k = 60 (Cormack et al. 2009);
- ``isr``: sum of 1 / rank^2, times the number of runs that retrieved it (Mourão et al.);
- ``borda``: a run gives n - i points to its i-th document (0-based), n the number of
  distinct documents of the topic, and (n - len + 1) / 2 to each one it missed (Aslam and
  Montague 2001).

These are ranx's definitions (its min-max, zmuv, sum and rank normalisations), and on runs
without tied scores the fused scores equal ranx.fuse's. Two differences, both for
trec_eval's sake: ranks (rrf, isr, borda, rank normalisation) follow trec_eval's order,
ties broken by docno descending (ranx keeps its own sort); and the fused run is written in
that order, ranked 1..n, as a TREC run every tool reads.

:func:`optimize` chooses wsum's weights (or rrf's k) on training topics by grid or
coordinate search, maximising a measure computed by judgeapp's engine.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from judgeapp.formats.model import RankedTopic, RunFile
from judgeapp.formats.runs import trec_order
from judgeapp.outputs import writing

Norm = Literal["none", "minmax", "zscore", "sum", "rank"]
METHODS = ("rrf", "combsum", "combmnz", "combmax", "combmin", "combanz", "borda", "isr", "wsum")
NORMS = ("none", "minmax", "zscore", "sum", "rank")
RANK_METHODS = ("rrf", "isr", "borda")
TINY = 1e-9  # ranx's floor on normalisation denominators


def normalise(scores: np.ndarray, norm: str) -> np.ndarray:
    """One run's scores for one topic (in trec_eval order) normalised."""
    if norm == "none" or scores.size == 0:
        return scores.astype(np.float64)
    if norm == "minmax":
        lo, hi = scores.min(), scores.max()
        return (scores - lo) / max(hi - lo, TINY)
    if norm == "zscore":
        return (scores - scores.mean()) / max(scores.std(), TINY)
    if norm == "sum":
        lo = scores.min()
        return (scores - lo) / max(scores.sum() - lo * scores.size, TINY)
    if norm == "rank":
        return 1.0 - np.arange(scores.size) / scores.size
    raise ValueError(f"unknown normalisation {norm!r} ({', '.join(NORMS)})")


@dataclass(frozen=True, slots=True)
class Fusion:
    method: str = "rrf"
    norm: str = "none"
    weights: tuple[float, ...] | None = None  # wsum (one per run)
    k: float = 60.0  # rrf

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown fusion method {self.method!r} ({', '.join(METHODS)})")
        if self.norm not in NORMS:
            raise ValueError(f"unknown normalisation {self.norm!r} ({', '.join(NORMS)})")


def _fuse_topic(topics: Sequence[RankedTopic | None], f: Fusion) -> tuple[list[str], np.ndarray]:
    present = [t for t in topics if t is not None and t.docnos]
    docs = sorted({d for t in present for d in t.docnos})
    where = {d: i for i, d in enumerate(docs)}
    n = len(docs)
    score = np.full((len(topics), n), np.nan)
    rank = np.full((len(topics), n), np.nan)
    for r, t in enumerate(topics):
        if t is None or not t.docnos:
            continue
        cols = np.fromiter((where[d] for d in t.docnos), np.int64, len(t.docnos))
        score[r, cols] = normalise(np.asarray(t.scores, dtype=np.float64), f.norm)
        rank[r, cols] = np.arange(1, len(t.docnos) + 1)
    have = ~np.isnan(score)
    count = have.sum(axis=0)
    filled = np.where(have, score, 0.0)
    m = f.method
    if m == "combsum":
        fused = filled.sum(axis=0)
    elif m == "combmnz":
        fused = filled.sum(axis=0) * count
    elif m == "combanz":
        fused = filled.sum(axis=0) / np.maximum(count, 1)
    elif m == "combmax":
        fused = np.where(have, score, -np.inf).max(axis=0)
    elif m == "combmin":
        fused = np.where(have, score, np.inf).min(axis=0)
    elif m == "wsum":
        weights = np.asarray(f.weights if f.weights is not None else [1.0] * len(topics))
        if weights.size != len(topics):
            raise ValueError(f"wsum needs {len(topics)} weights, one per run; got {weights.size}")
        fused = (weights[:, None] * filled).sum(axis=0)
    elif m == "rrf":
        fused = np.where(have, 1.0 / (f.k + np.nan_to_num(rank)), 0.0).sum(axis=0)
    elif m == "isr":
        fused = np.where(have, 1.0 / np.nan_to_num(rank, nan=1.0) ** 2, 0.0).sum(axis=0) * count
    else:  # borda
        lengths = np.array([0 if t is None else len(t.docnos) for t in topics], dtype=np.float64)
        points = np.where(have, n - (np.nan_to_num(rank) - 1), ((n - lengths + 1) / 2)[:, None])
        fused = points.sum(axis=0)
    return docs, fused


def fuse(runs: Sequence[RunFile], f: Fusion, *, tag: str = "fused", depth: int = 0) -> RunFile:
    """The fused run: every topic of any input run, documents in trec_eval order (score
    descending, docno descending), the first ``depth`` of them (0: all)."""
    qids = sorted(
        {q for r in runs for q in r.topics}, key=lambda q: q.encode("utf-8", "surrogateescape")
    )
    out: dict[str, RankedTopic] = {}
    for qid in qids:
        docs, scores = _fuse_topic([r.topics.get(qid) for r in runs], f)
        if not docs:
            continue
        ordered, sc, lines = trec_order(
            docs, scores, np.zeros(len(docs), np.int64), np.array([0, len(docs)])
        )
        if depth > 0:
            ordered, sc, lines = ordered[:depth], sc[:depth], lines[:depth]
        out[qid] = RankedTopic(list(ordered), sc, lines)
    return RunFile("", tag, out, sum(len(t.docnos) for t in out.values()))


def write_run(run: RunFile, path: str | os.PathLike[str]) -> int:
    """A TREC run file (qid Q0 docno rank score tag); returns the lines written."""
    n = 0
    with writing(path, newline="\n") as fh:  # whole or not at all
        for qid, t in run.topics.items():
            for i, (d, s) in enumerate(zip(t.docnos, t.scores.tolist(), strict=True)):
                fh.write(f"{qid} Q0 {d} {i + 1} {s!r} {run.tag}\n")
                n += 1
    return n


# -- choosing weights ---------------------------------------------------------------------------


def parse_topics(spec: str, available: Iterable[str]) -> list[str]:
    """Training topics: comma-separated qids and numeric ranges (``301-350,401``), or
    ``@FILE`` with one qid per line; only those the runs have are kept."""
    have = set(available)
    wanted: list[str] = []
    if spec.startswith("@"):
        with open(spec[1:], encoding="utf-8") as fh:
            wanted = [line.strip() for line in fh if line.strip()]
    else:
        for part in spec.split(","):
            part = part.strip()
            lo, dash, hi = part.partition("-")
            if dash and lo.isdigit() and hi.isdigit():
                wanted.extend(q for q in have if q.isdigit() and int(lo) <= int(q) <= int(hi))
            elif part:
                wanted.append(part)
    chosen = sorted(set(wanted) & have)
    if not chosen:
        raise ValueError(f"no run topic matches the training topics {spec!r}")
    return chosen


@dataclass(frozen=True, slots=True)
class Choice:
    fusion: Fusion
    score: float
    tried: int


def optimize(
    runs: Sequence[RunFile],
    base: Fusion,
    score_of: Callable[[RunFile], float],
    *,
    search: Literal["grid", "coordinate"] = "grid",
    step: float = 0.1,
) -> Choice:
    """wsum's weights (on a grid of ``step`` summing to 1) or rrf's k that maximise
    ``score_of(fused run)``; ties keep the first found (equal weights are tried first)."""
    if base.method == "rrf":
        candidates: list[Fusion] = [
            Fusion("rrf", base.norm, None, float(k))
            for k in (1, 5, 10, 20, 30, 40, 60, 80, 100, 150)
        ]
        return _best(runs, candidates, score_of)
    if base.method != "wsum":
        raise ValueError("optimisation chooses wsum's weights or rrf's k")
    n = len(runs)
    ticks = round(1.0 / step)
    if search == "grid":
        grid = [
            tuple(c / ticks for c in combo)
            for combo in itertools.product(range(ticks + 1), repeat=n)
            if sum(combo) == ticks
        ]
        equal = tuple([1.0 / n] * n)
        return _best(runs, [Fusion("wsum", base.norm, w) for w in [equal, *grid]], score_of)
    weights = [1.0 / n] * n
    best = Choice(
        Fusion("wsum", base.norm, tuple(weights)),
        score_of(fuse(runs, Fusion("wsum", base.norm, tuple(weights)))),
        1,
    )
    tried = 1
    improved = True
    while improved:
        improved = False
        for i in range(n):
            for tick in range(ticks + 1):
                w = list(best.fusion.weights or weights)
                w[i] = tick / ticks
                f = Fusion("wsum", base.norm, tuple(w))
                s = score_of(fuse(runs, f))
                tried += 1
                if s > best.score + 1e-12:
                    best, improved = Choice(f, s, tried), True
    return Choice(best.fusion, best.score, tried)


def _best(
    runs: Sequence[RunFile], candidates: list[Fusion], score_of: Callable[[RunFile], float]
) -> Choice:
    best: Choice | None = None
    for f in candidates:
        s = score_of(fuse(runs, f))
        if best is None or s > best.score + 1e-12:
            best = Choice(f, s, 0)
    assert best is not None
    return Choice(best.fusion, best.score, len(candidates))
