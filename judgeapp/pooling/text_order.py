"""``cal``: a judging order that learns from the documents' text as they are judged
(continuous active learning, as in Cormack and Grossman's high-recall baseline), combined
with the runs' evidence.

Each pooled document's score is the text model's log-odds of relevance plus ``RUN_WEIGHT``
times the runs' reciprocal-rank fusion ``sum_s 1 / (RRF_K + rank_s)``, both standardised
over the pool (mean 0, standard deviation 1) so that neither scale decides. The unjudged
document with the highest score is next.

The text model (scikit-learn): TF-IDF vectors of the pooled documents and the topic
statement (sublinear tf, English stop words), and an L2-regularised logistic regression
(classes balanced) over the judged documents, the statement as one more relevant example,
and 100 unjudged documents drawn at random as presumed non-relevant (BMI's device: most
of a pool is not relevant, and before the first judgment there is nothing else to tell
the statement from). Only when no unjudged document is left to draw and nothing was
judged not relevant is the score the cosine with the centroid of the statement and the
relevant documents instead. Without any text (a project with no documents) the order is
the fusion ranking.

The model is refitted in batches that grow with the judgments (as BMI does): after
``n`` judgments the next fit comes after ``max(1, ceil(GROWTH * n))`` more, so a topic
of ``N`` documents costs about ``log(N) / log(1 + GROWTH)`` fits. The fit points depend
only on how many documents are judged, and the model only on which documents are judged
and how, so a replayed history gives the same order (`JudgingOrder`'s contract).

Two ways to keep the model current:

- by itself (``background=False``: the simulator, the command line): the model is
  refitted when the next document is asked for and a batch is complete;
- in the background (``background=True``: the GUI): `training()` returns the job a worker
  runs (`Training.fit`, no shared state), `use_model` installs its result if it is still
  for the current judgments, and the order always proposes by the newest model installed,
  so a key press never waits for a fit.

The parameters (RUN_WEIGHT, GROWTH, C, the 100 presumed non-relevant, balanced classes)
were chosen on Cranfield queries 1-100 with the demo's runs and fixed before measuring the
other Cranfield queries, CISI and CACM (README, "Pooling on TREC 2003 Robust"); word
bigrams and a heavier statement were tried there and did worse.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgeapp.pooling.candidates import PoolTopic
from judgeapp.pooling.order import ORDERS, JudgingOrder, _pooled

RUN_WEIGHT = 0.25
RRF_K = 60.0
GROWTH = 0.1
PRESUMED_NON_RELEVANT = 100  # unjudged documents drawn as negatives for each fit
C = 1.0  # inverse L2 penalty of the logistic regression (scikit-learn's C)


def _standardised(x: np.ndarray) -> np.ndarray:
    sd = float(x.std()) if len(x) else 0.0
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x, dtype=float)


def text_matrix(texts: list[str], query: str) -> Any:
    """TF-IDF rows of `texts` and, last, of `query` (None when there are no words)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        return TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(
            [*texts, query]
        )
    except ValueError:  # no word at all
        return None


@dataclass(frozen=True, slots=True)
class Training:
    """One fit: what it learns from (read-only; safe to run in a worker thread)."""

    matrix: Any  # scipy sparse (pooled documents + statement) x terms
    labels: tuple[tuple[int, bool], ...]  # (pooled document index, relevant), oldest first
    epoch: int  # the order's epoch (a rebuild starts a new one)

    def fit(self) -> TextModel:
        scores = fit_scores(self.matrix, dict(self.labels))
        return TextModel(self.epoch, len(self.labels), scores)


@dataclass(frozen=True, slots=True)
class TextModel:
    epoch: int  # the order's epoch it was fitted in
    learned: int  # how many of the epoch's judgments (the oldest) it learned from
    scores: np.ndarray  # per pooled document


