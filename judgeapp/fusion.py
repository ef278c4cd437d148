"""Run fusion: many runs into one, every method and normalisation ranx has, under ranx's
names (judgeapp's older names are aliases), and the training of the supervised ones.

Per topic, each run is ranked (equal scores in the order ``ties`` names; see
:mod:`judgeapp.formats.ties`), its scores normalised, and the runs combined over the union
of the documents they retrieved. With n the number of runs that retrieved a document, s its
normalised scores there, w the runs' weights and p its 0-based place in a run:

- score methods: ``sum`` (CombSUM), ``mnz`` (sum x n), ``anz`` (sum / n), ``max``, ``min``,
  ``med`` (median), ``gmnz`` (sum x n^gamma) (Fox and Shaw 1994; Lee 1997); ``wsum``
  (sum of w x s, a run missing the document adds 0), ``mixed`` (sum of w x s, x sqrt(n)),
  ``wmnz`` (sum of s x the sum of the w of the runs that retrieved it) (Wu 2012);
- rank methods: ``rrf`` 1 / (k + p + 1) summed (Cormack et al. 2009); ``isr`` 1/(p+1)^2
  summed x n, ``log_isr`` x log n, ``logn_isr`` x log(n + sigma) (Mourão et al. 2015);
  ``rbc`` (1 - phi) phi^p summed (Bailey et al. 2017); ``bordafuse`` N - p points, N the
  number of documents of the topic, and (N - len + 1) / 2 for each document a run missed
  (Aslam and Montague 2001), ``w_bordafuse`` the same points weighted; ``condorcet``,
  ``w_condorcet``: documents sorted by (weighted) pairwise majority, a document ranked by a
  run beating one it did not rank (Montague and Aslam 2002);
- supervised (trained on judged topics by :mod:`judgeapp.fusion_train`): ``probfuse``
  (per-segment probability of relevance / segment number), ``segfuse`` (probability of the
  segment x (s + 1), segments 5, 10, 20, ... long), ``slidefuse`` (probabilities by place
  averaged over a window of +-w places), ``posfuse`` (probability at the place), ``mapfuse``
  (the run's MAP / (p + 1)), ``bayesfuse`` (log odds of relevance by place band, summed,
  log(0.001/0.999) for a run that missed the document) (Lillis et al. 2006, 2008, 2010;
  Shokouhi 2007; Aslam and Montague 2001).

Normalisations (per run and topic, before fusing): ``none``, ``minmax``, ``minmax_inverted``
(high scores become low: for distances), ``max`` (s / max), ``sum`` ((s - min) / (sum -
n min)), ``zmuv`` (zero mean, unit variance; alias ``zscore``), ``rank`` (1 - p / len),
``borda`` (1 - p / N, and 0.5 - (len - 1) / 2N for each document the run missed, which
thereby counts as retrieved by every run). Denominators are floored at 1e-9 as ranx does.

These are ranx's definitions: on runs without tied scores the fused scores equal
``ranx.fuse``'s (tests/fusion), and with ``ties="ranx"`` also on runs with ties. The fused
run is ranked by fused score with equal scores in the ``ties`` order among the documents
in the order the runs first name them, written ranked 1..n as a TREC run.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cmp_to_key

import numpy as np

from judgeapp.formats import ties as tie_rules
from judgeapp.outputs import writing
from judgeapp.records import RankedTopic, RunFile

SCORE_METHODS = ("sum", "mnz", "anz", "max", "min", "med", "gmnz", "wsum", "mixed", "wmnz")
RANK_METHODS = (
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
)
TRAINED_METHODS = ("probfuse", "segfuse", "slidefuse", "posfuse", "mapfuse", "bayesfuse")
WEIGHTED = ("wsum", "mixed", "wmnz", "w_bordafuse", "w_condorcet")
# judgeapp's earlier names
ALIASES = {
    "combsum": "sum",
    "combmnz": "mnz",
    "combanz": "anz",
    "combmax": "max",
    "combmin": "min",
    "combmed": "med",
    "combgmnz": "gmnz",
    "borda": "bordafuse",
}
METHODS = SCORE_METHODS + RANK_METHODS + TRAINED_METHODS
NORMS = ("none", "minmax", "minmax_inverted", "max", "sum", "zmuv", "rank", "borda")
NORM_ALIASES = {
    "zscore": "zmuv",
    "min-max": "minmax",
    "min_max": "minmax",
    "min-max-inverted": "minmax_inverted",
    "min_max_inverted": "minmax_inverted",
}
TINY = 1e-9  # ranx's floor on normalisation denominators
MIN_ODDS = math.log(0.001 / 0.999)  # bayesfuse: a run that missed the document
# segfuse's segment bounds: 0, 5, 15, 35, ... (10 x 2^(k-1) - 5)
SEGMENTS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)


def method_name(name: str) -> str:
    """ranx's name of a method (judgeapp's older names accepted)."""
    found = ALIASES.get(name, name)
    if found not in METHODS:
        known = ", ".join((*METHODS, *ALIASES))
        raise ValueError(f"unknown fusion method {name!r} ({known})")
    return found


def norm_name(name: str | None) -> str:
    found = NORM_ALIASES.get(name or "none", name or "none")
    if found not in NORMS:
        known = ", ".join((*NORMS, *NORM_ALIASES))
        raise ValueError(f"unknown normalisation {name!r} ({known})")
    return found


def default_norm(method: str) -> str:
    """minmax for score methods (ranx's default), none where only places count."""
    return "minmax" if method_name(method) in (*SCORE_METHODS, "segfuse") else "none"


def normalise(scores: np.ndarray, norm: str) -> np.ndarray:
    """One run's scores for one topic (best first) normalised; ``borda`` needs every run
    of the topic and is done in :func:`prepare`."""
    norm = norm_name(norm)
    scores = np.asarray(scores, dtype=np.float64)
    if norm == "none" or scores.size == 0:
        return scores.copy()
    if norm in ("minmax", "minmax_inverted"):
        lo, hi = scores.min(), scores.max()
        if norm == "minmax":
            return (scores - lo) / max(hi - lo, TINY)
        return (hi - scores) / max(hi - lo, TINY)
    if norm == "max":
        return scores / max(scores.max(), TINY)
    if norm == "zmuv":
        return (scores - scores.mean()) / max(scores.std(), TINY)
    if norm == "sum":
        lo = scores.min()
        return (scores - lo) / max(scores.sum() - lo * scores.size, TINY)
    if norm == "rank":
        return 1.0 - np.arange(scores.size) / scores.size
    raise ValueError(f"normalisation {norm!r} works on all runs at once")


@dataclass(frozen=True, slots=True)
class Fusion:
    """A method and its parameters. ``trained`` holds, per run, what a supervised method
    learnt (probabilities by place or segment, log odds, or the run's MAP as a 1-tuple)."""

    method: str = "rrf"
    norm: str = "none"
    weights: tuple[float, ...] | None = None  # wsum, mixed, wmnz, w_bordafuse, w_condorcet
    k: float = 60.0  # rrf
    gamma: float | None = None  # gmnz
    sigma: float = 0.01  # logn_isr
    phi: float | None = None  # rbc
    window: int | None = None  # slidefuse: +-w places
    trained: tuple[tuple[float, ...], ...] | None = None  # supervised methods
    ties: str = "trec_eval"

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", method_name(self.method))
        object.__setattr__(self, "norm", norm_name(self.norm))
        tie_rules.check(self.ties)
        m = self.method
        if m == "gmnz" and self.gamma is None:
            raise ValueError("gmnz needs gamma (or training to choose it)")
        if m == "rbc" and (self.phi is None or not 0 <= self.phi < 1):
            raise ValueError("rbc needs phi in [0, 1) (or training to choose it)")
        if m == "logn_isr" and not 0 <= self.sigma <= 1:
            raise ValueError("logn_isr's sigma must be in [0, 1]")
        if m == "slidefuse" and (self.window is None or self.window < 0):
            raise ValueError("slidefuse needs a window w >= 0 (or training to choose it)")
        if m in TRAINED_METHODS and self.trained is None:
            raise ValueError(f"{m} is supervised: train it on judged topics (--optimize-on)")

    def describe(self) -> str:
        """What was chosen, for messages: 'weights 0.3,0.7', 'k 60', ..."""
        m = self.method
        if m in WEIGHTED and self.weights is not None:
            return "weights " + ",".join(f"{w:g}" for w in self.weights)
        found = {
            "rrf": ("k", self.k),
            "gmnz": ("gamma", self.gamma),
            "rbc": ("phi", self.phi),
            "logn_isr": ("sigma", self.sigma),
            "slidefuse": ("w", self.window),
        }.get(m)
        if found:
            return f"{found[0]} {found[1]:g}"
        if m == "probfuse" and self.trained:
            return f"{len(self.trained[0])} segments"
        if m == "mapfuse" and self.trained:
            return "MAP " + ",".join(f"{t[0]:.4f}" for t in self.trained)
        return "trained" if self.trained else m


@dataclass(slots=True)
class Topic:
    """One topic of every run, laid out for fusing: the documents (in the order the runs
    first name them), and per run the place of each document (-1: not retrieved) and its
    normalised score (NaN: not retrieved)."""

    docs: list[str]
    place: np.ndarray  # (runs, docs) int64
    value: np.ndarray  # (runs, docs) float64
    lengths: np.ndarray  # (runs,) documents each run retrieved


def _ranked(t: RankedTopic | None, ties: str) -> tuple[list[str], np.ndarray]:
    if t is None or not t.docnos:
        return [], np.zeros(0)
    if ties == "trec_eval":
        return list(t.docnos), np.asarray(t.scores, dtype=np.float64)
    docnos, scores, _ = tie_rules.in_file_order(t)
    o = tie_rules.order(docnos, scores, ties)
    return [docnos[i] for i in o.tolist()], scores[o]


def prepare(topics: Sequence[RankedTopic | None], norm: str, ties: str) -> Topic:
    """One topic of the runs (None: a run without it), ranked and normalised."""
    norm = norm_name(norm)
    ranked = [_ranked(t, ties) for t in topics]
    normed: list[tuple[list[str], np.ndarray]] = []
    for docs, scores in ranked:
        if norm in ("none", "borda") or not docs:
            normed.append((docs, scores if norm == "none" else np.zeros(len(docs))))
            continue
        v = normalise(scores, norm)
        if norm == "minmax_inverted":  # re-ranked by the new scores
            o = tie_rules.order(docs, v, ties)
            docs, v = [docs[i] for i in o.tolist()], v[o]
        normed.append((docs, v))
    where: dict[str, int] = {}
    for docs, _ in normed:
        for d in docs:
            where.setdefault(d, len(where))
    n = len(where)
    runs = len(topics)
    place = np.full((runs, n), -1, dtype=np.int64)
    value = np.full((runs, n), np.nan)
    lengths = np.array([len(d) for d, _ in normed], dtype=np.int64)
    for r, (docs, v) in enumerate(normed):
        if docs:
            cols = np.fromiter(map(where.__getitem__, docs), np.int64, len(docs))
            place[r, cols] = np.arange(len(docs))
            value[r, cols] = v
    if norm == "borda" and n:
        # every document of the topic gets a score in every run (ranx's borda norm)
        missed = (0.5 - (lengths - 1) / (2 * n))[:, None]
        value = np.where(place >= 0, 1.0 - place / n, missed)
        for r in range(runs):  # the missed ones follow the run's own, in first-named order
            absent = np.flatnonzero(place[r] < 0)
            place[r, absent] = lengths[r] + np.arange(absent.size)
        lengths = np.full(runs, n, dtype=np.int64)
    return Topic(list(where), place, value, lengths)


def _by_place(t: Topic, points) -> np.ndarray:
    """(runs, docs) points a function of each run's place gives (NaN where not retrieved)."""
    have = t.place >= 0
    return np.where(have, points(np.where(have, t.place, 0)), np.nan)


def _combine(per_run: np.ndarray, how: str, gamma: float = 1.0, sigma: float = 0.0) -> np.ndarray:
    have = ~np.isnan(per_run)
    n = have.sum(axis=0)
    total = np.where(have, per_run, 0.0).sum(axis=0)
    if how == "sum":
        return total
    if how == "mnz":
        return total * n
    if how == "log":
        with np.errstate(divide="ignore"):
            return total * np.log(n)
    if how == "logn":
        return total * np.log(n + sigma)
    if how == "gmnz":
        return total * n.astype(np.float64) ** gamma
    if how == "anz":
        return total / np.maximum(n, 1)
    raise ValueError(how)


def _weights(f: Fusion, runs: int) -> np.ndarray:
    w = np.asarray(f.weights if f.weights is not None else [1.0] * runs, dtype=np.float64)
    if w.size != runs:
        raise ValueError(f"{f.method} needs {runs} weights, one per run; got {w.size}")
    return w


def fused_scores(t: Topic, f: Fusion) -> np.ndarray:
    """The fused score of each document of ``t``."""
    m = f.method
    runs, n = t.place.shape
    if n == 0:
        return np.zeros(0)
    have = t.place >= 0
    v = t.value
    if m in ("sum", "mnz", "anz", "gmnz"):
        return _combine(v, m, gamma=f.gamma or 0.0)
    if m == "max":
        return np.where(have, v, -np.inf).max(axis=0)
    if m == "min":
        return np.where(have, v, np.inf).min(axis=0)
    if m == "med":
        return np.nanmedian(v, axis=0)
    if m in ("wsum", "mixed", "wmnz"):
        w = _weights(f, runs)[:, None]
        if m == "wsum":
            return (w * np.where(have, v, 0.0)).sum(axis=0)
        if m == "mixed":
            return (w * np.where(have, v, 0.0)).sum(axis=0) * np.sqrt(have.sum(axis=0))
        return np.where(have, v, 0.0).sum(axis=0) * np.where(have, w, 0.0).sum(axis=0)
    if m == "rrf":
        return _combine(_by_place(t, lambda p: 1.0 / (f.k + p + 1)), "sum")
    if m in ("isr", "log_isr", "logn_isr"):
        how = {"isr": "mnz", "log_isr": "log", "logn_isr": "logn"}[m]
        return _combine(_by_place(t, lambda p: 1.0 / (p + 1.0) ** 2), how, sigma=f.sigma)
    if m == "rbc":
        phi = float(f.phi or 0.0)
        return _combine(_by_place(t, lambda p: (1 - phi) * phi ** p.astype(np.float64)), "sum")
    if m in ("bordafuse", "w_bordafuse"):
        missed = ((n - t.lengths + 1) / 2.0)[:, None]
        points = np.where(have, n - t.place, missed)
        if m == "w_bordafuse":
            points = _weights(f, runs)[:, None] * points
        return points.sum(axis=0)
    if m in ("condorcet", "w_condorcet"):
        return _condorcet(t, _weights(f, runs) if m == "w_condorcet" else np.ones(runs))
    return _trained_scores(t, f)


def _condorcet(t: Topic, w: np.ndarray) -> np.ndarray:
    """Scores N, N-1, ... in Condorcet order: a document goes before another when the runs
    placing it higher (a run that did not retrieve a document places it last) weigh at
    least as much as the others; equal weight keeps the order the runs first name them."""
    n = t.place.shape[1]
    # per document, its place in each run (plain Python: a few runs per comparison)
    places = np.where(t.place >= 0, t.place, np.iinfo(np.int64).max).T.tolist()
    weights = [float(x) for x in w.tolist()]

    def cmp(x: int, y: int) -> int:
        a = b = 0.0
        for px, py, wi in zip(places[x], places[y], weights, strict=True):
            if px < py:
                a += wi
            elif py < px:
                b += wi
        return -1 if a > b else 1 if b > a else 0

    order = sorted(range(n), key=cmp_to_key(cmp))
    out = np.empty(n)
    out[order] = n - np.arange(n, dtype=np.float64)
    return out


def _trained_scores(t: Topic, f: Fusion) -> np.ndarray:
    m = f.method
    trained = [np.asarray(x, dtype=np.float64) for x in (f.trained or ())]
    if len(trained) != t.place.shape[0]:
        raise ValueError(f"{m} was trained for {len(trained)} runs, not {t.place.shape[0]}")
    have = t.place >= 0
    rows = []
    for r, probs in enumerate(trained):
        p = np.where(have[r], t.place[r], 0)
        length = int(t.lengths[r])
        if m == "probfuse":
            size = max(math.ceil(length / probs.size), 1)
            seg = p // size
            got = probs[np.minimum(seg, probs.size - 1)] / (seg + 1)
        elif m == "segfuse":
            seg = np.searchsorted(SEGMENTS, p, side="right") - 1
            inside = seg < probs.size
            got = np.where(inside, probs[np.minimum(seg, probs.size - 1)], 0.0) * (t.value[r] + 1)
        elif m == "slidefuse":
            wnd = int(f.window or 0)
            lo = np.maximum(p - wnd, 0)
            hi = np.minimum(p + wnd, length - 1)
            # added left to right, as ranx adds them (a running total differs in the last
            # bits, and near-equal scores would then swap)
            acc = np.zeros(p.size)
            padded = np.concatenate((probs, np.zeros(2 * wnd + 1)))
            for j in range(2 * wnd + 1):
                at = lo + j
                acc += np.where(at <= hi, padded[np.minimum(at, padded.size - 1)], 0.0)
            got = acc / (hi - lo + 1)
        elif m == "posfuse":
            got = np.where(p < probs.size, probs[np.minimum(p, probs.size - 1)], 0.0)
        elif m == "mapfuse":
            got = probs[0] / (p + 1.0)
        else:  # bayesfuse: log odds by place; beyond the bands, as if not retrieved
            got = np.where(p < probs.size, probs[np.minimum(p, probs.size - 1)], MIN_ODDS)
        rows.append(np.where(have[r], got, np.nan))
    per_run = np.array(rows)
    if m == "bayesfuse":
        return np.where(np.isnan(per_run), MIN_ODDS, per_run).sum(axis=0)
    return _combine(per_run, "sum")


def topic_ids(runs: Sequence[RunFile]) -> list[str]:
    return sorted(
        {q for r in runs for q in r.topics}, key=lambda q: q.encode("utf-8", "surrogateescape")
    )


def prepared(runs: Sequence[RunFile], f: Fusion, qids: Iterable[str] | None = None) -> dict:
    """{qid: Topic} laid out once, for fusing again with other parameters (training)."""
    return {
        q: prepare([r.topics.get(q) for r in runs], f.norm, f.ties)
        for q in (topic_ids(runs) if qids is None else qids)
    }


def fuse_prepared(
    topics: dict[str, Topic], f: Fusion, *, tag: str = "fused", depth: int = 0
) -> RunFile:
    out: dict[str, RankedTopic] = {}
    for qid, t in topics.items():
        if not t.docs:
            continue
        scores = fused_scores(t, f)
        o = tie_rules.order(t.docs, scores, f.ties)
        if depth > 0:
            o = o[:depth]
        out[qid] = RankedTopic([t.docs[i] for i in o.tolist()], scores[o], np.arange(1, o.size + 1))
    return RunFile("", tag, out, sum(len(t.docnos) for t in out.values()))


def fuse(runs: Sequence[RunFile], f: Fusion, *, tag: str = "fused", depth: int = 0) -> RunFile:
    """The fused run: every topic of any input run, documents ranked by fused score (equal
    scores in ``f.ties`` order), the first ``depth`` of them (0: all)."""
    for run in runs:
        for qid, t in run.topics.items():
            if not np.isfinite(t.scores).all():  # inf - inf and inf / inf have no rank
                raise ValueError(f"run {run.path or run.tag}: topic {qid}: scores must be finite")
    return fuse_prepared(prepared(runs, f), f, tag=tag, depth=depth)


def write_run(run: RunFile, path: str | os.PathLike[str]) -> int:
    """A TREC run file (qid Q0 docno rank score tag); returns the lines written."""
    n = 0
    with writing(path, newline="\n") as fh:  # whole or not at all
        for qid, t in run.topics.items():
            for i, (d, s) in enumerate(zip(t.docnos, t.scores.tolist(), strict=True)):
                fh.write(f"{qid} Q0 {d} {i + 1} {s!r} {run.tag}\n")
                n += 1
    return n


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


def weight_grid(runs: int, step: float) -> list[tuple[float, ...]]:
    """ranx's weight grid: each weight a multiple of ``step`` rounded to its decimals, all
    combinations whose float sum is exactly 1.0 (so a few combinations that sum to 1 only
    up to rounding are left out, as ranx leaves them out)."""
    digits = str(step)[::-1].find(".")
    ticks = [round(x, digits) for x in np.arange(0, 1 + step, step).tolist()]
    return [seq for seq in itertools.product(ticks, repeat=runs) if sum(seq) == 1.0]
