"""Judging orders: which pooled document an assessor sees next, chosen live from the
judgments made so far.

API (what the GUI and the simulator call)::

    order = make_order(name, topic, run_lists, seed)   # name in ORDERS
    doc = order.next_doc()          # next unjudged pooled doc id, or None when all are judged
    order.record(doc, grade, relevant)   # feed a judgment (any pooled doc, proposed or not;
                                         # recording a doc again is a re-grade)
    order.forget(doc)               # the judgment was undone
    order.replay(events)            # rebuild from (doc, grade or None, relevant) in history order
    order.upcoming(n)               # the next n docs if nothing more were learned (for lists)

`topic` is a `PoolTopic` (only its `doc_ids` are used: the documents to judge);
`run_lists` maps each run name to its document ids for this topic in rank order (the full
ranked list is fine: documents outside the pool are skipped). `seed` drives the blind
shuffle; use `topic_seed(pool_seed, qid)` so that topics get different shuffles.

The state after any sequence of `record`/`forget` calls equals the state of a fresh order
that replays the same sequence (`forget` and re-grades rebuild from the log), so reopening a
project and replaying its judgment history (oldest first) resumes exactly where it was.
A judgment the order did not propose (the assessor jumped to another document, or it came
from imported qrels) removes that document; the run-based strategies learn only from the
documents they proposed (the arm they pulled), Hedge and ridge-fusion from every judgment.

Strategies (`ORDERS`):

- ``blind``: a seeded shuffle of the pool; no run or rank is exposed (`exposes_runs` False).
- ``rank``: round robin across runs, depth by depth: rank 1 of every run in run order,
  then rank 2, ... (each document at its first appearance).
- ``mtf``: Move-to-Front (Cormack, Palmer and Clarke, SIGIR 1998). Every run starts with the
  same priority; the run with the highest priority (ties: earlier run) is judged down its
  ranking while its documents are relevant; a non-relevant one lowers its priority by one.
- ``hedge``: Hedge (Aslam, Pavlu and Savell, SIGIR 2003). Each run s gives a document at
  rank r the value ``u = ln(N/r) / ln N`` (N = longest list + 1; 0 when not retrieved);
  the next document maximises ``sum_s w_s u_s(d)``; after a judgment every run loses
  ``1 - u`` (relevant) or ``u`` (non-relevant) and ``w_s *= beta ** loss`` with
  ``beta = 0.1`` (`beta=` to change): the multiplicative update of Freund and Schapire's
  Hedge with the rank-based loss of Aslam et al. (which is close to their AP-derived loss).
- ``maxmean``: the MaxMean bandit (Losada, Parapar and Barreiro, IP&M 2017). Each run is
  an arm with a Beta(1, 1) prior on "its next document is relevant"; pulling an arm judges
  its best-ranked unjudged document; the arm with the highest posterior mean
  ``(1 + rel) / (2 + rel + nonrel)`` is pulled (ties: earlier run).
- ``maxmean-ns``: MaxMean for non-stationary arms (a run's precision falls as it is
  consumed): each pull first discounts that arm's counts by ``gamma = 0.9``
  (`gamma=` to change), so its estimate follows roughly its last ten documents. The
  discounting scheme and gamma are our choice (the papers' exact weighting was not at hand).
- ``maxmean-shared``: MaxMean whose arms learn from every judgment of their documents,
  not only from their own pulls, with a prior that adapts to the topic. A run's estimate
  is ``(a * rate + rel_above + b * rel_below) / (a + judged_above + b * judged_below)``:
  the judged documents ranked above its head count fully, those judged below it (found
  through other runs) with weight ``b = 0.3`` (`below=`: they say less about the run's
  next document), and the prior is the topic's rate ``(1 + rel) / (2 + judged)`` over all
  judgments so far with strength ``a = 3`` (`prior_strength=`), so an untried run starts
  from what this topic's pool has shown. Parameters were chosen on Robust 2003 topics
  601-625 and fixed before measuring other topics (README, "Pooling on TREC 2003
  Robust"). A rank-fusion prior on the documents (reciprocal rank summed over runs, to
  choose among arms or within a run's next few documents) and discounting old judgments
  were tried on the same topics and made it worse, so it has neither.
- ``ridge-fusion``: a rank fusion whose run weights are learned from every judgment. A
  document's score is ``sum_s w_s u_s(d)`` with Hedge's rank values u; the weights are the
  ridge (Bayesian linear) regression of relevance (1/0) on the judged documents' values,
  ``w = (ridge I + sum x x^T)^-1 (ridge w0 + sum y x)``, with ``ridge = 3`` (`ridge=`) and
  a prior ``w0`` giving each run ``0.5 / runs`` (`prior_weight=`): before any judgment the
  order is the summed rank values (CombSUM), and a run whose documents turn out relevant
  gains weight while one whose documents do not loses it, below zero if need be. Unlike the
  bandits it judges the best document of all, not the head of the best run, so a document
  several good runs rank high comes first. Parameters chosen on Robust 2003 topics 601-625
  (all 17 runs, and four random sets of seven of them) and fixed before any other topic
  was run (README, "Pooling on TREC 2003 Robust"). A fusion can weigh a run down so far
  that a relevant document only it ranks high comes last (on a collection of 115 runs the
  last of a topic's 6 relevant documents came at judgment 1,760, where MaxMean needed 16),
  so once ``dry = 10`` judgments in a row (`dry=`; 0 turns it off) found nothing relevant,
  MaxMean, fed every judgment, proposes every other document until a relevant one is
  found: it still tries the head of every run. Summed over topics, the judgments to find
  every relevant document are then 0.85-0.89x MaxMean's on Robust 2003 at depths 100-500
  (without: up to 1.06x) and at most 1.02x on the classic collections, and those to find
  80% 0.76-0.80x (docs/estimators.md, "Ridge-fusion's worst case"; of dry = 5, 10, 20 and
  40, 10 was the largest at most 1.02x everywhere).

Two more orders register themselves here from their own modules: ``suggested``
(`judgeapp.pooling.suggested`, an automatic judge's scores) and ``cal``
(`judgeapp.pooling.text_order`, learns from the documents' text; `needs_text`, and it
may leave refitting its model to a worker: `training` and `use_model`).

Cost per `next_doc()` + `record()` with 115 runs at depth 100: see
benchmarks/bench_pooling.py (well under 1 ms for every strategy).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from judgeapp.pooling.candidates import PoolTopic


def _pooled(doc_ids: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pooled documents of one ranked list `ids`: their indices in `doc_ids` (sorted)
    and their 1-based ranks, in rank order; a document listed twice counts at its first."""
    ids = np.asarray(ids).astype(np.int64, copy=False)
    if not len(doc_ids) or not len(ids):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    pos = np.minimum(np.searchsorted(doc_ids, ids), len(doc_ids) - 1)
    hit = np.flatnonzero(doc_ids[pos] == ids)
    local = pos[hit]
    _, first = np.unique(local, return_index=True)
    keep = np.sort(first)
    return local[keep], hit[keep] + 1


