"""Pools as a use case: building and growing them from the stored runs, judging them in an
order resumed from the judgment history, and estimating what they still hold.

The store reads and writes pools (`store.pools.rows`, `store.pools.add`, ...); the pooling
itself is `judgeapp.pooling` (numpy only); which judgment counts is `judgeapp.services.policy`.
This module puts the three together, so the policy of pooling (which order, which
estimator, what a replay means) has one home outside the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass, replace
from typing import Any

import numpy as np

from judgeapp.pooling.calibration import Calibration, builtin_calibration, fit_calibration
from judgeapp.pooling.candidates import PoolingError, PoolTopic, empty_topic
from judgeapp.pooling.estimate import (
    CurveFit,
    Estimate,
    fit_curve,
    sample_estimate,
)
from judgeapp.pooling.order import DEFAULT_ORDER, ORDERS, JudgingOrder, make_order
from judgeapp.pooling.pools import (
    build_pool,
    extend_topic,
    normalise_params,
    topic_lists,
    topic_seed,
)
from judgeapp.pooling.simulate import (
    calibration_cases,
    case_seed,
    replay_topic,
    stop_checkpoint,
    stop_step,
)
from judgeapp.records import Changes, PoolInfo
from judgeapp.services.policy import (
    DEFAULT_POLICY,
    JudgmentPolicy,
    effective_judgments,
    judging_events,
)
from judgeapp.services.progress import ProgressFn, no_progress
from judgeapp.store import Store, StoreError
from judgeapp.store.base import utcnow

# topics of a pool judged whole before the project's own calibration is used
PROJECT_TOPICS = 5
# the last project calibration made (replaying the topics is seconds at TREC scale), shared
# by every PoolService of the process: the dashboard makes one per estimate
_CALIBRATIONS: dict[tuple, Calibration | None] = {}


@dataclass(frozen=True, slots=True)
class PoolTopicProgress:
    """Judging progress of one topic of a pool (effective judgments of the chosen assessors)."""

    qid: str
    size: int
    judged: int
    relevant: int


def _check_order(judging_order: str) -> None:
    if judging_order not in ORDERS:
        raise StoreError(f"unknown judging order {judging_order!r} (one of {', '.join(ORDERS)})")


def _normalise(strategy: str, params: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return normalise_params(strategy, params)
    except PoolingError as exc:
        raise StoreError(str(exc)) from exc


class PoolService:
    """The pools of one project."""

    def __init__(self, store: Store, policy: JudgmentPolicy = DEFAULT_POLICY) -> None:
        self.store = store
        self.policy = policy

    # -- reading ---------------------------------------------------------------------------
    def pool_topic(self, name: str, qid: str) -> PoolTopic:
        """One topic of a pool (an empty pool when the topic has no documents)."""
        return PoolTopic.of(self.store.pools.rows(name, qid))

    def pool_topics(self, name: str, qids: Sequence[str] | None = None) -> dict[str, PoolTopic]:
        """Every topic of a pool (or `qids`), in topic byte order."""
        return {q: PoolTopic.of(r) for q, r in self.store.pools.rows_all(name, qids).items()}

    def pool_progress(
        self,
        name: str,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
        qids: Sequence[str] | None = None,
        *,
        sizes: dict[str, int] | None = None,
    ) -> list[PoolTopicProgress]:
        """Per topic (of `qids`, every pooled topic by default): pool size, pooled documents
        judged, and judged relevant (grade at least `min_grade`), counting the effective
        judgments of `assessors` (all by default). `sizes`: the pool's sizes
        (`store.pools.sizes`) when the caller has them (a count over the pool saved)."""
        if sizes is None:
            sizes = self.store.pools.sizes(name)
        if qids is not None:
            sizes = {q: sizes[q] for q in qids if q in sizes}
        qid = qids[0] if qids is not None and len(qids) == 1 else None
        judged = effective_judgments(self.store, assessors, qid, self.policy).topics
        judged = {q: v for q, v in judged.items() if q in sizes}
        pooled = self.store.pools.doc_ids(name, list(judged))
        counts: dict[str, tuple[int, int]] = {}
        for q, (ids, grades) in judged.items():
            inside = np.isin(ids, pooled.get(q, ()), assume_unique=True)
            counts[q] = (int(inside.sum()), int((grades[inside] >= min_grade).sum()))
        rows = [(q, size, *counts.get(q, (0, 0))) for q, size in sizes.items()]
        return sorted((PoolTopicProgress(*r) for r in rows), key=lambda p: p.qid.encode())

    def judging_events(
        self, qid: str, assessors: Sequence[str] | None = None
    ) -> list[tuple[int, int | None]]:
        """The topic's judgment history as (doc id, effective grade or None), oldest first."""
        return judging_events(self.store, qid, assessors, self.policy)

    def open_judging_order(
        self,
        name: str,
        qid: str,
        *,
        order: str | None = None,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
        background: bool = False,
    ) -> JudgingOrder:
        """The pool's judging order for one topic, resumed from the judgment history (the
        pool's own order unless `order` names another). Relevant means grade >= min_grade.
        An order that learns from text gets the pooled documents' text and the topic's
        statement; with `background` it leaves refitting its model to the caller (a worker:
        `TextOrder.training`), else it refits as it goes."""
        info = self.store.pools.get(name)
        topic = self.pool_topic(name, qid)
        lists = self.store.runs.ranked_lists(runs=list(info.runs), qids=[qid])
        run_lists = dict(zip(info.runs, topic_lists(lists.runs, qid), strict=True))
        name = order or info.judging_order
        params: dict[str, Any] = {}
        if name == "suggested":
            params = {"priors": self.store.judgments.automatic_scores(qid)}
        elif ORDERS[name].needs_text:
            statement = self.store.topics.get(qid)
            query = (
                " ".join(
                    x for x in (statement.title, statement.description, statement.narrative) if x
                )
                if statement is not None
                else ""
            )
            texts = self.store.documents.texts(topic.doc_ids.tolist())
            params = {"texts": texts, "query": query, "background": background}
        judging = make_order(name, topic, run_lists, topic_seed(info.seed, qid), **params)
        events = self.judging_events(qid, assessors)
        return judging.replay((d, g, g is not None and g >= min_grade) for d, g in events)

    def judging_curve(
        self,
        name: str,
        qid: str,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
    ) -> np.ndarray:
        """Relevance (bool) of the topic's judged pooled documents in the order they were
        first judged, by their current grades: the found-vs-judged curve is its cumsum.
        Documents found by searching the collection are left out (judged outside the
        order, they would bend the curve the estimate extrapolates)."""
        return self._curve(self._pooled(name, qid), qid, assessors, min_grade)

    def _pooled(self, name: str, qid: str) -> set[int]:
        return set(self.store.pools.doc_ids(name, [qid]).get(qid, np.empty(0)).tolist())

    def _curve(
        self, pooled: set[int], qid: str, assessors: Sequence[str] | None, min_grade: int
    ) -> np.ndarray:
        return self._curve_and_apart(pooled, qid, assessors, min_grade)[0]

    def _curve_and_apart(
        self, pooled: set[int], qid: str, assessors: Sequence[str] | None, min_grade: int
    ) -> tuple[np.ndarray, tuple[int, int]]:
        """The order's curve (`judging_curve`), and (judged, relevant) of the pooled
        documents found by searching the collection instead: judged outside the judging
        order, they are kept apart from the curve the estimate extrapolates, but count as
        judged and found (`fit_curve`'s `apart`)."""
        searched = self.store.judgments.found_by_search(qid, assessors).get(qid, set())
        first: dict[int, None] = {}
        current: dict[int, int | None] = {}
        apart: dict[int, int | None] = {}
        for doc, grade in self.judging_events(qid, assessors):
            if doc not in pooled:
                continue
            if doc in searched:
                apart[doc] = grade
            else:
                first.setdefault(doc, None)
                current[doc] = grade
        curve = np.array(
            [g >= min_grade for d in first if (g := current[d]) is not None], dtype=bool
        )
        grades = [g for g in apart.values() if g is not None]
        return curve, (len(grades), sum(g >= min_grade for g in grades))

    def estimate_relevant(
        self,
        name: str,
        qid: str,
        *,
        assessors: Sequence[str] | None = None,
        min_grade: int = 1,
        level: float = 0.95,
        stop: tuple[float, float] | None = None,
        calibration: Calibration | str | None = "project",
    ) -> Estimate | None:
        """The topic's total relevant documents, estimated with an interval: from the sample
        when the pool is one (None until every stratum has a judged document), else by
        extrapolating the found-vs-judged curve over the pool in the pool's judging order
        (None before any judgment), its interval calibrated by `project_calibration`
        (else the built-in calibration; a caller estimating many topics passes what
        `project_calibration` gave once). With `stop` = (target recall, confidence), a
        curve estimate carries the stopping advice (`Estimate.advice`)."""
        strategy, judging_order = self.store.pools.kind(name)
        if strategy == "sample":
            topic = self.pool_topic(name, qid)
            judged = effective_judgments(self.store, assessors, qid, self.policy).topics.get(qid)
            if judged is None or not len(topic):
                return None
            return sample_estimate(topic, judged, min_grade=min_grade, level=level)
        pooled = self._pooled(name, qid)
        curve, apart = self._curve_and_apart(pooled, qid, assessors, min_grade)
        if not len(curve):
            return None
        if isinstance(calibration, str):
            calibration = self.project_calibration(name, assessors, min_grade)
        fit = self._fit(curve, len(pooled), judging_order, qid, calibration, apart)
        estimate = fit.estimate(level)
        if stop is None:
            return estimate
        # the rule is checked at fixed points of the judging (stop_checkpoint), as in the
        # simulation that vouches for it
        at = stop_checkpoint(len(curve), fit.pool_size)
        if at in (0, len(curve)):
            advice = fit.stop_advice(*stop)
            if at == 0:  # not checked yet: the first check is after stop_step judgments
                first = stop_step(fit.pool_size)
                advice = replace(advice, stop=False, more=max(advice.more, first - len(curve)))
        else:
            checked = self._fit(curve[:at], len(pooled), judging_order, qid, calibration, apart)
            advice = checked.stop_advice(*stop)
            if not advice.stop:
                advice = replace(advice, more=max(advice.more - (len(curve) - at), 1))
        return replace(estimate, advice=advice)

    @staticmethod
    def _fit(
        curve: np.ndarray,
        pool_size: int,
        judging_order: str,
        qid: str,
        calibration: Calibration | None,
        apart: tuple[int, int] = (0, 0),
    ) -> CurveFit:
        """The curve estimator's model of a topic; its Monte Carlo seed follows the
        judgments, so that the same judgments always show the same estimate."""
        return fit_curve(
            curve,
            pool_size,
            order=judging_order,
            adaptive=ORDERS[judging_order].adaptive,
            qid=qid,
            seed=case_seed(0, qid, len(curve)),
            calibration=calibration or builtin_calibration(),
            apart=apart,
        )

    def project_calibration(
        self, name: str, assessors: Sequence[str] | None = None, min_grade: int = 1
    ) -> Calibration | None:
        """The built-in calibration moved by this project's own topics: those of pool
        `name` whose every pooled document the assessors have judged, each replayed in the
        pool's judging order with their grades as the assessor (what `simulate
        --fit-topics` does with qrels). None while fewer than PROJECT_TOPICS topics are
        judged whole, and for orders that judge by text or an automatic judge. Kept until
        those topics' judgments change."""
        strategy, order = self.store.pools.kind(name)
        if strategy == "sample" or ORDERS[order].needs_text or order == "suggested":
            return None
        whole = [
            p
            for p in self.pool_progress(name, assessors, min_grade)
            if p.size and p.judged == p.size
        ]
        if len(whole) < PROJECT_TOPICS:
            return None
        key = (
            self.store.url,
            name,
            tuple(assessors or ()),
            min_grade,
            tuple(astuple(p) for p in whole),
        )
        if key not in _CALIBRATIONS:
            info = self.store.pools.get(name)
            qids = [p.qid for p in whole]
            lists = self.store.runs.ranked_lists(runs=list(info.runs), qids=qids)
            judged = effective_judgments(self.store, assessors, policy=self.policy).topics
            replays = [
                replay_topic(
                    order,
                    self.pool_topic(name, qid),
                    dict(zip(info.runs, topic_lists(lists.runs, qid), strict=True)),
                    {qid: judged[qid]},
                    info.seed,
                    min_grade,
                )
                for qid in qids
            ]
            cases = calibration_cases({order: replays})
            _CALIBRATIONS.clear()  # one project, pool and set of topics at a time
            _CALIBRATIONS[key] = (
                fit_calibration(
                    cases,
                    f"{len(qids)} topics of this project judged whole, and the built-in "
                    "calibration",
                    prior=builtin_calibration(),
                )
                if cases
                else None
            )
        return _CALIBRATIONS[key]

    # -- writing ---------------------------------------------------------------------------
    def pooled_without_text(self, name: str) -> tuple[int, int]:
        """(pooled documents whose text is not in the project, pooled documents), counting
        a document once per topic: what the assessors of pool `name` would judge blind."""
        pooled = self.store.pools.doc_ids(name)
        with_text = self.store.documents.ids_with_text()
        total = sum(int(ids.size) for ids in pooled.values())
        missing = sum(int(np.count_nonzero(~np.isin(ids, with_text))) for ids in pooled.values())
        return missing, total

    def create_pool(
        self,
        name: str,
        *,
        runs: Sequence[str] | None = None,
        strategy: str = "depth",
        params: Mapping[str, Any] | None = None,
        judging_order: str = DEFAULT_ORDER,
        seed: int = 0,
        qids: Sequence[str] | None = None,
        progress: ProgressFn | None = None,
    ) -> PoolInfo:
        """Pool the chosen runs (all by default) over the chosen topics (all the runs have)
        and store the pool under `name`."""
        _check_order(judging_order)
        clean = _normalise(strategy, params or {})
        if self.store.pools.has(name):
            raise StoreError(f"the project already has a pool named {name!r}")
        lists = self.store.runs.ranked_lists(runs=runs, qids=qids)
        if not lists.runs:
            raise StoreError("the project has no runs to pool")
        if qids is not None:
            clean["topics"] = list(qids)
        judged = None
        if strategy == "sample":  # documents judged now form the sample's certain stratum
            everything = effective_judgments(self.store, policy=self.policy).topics
            judged = {q: ids for q, (ids, _) in everything.items()}
        topics = build_pool(lists.runs, strategy, clean, qids, progress, judged=judged, seed=seed)
        return self.store.pools.add(
            name,
            strategy=strategy,
            params=clean,
            judging_order=judging_order,
            seed=seed,
            runs=list(lists.runs),
            topics=topics,
        )

    def extend_pool(
        self,
        name: str,
        *,
        runs: Sequence[str] = (),
        params: Mapping[str, Any] | None = None,
        progress: ProgressFn | None = None,
    ) -> PoolInfo:
        """Grow a pool: add `runs` and/or change `params` (a depth never below the pool's;
        for Take@N pools `budget` is how many new documents per topic to add, the pool's
        budget by default). No pooled document is ever dropped and judgments stay."""
        report = progress or no_progress
        info = self.store.pools.get(name)
        if info.strategy == "sample":
            raise StoreError(f"pool {name!r} is a sample; a sample cannot grow (draw a new one)")
        all_runs = list(info.runs) + [r for r in dict.fromkeys(runs) if r not in info.runs]
        merged = {k: v for k, v in info.params.items() if k not in ("extensions", "topics")}
        merged.update(params or {})
        if "depth" in info.params and merged.get("depth", 0) < info.params["depth"]:
            raise StoreError(
                f"pool {name!r} has depth {info.params['depth']}; a pool cannot get shallower"
            )
        clean = _normalise(info.strategy, merged)
        qids = info.params.get("topics")
        old = self.pool_topics(name)
        lists = self.store.runs.ranked_lists(runs=all_runs, qids=qids)
        wanted = (
            list(qids)
            if qids is not None
            else sorted(set(old) | {q for t in lists.runs.values() for q in t}, key=str.encode)
        )
        grown: dict[str, PoolTopic] = {}
        for n, qid in enumerate(wanted):
            report(n, len(wanted), f"topic {qid}")
            before = old.get(qid) or empty_topic(qid, info.runs)
            grown[qid] = extend_topic(
                before, all_runs, topic_lists(lists.runs, qid), info.strategy, clean
            )
        report(len(wanted), len(wanted), "pooled")
        stored = dict(info.params)
        if "depth" in clean:  # the pool's depth now; budgets and the rest stay as created
            stored["depth"] = clean["depth"]
        stored["extensions"] = [
            *info.params.get("extensions", []),
            {
                "runs": [r for r in all_runs if r not in info.runs],
                "params": clean,
                "at": utcnow().isoformat(timespec="seconds"),
            },
        ]
        return self.store.pools.update(name, runs=all_runs, params=stored, topics=grown)

    def set_judging_order(self, name: str, judging_order: str, seed: int | None = None) -> Changes:
        _check_order(judging_order)
        return self.store.pools.set_judging_order(name, judging_order, seed)