def fit_scores(matrix: Any, labels: Mapping[int, bool]) -> np.ndarray:
    """The text model's score of every pooled document (rows of `matrix` but the last,
    which is the statement) after learning `labels` (row -> relevant)."""
    n = matrix.shape[0] - 1
    rows = [n, *labels]
    y = np.array([True, *labels.values()])
    # most unjudged documents are not relevant: a sample of them, drawn afresh for each fit
    # (seeded by the number of judgments, so a replay draws the same), stands in for the
    # negatives the judgments have not given yet
    rest = np.setdiff1d(np.arange(n), list(labels))
    rng = np.random.default_rng(len(labels))
    presumed = rng.choice(rest, min(PRESUMED_NON_RELEVANT, len(rest)), replace=False)
    rows += presumed.tolist()
    y = np.r_[y, np.zeros(len(presumed), bool)]
    if y.all():  # nothing told apart yet: closeness to the relevant centroid
        centroid = np.asarray(matrix[rows].mean(axis=0))
        return np.asarray(matrix[:n] @ centroid.ravel()).ravel()
    from sklearn import config_context
    from sklearn.linear_model import LogisticRegression

    # the inputs are ours and well formed: skipping scikit-learn's checks halves a fit
    with config_context(assume_finite=True, skip_parameter_validation=True):
        # (balanced: the few relevant examples weigh as much as the many others)
        model = LogisticRegression(C=C, solver="liblinear", class_weight="balanced")
        model.fit(matrix[rows], y)
        scores: np.ndarray = model.decision_function(matrix[:n])
    return scores


class TextOrder(JudgingOrder):
    name = "cal"
    needs_text = True  # built with texts= (doc id -> text) and query= (the statement)

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        *,
        texts: Mapping[int, str] | None = None,
        query: str = "",
        background: bool = False,
    ) -> None:
        self.background = background
        self._epoch = 0
        docs = np.asarray(topic.doc_ids, dtype=np.int64).tolist()
        known = texts or {}
        self._matrix = (
            text_matrix([known.get(d, "") for d in docs], query)
            if any(d in known for d in docs)
            else None
        )
        super().__init__(topic, run_lists, seed)

    def _setup(self, lists: list[np.ndarray]) -> None:
        fusion = np.zeros(len(self.doc_ids))
        for ids in lists:
            local, ranks = _pooled(self.doc_ids, ids)
            fusion[local] += 1.0 / (RRF_K + ranks)
        self._fusion = _standardised(fusion)

    def _reset(self) -> None:
        # judgments only accumulate within an epoch; an undo or a re-grade rebuilds the
        # order and starts a new one, which outdates the fits still running
        self._labels: dict[int, bool] = {}
        self._epoch += 1
        self._fitted_at = -1  # judgments the model in use learned from
        self._next_fit = 0
        self._model: TextModel | None = None
        self._scores = self._fusion.copy()
        if self._matrix is not None:
            self.use_model(self.training_job().fit())

    # -- the model ---------------------------------------------------------------------------
    @property
    def model(self) -> TextModel | None:
        return self._model

    def training_job(self) -> Training:
        """The fit of the judgments made so far."""
        return Training(self._matrix, tuple(self._labels.items()), self._epoch)

    def training(self) -> Training | None:
        """The next fit a worker should run, or None when the batch is not complete (or
        the order has no text)."""
        if self._matrix is None or len(self._labels) < self._next_fit:
            return None
        if self._fitted_at == len(self._labels):
            return None
        return self.training_job()

    def use_model(self, model: TextModel) -> bool:
        """Install a fitted model unless the one in use learned from as much, or the
        judgments it learned from were undone or re-graded since; True if installed."""
        if model.epoch != self._epoch or model.learned <= self._fitted_at:
            return False
        self._model = model
        self._fitted_at = model.learned
        self._next_fit = self._fitted_at + max(1, math.ceil(GROWTH * self._fitted_at))
        self._scores = _standardised(model.scores) + RUN_WEIGHT * self._fusion
        self._pending = None
        return True

    # -- strategy hooks ----------------------------------------------------------------------
    def _propose(self) -> tuple[int, int] | None:
        if self._judged.all():
            return None
        if not self.background:
            job = self.training()
            if job is not None:
                self.use_model(job.fit())
        scores = np.where(self._judged, -np.inf, self._scores)
        return int(np.argmax(scores)), -1

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        self._labels[i] = relevant

    def upcoming(self, limit: int) -> list[int]:
        """By the model in use (nothing more is learned without judgments)."""
        order = np.argsort(-np.where(self._judged, -np.inf, self._scores), kind="stable")
        ids: list[int] = self.doc_ids[order[~self._judged[order]][:limit]].tolist()
        return ids


ORDERS[TextOrder.name] = TextOrder