class JudgingOrder:
    """Base class: bookkeeping of judgments; subclasses say what to propose and learn."""

    name = ""
    exposes_runs = True  # whether the UI may show run names and ranks beside documents
    needs_text = False  # built with texts= (pooled doc id -> text) and query= (statement)
    # whether the order puts the documents it expects relevant first (by rank or by what it
    # learns), so that relevant documents are found fast and then ever more slowly; False
    # for an order that judges the pool at random, where the rate stays about even. The
    # found-vs-judged curve estimator models the two differently.
    adaptive = True

    def __init__(
        self, topic: PoolTopic, run_lists: Mapping[str, np.ndarray], seed: int = 0
    ) -> None:
        self.topic = topic
        self.doc_ids = np.asarray(topic.doc_ids, dtype=np.int64)
        self.runs = tuple(run_lists)
        self.seed = int(seed)
        self._index = {int(d): i for i, d in enumerate(self.doc_ids.tolist())}
        self._log: dict[int, tuple[int, bool]] = {}  # doc -> (grade, relevant), oldest first
        self._judged = np.zeros(len(self.doc_ids), bool)
        self._pending: tuple[int, int] | None = None  # (doc index, arm) of the proposal
        self._setup([np.asarray(ids) for ids in run_lists.values()])
        self._reset()

    def _set_parameter(
        self,
        name: str,
        value: float | None,
        valid: Callable[[float], bool],
        rule: str,
        attribute: str | None = None,
    ) -> None:
        """Take a constructor's parameter `name` when given, as `attribute` (default: the
        same name; when not given the class's value stays), refusing one outside its range:
        "`name` must `rule`, not `value`"."""
        if value is None:
            return
        if not valid(value):
            raise ValueError(f"{name} must {rule}, not {value}")
        setattr(self, attribute or name, float(value))

    # -- public ------------------------------------------------------------------------
    def next_doc(self) -> int | None:
        """The next unjudged pooled document, or None when the pool is judged."""
        proposal = self._proposal()
        return None if proposal is None else int(self.doc_ids[proposal[0]])

    def record(self, doc_id: int, grade: int, relevant: bool) -> None:
        """A judgment of `doc_id`; a second judgment of the same document is a re-grade."""
        doc_id = int(doc_id)
        relevant = bool(relevant)
        if doc_id in self._log:
            before = self._log[doc_id][1]
            self._log[doc_id] = (grade, relevant)
            if before != relevant:
                self._rebuild()
            return
        self._log[doc_id] = (grade, relevant)
        self._apply(doc_id, relevant)

    def forget(self, doc_id: int) -> None:
        """Undo the judgment of `doc_id` (nothing happens if it was not judged)."""
        if self._log.pop(int(doc_id), None) is not None:
            self._rebuild()

    def replay(self, events: Iterable[tuple[int, int | None, bool]]) -> JudgingOrder:
        """Feed a judgment history, oldest first: (doc, grade, relevant), grade None for a
        removed judgment. Returns self."""
        for doc_id, grade, relevant in events:
            if grade is None:
                self.forget(doc_id)
            else:
                self.record(doc_id, grade, relevant)
        return self

    def clear(self) -> None:
        """Forget every judgment: the state of a fresh order."""
        self._log.clear()
        self._rebuild()

    def upcoming(self, limit: int) -> list[int]:
        """The next `limit` documents this order would propose if no more judgments came
        in to learn from (for showing the queue; `next_doc` is the live answer)."""
        shadow = copy.deepcopy(self)
        out: list[int] = []
        while len(out) < limit:
            proposal = shadow._proposal()
            if proposal is None:
                break
            shadow._judged[proposal[0]] = True
            shadow._pending = None
            out.append(int(self.doc_ids[proposal[0]]))
        return out

    def training(self) -> Any:
        """For an order that learns a model in the background: the next fit, an object
        whose `fit()` (safe in a worker thread) returns a model for `use_model`; None when
        there is nothing to fit (always, for the orders here)."""
        return None

    def use_model(self, model: Any) -> bool:
        """Install a model fitted in the background; True if the order now uses it."""
        return False

    @property
    def judged(self) -> dict[int, tuple[int, bool]]:
        """Recorded judgments, oldest first: doc -> (grade, relevant)."""
        return dict(self._log)

    @property
    def remaining(self) -> int:
        return int(len(self._judged) - self._judged.sum())

    # -- bookkeeping -----------------------------------------------------------------------
    def _proposal(self) -> tuple[int, int] | None:
        if self._pending is None:
            self._pending = self._propose()
        return self._pending

    def _apply(self, doc_id: int, relevant: bool) -> None:
        i = self._index.get(doc_id)
        if i is None or self._judged[i]:
            return  # not pooled: nothing to learn or skip
        proposal = self._proposal()
        arm = proposal[1] if proposal is not None and proposal[0] == i else -1
        self._judged[i] = True
        self._pending = None
        self._learn(i, arm, relevant)

    def _rebuild(self) -> None:
        self._judged[:] = False
        self._pending = None
        self._reset()
        for doc_id, (_grade, relevant) in self._log.items():
            self._apply(doc_id, relevant)

    def _local_lists(self, lists: list[np.ndarray]) -> list[np.ndarray]:
        """Each run's pooled documents as local indices, in rank order."""
        return [_pooled(self.doc_ids, ids)[0] for ids in lists]

    # -- strategy hooks ----------------------------------------------------------------------
    def _setup(self, lists: list[np.ndarray]) -> None:
        """Precompute what does not depend on judgments."""

    def _reset(self) -> None:
        """Forget everything learned (before a rebuild)."""

    def _propose(self) -> tuple[int, int] | None:
        raise NotImplementedError

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        """Document index `i` was judged; `arm` is the run that proposed it, or -1."""


class _StaticOrder(JudgingOrder):
    """A fixed sequence of the pool; judgments only remove documents from it."""

    _sequence: np.ndarray

    def _reset(self) -> None:
        self._cursor = 0

    def _propose(self) -> tuple[int, int] | None:
        seq, judged = self._sequence, self._judged
        while self._cursor < len(seq) and judged[seq[self._cursor]]:
            self._cursor += 1
        if self._cursor == len(seq):
            return None
        return int(seq[self._cursor]), -1

    def upcoming(self, limit: int) -> list[int]:
        rest = self._sequence[self._cursor :]
        rest = rest[~self._judged[rest]][:limit]
        ids: list[int] = self.doc_ids[rest].tolist()
        return ids


class BlindOrder(_StaticOrder):
    name = "blind"
    adaptive = False
    exposes_runs = False

    def _setup(self, lists: list[np.ndarray]) -> None:
        self._sequence = np.random.default_rng(self.seed).permutation(len(self.doc_ids))


class RankOrder(_StaticOrder):
    name = "rank"

    def _setup(self, lists: list[np.ndarray]) -> None:
        pooled = [_pooled(self.doc_ids, ids) for ids in lists]
        n = len(self.doc_ids)
        # every occurrence as (rank, run); documents no list holds come last, by doc id
        doc = np.concatenate([*(local for local, _ in pooled), np.arange(n)])
        rank = np.concatenate([*(ranks for _, ranks in pooled), np.full(n, np.iinfo(np.int64).max)])
        run = np.concatenate(
            [*(np.full(len(x), i) for i, (x, _) in enumerate(pooled)), np.zeros(n)]
        )
        order = np.lexsort((doc, run, rank))
        _, first = np.unique(doc[order], return_index=True)
        self._sequence = doc[order][np.sort(first)]


class _RunQueues(JudgingOrder):
    """Orders that pick a run (an arm) and judge its best-ranked unjudged document."""

    def _setup(self, lists: list[np.ndarray]) -> None:
        self._queues = self._local_lists(lists)

    def _reset(self) -> None:
        self._ptr = [0] * len(self._queues)
        self._exhausted = np.zeros(len(self._queues), bool)

    def _head(self, run: int) -> int:
        """The run's best-ranked unjudged pooled document, or -1."""
        queue, judged, p = self._queues[run], self._judged, self._ptr[run]
        while p < len(queue) and judged[queue[p]]:
            p += 1
        self._ptr[run] = p
        if p == len(queue):
            self._exhausted[run] = True
            return -1
        return int(queue[p])

    def _leftovers(self) -> tuple[int, int] | None:
        """Pooled documents no run list holds are judged last, in doc id order."""
        rest = np.flatnonzero(~self._judged)
        return (int(rest[0]), -1) if len(rest) else None


class MoveToFront(_RunQueues):
    name = "mtf"

    def _reset(self) -> None:
        super()._reset()
        self._priority = np.zeros(len(self._queues), np.int64)
        self._by_priority = list(range(len(self._queues)))

    def _propose(self) -> tuple[int, int] | None:
        for run in self._by_priority:
            if self._exhausted[run]:
                continue
            head = self._head(run)
            if head >= 0:
                return head, run
        return self._leftovers()

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        if arm >= 0 and not relevant:
            self._priority[arm] -= 1
            # highest priority first, earlier run first among equals
            order = np.lexsort((np.arange(len(self._priority)), -self._priority))
            self._by_priority = order.tolist()


class MaxMean(_RunQueues):
    name = "maxmean"
    discount = 1.0  # 1: stationary arms

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        gamma: float | None = None,
    ) -> None:
        self._set_parameter("gamma", gamma, lambda v: 0.0 < v <= 1.0, "lie in (0, 1]", "discount")
        super().__init__(topic, run_lists, seed)

    def _reset(self) -> None:
        super()._reset()
        self._rel = np.zeros(len(self._queues))
        self._nonrel = np.zeros(len(self._queues))

    def _propose(self) -> tuple[int, int] | None:
        mean = (1.0 + self._rel) / (2.0 + self._rel + self._nonrel)
        mean[self._exhausted] = -1.0
        while True:
            run = int(np.argmax(mean)) if len(mean) else -1
            if run < 0 or mean[run] < 0:
                return self._leftovers()
            head = self._head(run)
            if head >= 0:
                return head, run
            mean[run] = -1.0

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        if arm < 0:
            return
        if self.discount != 1.0:
            self._rel[arm] *= self.discount
            self._nonrel[arm] *= self.discount
        if relevant:
            self._rel[arm] += 1.0
        else:
            self._nonrel[arm] += 1.0


class MaxMeanNonStationary(MaxMean):
    name = "maxmean-ns"
    discount = 0.9


class SharedMaxMean(_RunQueues):
    name = "maxmean-shared"
    below = 0.3  # weight of a judged document ranked below a run's head
    prior_strength = 3.0  # pseudo-judgments behind the topic's rate in an arm's prior

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        below: float | None = None,
        prior_strength: float | None = None,
    ) -> None:
        self._set_parameter("below", below, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
        self._set_parameter("prior_strength", prior_strength, lambda v: v > 0.0, "be positive")
        super().__init__(topic, run_lists, seed)

    def _setup(self, lists: list[np.ndarray]) -> None:
        super()._setup(lists)
        # the runs holding each pooled document: a judgment is evidence about each of them
        runs = [np.full(len(q), s, np.int64) for s, q in enumerate(self._queues)]
        run_of = np.concatenate(runs or [np.empty(0, np.int64)])
        doc_of = np.concatenate(self._queues or [np.empty(0, np.int64)]).astype(np.int64)
        by_doc = np.argsort(doc_of, kind="stable")
        self._holder_runs = run_of[by_doc]
        self._holder_start = np.searchsorted(doc_of[by_doc], np.arange(len(self.doc_ids) + 1))

    def _reset(self) -> None:
        super()._reset()
        runs = len(self._queues)
        self._relevant = np.zeros(len(self.doc_ids), bool)
        self._learned = np.zeros(len(self.doc_ids), bool)
        self._above = np.zeros((runs, 2))  # (relevant, judged) ranked above the run's head
        self._below = np.zeros((runs, 2))  # (relevant, judged) ranked below it
        self._topic = np.zeros(2)  # (relevant, judged) in the whole pool of the topic
        self._exhausted[:] = [len(q) == 0 for q in self._queues]

    def _advance(self, run: int) -> None:
        """Move the run's head past judged documents (their counts move above it)."""
        queue, judged, p = self._queues[run], self._judged, self._ptr[run]
        while p < len(queue) and judged[queue[p]]:
            if self._learned[queue[p]]:  # (`upcoming` skips documents it does not learn)
                counts = (float(self._relevant[queue[p]]), 1.0)
                self._above[run] += counts
                self._below[run] -= counts
            p += 1
        self._ptr[run] = p
        if p == len(queue):
            self._exhausted[run] = True

    def _propose(self) -> tuple[int, int] | None:
        if not len(self._queues):
            return self._leftovers()
        rate = (1.0 + self._topic[0]) / (2.0 + self._topic[1])
        a, b = self.prior_strength, self.below
        rel = a * rate + self._above[:, 0] + b * self._below[:, 0]
        mean = rel / (a + self._above[:, 1] + b * self._below[:, 1])
        mean[self._exhausted] = -np.inf
        while True:
            run = int(np.argmax(mean))  # ties: the earlier run
            if not np.isfinite(mean[run]):
                return self._leftovers()
            head = self._head(run)  # (current after _learn; `upcoming` moves past more)
            if head >= 0:
                return head, run
            mean[run] = -np.inf

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        self._relevant[i] = relevant
        self._learned[i] = True
        self._topic += (float(relevant), 1.0)
        holders = self._holder_runs[self._holder_start[i] : self._holder_start[i + 1]]
        self._below[holders] += (float(relevant), 1.0)
        for run in holders.tolist():
            self._advance(run)


def _rank_values(doc_ids: np.ndarray, lists: list[np.ndarray]) -> np.ndarray:
    """Hedge's value of each run for each pooled document (documents x runs): a document at
    rank r is worth ``ln(N/r) / ln N`` (N = longest list + 1), 0 where it is not retrieved."""
    longest = max((len(ids) for ids in lists), default=0)
    n = max(longest + 1, 2)
    value = np.zeros((len(doc_ids), len(lists)))
    for run, ids in enumerate(lists):
        local, ranks = _pooled(doc_ids, ids)
        value[local, run] = np.log(n / ranks) / math.log(n)
    return value


class _WeightedRankValues(JudgingOrder):
    """Orders that judge the document with the highest weighted sum of the runs' rank
    values, ``sum_s w_s u_s(d)``, the weights learned from every judgment."""

    def _setup(self, lists: list[np.ndarray]) -> None:
        self._value = _rank_values(self.doc_ids, lists)

    def _reset(self) -> None:
        self._compact()

    def _weights(self) -> np.ndarray:
        raise NotImplementedError

    def _compact(self) -> None:
        """Keep the rows of the documents still unjudged together: the score of every
        candidate is recomputed at each step (all weights change), so the cost follows the
        unjudged part of the pool, not all of it."""
        self._active = np.flatnonzero(~self._judged)
        self._active_value = np.ascontiguousarray(self._value[self._active])

    def _scores(self) -> tuple[np.ndarray, np.ndarray]:
        """(local indices, scores) of the unjudged documents; judged ones score -inf."""
        if 4 * int(self._judged[self._active].sum()) > len(self._active):
            self._compact()
        scores = self._active_value @ self._weights()
        scores[self._judged[self._active]] = -np.inf
        return self._active, scores

    def _propose(self) -> tuple[int, int] | None:
        if self._judged.all():
            return None
        active, scores = self._scores()
        return int(active[np.argmax(scores)]), -1

    def upcoming(self, limit: int) -> list[int]:
        active, scores = self._scores()
        order = np.argsort(-scores, kind="stable")[:limit]
        ids: list[int] = self.doc_ids[active[order[np.isfinite(scores[order])]]].tolist()
        return ids


class Hedge(_WeightedRankValues):
    name = "hedge"
    beta = 0.1

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        beta: float | None = None,
    ) -> None:
        self._set_parameter("beta", beta, lambda v: 0.0 < v < 1.0, "lie in (0, 1)")
        super().__init__(topic, run_lists, seed)

    def _setup(self, lists: list[np.ndarray]) -> None:
        super()._setup(lists)
        self._log_beta = math.log(self.beta)

    def _reset(self) -> None:
        self._log_w = np.zeros(self._value.shape[1])
        super()._reset()

    def _weights(self) -> np.ndarray:
        return np.exp(self._log_w - self._log_w.max()) if len(self._log_w) else self._log_w

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        u = self._value[i]
        loss = 1.0 - u if relevant else u
        self._log_w += loss * self._log_beta


class RidgeFusion(_WeightedRankValues):
    name = "ridge-fusion"
    ridge = 3.0  # strength of the prior on the weights, in judgments
    prior_weight = 0.5  # the prior's weights sum to this, shared evenly among the runs
    dry = 10.0  # judgments in a row without a relevant one before MaxMean takes turns

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        ridge: float | None = None,
        prior_weight: float | None = None,
        dry: float | None = None,
    ) -> None:
        self._set_parameter("ridge", ridge, lambda v: v > 0.0, "be positive")
        self._set_parameter("prior_weight", prior_weight, lambda v: v >= 0.0, "not be negative")
        self._set_parameter("dry", dry, lambda v: v >= 0.0 and v == int(v), "be a count, 0 or more")
        # MaxMean, fed every judgment, proposes in turn with the fusion once it has gone dry
        self._safety = MaxMean(topic, run_lists, seed) if self.dry else None
        super().__init__(topic, run_lists, seed)

    def _reset(self) -> None:
        runs = self._value.shape[1]
        # the posterior of the weights kept as (A^-1, b) with w = A^-1 b: A = ridge I + sum
        # x x^T, b = ridge w0 + sum y x; A^-1 follows each judgment by Sherman-Morrison
        self._inverse = np.eye(runs) / self.ridge
        self._target = np.full(runs, self.ridge * self.prior_weight / max(runs, 1))
        self._since = 0  # judgments since the last relevant one (or the start)
        if self._safety is not None:
            self._safety.clear()
        super()._reset()

    def _weights(self) -> np.ndarray:
        weights: np.ndarray = self._inverse @ self._target
        return weights

    def _safety_turn(self) -> bool:
        """Whether MaxMean proposes now: every other judgment once `dry` judgments in a row
        found nothing relevant (the fusion's model has stopped finding; MaxMean still tries
        the head of every run, where a run the fusion weighs down may hold the last ones)."""
        over = self._since - int(self.dry)
        return self._safety is not None and over >= 0 and over % 2 == 0

    def _propose(self) -> tuple[int, int] | None:
        if self._safety_turn():
            assert self._safety is not None
            doc = self._safety.next_doc()
            if doc is not None:
                return self._index[doc], -1
        return super()._propose()

    def upcoming(self, limit: int) -> list[int]:
        ranked = super().upcoming(limit)
        first = self.next_doc()
        if first is None or not ranked or ranked[0] == first:
            return ranked
        return [first, *[d for d in ranked if d != first]][:limit]

    def _learn(self, i: int, arm: int, relevant: bool) -> None:
        x = self._value[i]
        ax = self._inverse @ x
        self._inverse -= np.outer(ax, ax) / (1.0 + x @ ax)
        if relevant:
            self._target += x
        self._since = 0 if relevant else self._since + 1
        if self._safety is not None:
            self._safety.record(int(self.doc_ids[i]), int(relevant), relevant)


ORDERS: dict[str, type[JudgingOrder]] = {
    cls.name: cls
    for cls in (
        BlindOrder,
        RankOrder,
        MoveToFront,
        Hedge,
        MaxMean,
        MaxMeanNonStationary,
        SharedMaxMean,
        RidgeFusion,
    )
}
DEFAULT_ORDER = "blind"


def make_order(
    name: str,
    topic: PoolTopic,
    run_lists: Mapping[str, np.ndarray],
    seed: int = 0,
    **params: Any,
) -> JudgingOrder:
    """A fresh judging order `name` (one of `ORDERS`) over `topic`'s pooled documents."""
    try:
        cls = ORDERS[name]
    except KeyError:
        raise ValueError(f"unknown judging order {name!r} (one of {', '.join(ORDERS)})") from None
    return cls(topic, run_lists, seed, **params)
