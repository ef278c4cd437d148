"""Live evaluation for the evaluator's dashboard (no Qt): every run, every judged topic,
recomputed topic by topic as judgments change.

:class:`LiveEvaluation` holds one :class:`~judgeapp.measures.Evaluator` over all runs of a
project, fed with the effective judgments the dashboard's filter selects (one person or all,
imported qrels sources or not, relevance level). Semantics are ``trec_eval -c -l LEVEL``:
topics are the judged topics, a run's missing topic counts 0, means are over every judged
topic. ``update(qids)`` re-reads only those topics' judgments from the store and recomputes
them for every run; ``snapshot()`` returns an immutable :class:`Snapshot` (copies of the
arrays) that the GUI thread can read while the next update runs elsewhere.

Beside the measures the user chose, the evaluator always computes what the plots need:
AP (per-topic difference against a baseline), the eleven interpolated precisions of
trec_eval's ``iprec_at_recall`` (precision-recall curves), nDCG at a ladder of cutoffs
(nDCG@k against k) and Judged@k (coverage warnings).

Ranking stability: the ranking of the runs (by the first averaged measure of the table) is
kept at checkpoints every ``checkpoint_every`` judgments; on load the checkpoints are rebuilt
by replaying the judgment history, topic by topic, through a one-measure evaluator. Kendall's
tau (``scipy.stats.kendalltau``, tau-b) compares the current ranking with the newest
checkpoints and with the one the "settled" verdict reads (``Snapshot.stability``, computed
when asked: the dashboard asks in the background, with the significance tests).

Judging progress (``ProgressCurve``): relevant found against documents judged by the chosen
persons, read from the history once per topic, then kept up to date by each update; the
pooling estimate of the total relevant (``estimate_total``) is left to the background too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgeapp.measures import (
    DEFAULT_GUI_MEASURES,
    EvalOptions,
    Evaluator,
    Judgments,
    Measure,
    MeasureError,
    Results,
    Run,
    parse_measures,
)
from judgeapp.measures.family import ELEVEN_LEVELS
from judgeapp.services.bounds import Bounds, evaluation_bounds, pooled_documents
from judgeapp.services.evaluation import judgments_from_store, runs_from_store
from judgeapp.services.policy import effective_judgments, judging_events, parse_policy
from judgeapp.services.pools import PoolService
from judgeapp.store import Store

NDCG_CUTOFFS: tuple[int, ...] = (1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000)
RECENT_CHECKPOINTS = 3  # checkpoints compared with the current ranking (and the reference)
SETTLED_TAU = 0.9  # Voorhees (SIGIR 1998): rankings with tau >= 0.9 count as equivalent


# -- choices ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JudgmentFilter:
    """Which judgments drive the dashboard.

    ``assessor``: one assessor or imported source by name, or None for every person;
    ``include_sources``: add the imported qrels sources (ignored when ``assessor`` is a
    source); ``relevance_level``: lowest grade counted relevant (trec_eval -l)."""

    assessor: str | None = None
    include_sources: bool = True
    relevance_level: int = 1
    policy: str = "newest"  # which judgment counts (judgeapp.services.policy)

    def resolve(self, store: Store) -> tuple[list[str] | None, list[str]]:
        """(assessor names for the store, None meaning all; the persons among them)."""
        everyone = store.team.assessors()
        persons = [a.name for a in everyone if a.kind == "person"]
        sources = [a.name for a in everyone if a.kind != "person"]
        if self.assessor is not None:
            if self.assessor in sources:
                return [self.assessor], []
            chosen = [self.assessor]
            return (chosen + sources if self.include_sources else chosen), chosen
        if self.include_sources:
            return None, persons
        return persons, persons

    def describe(self) -> str:
        who = self.assessor or "all assessors"
        extra = " + imported qrels" if self.include_sources else ""
        policy = "" if self.policy == "newest" else f", {self.policy} judgment counts"
        return f"{who}{extra}{policy}, relevant from grade {self.relevance_level}"


@dataclass(frozen=True, slots=True)
class DashboardConfig:
    """What the dashboard evaluates (a change of any of these means a full evaluation)."""

    measures: tuple[str, ...] = DEFAULT_GUI_MEASURES
    judgments: JudgmentFilter = field(default_factory=JudgmentFilter)
    judged_k: int = 10
    judged_threshold: float = 0.8  # warn when a run's mean Judged@k is below this
    checkpoint_every: int = 25  # judgments between two ranking checkpoints
    settle_window: int = 100  # the ranking counts as settled when tau against the ranking
    settled_tau: float = SETTLED_TAU  # this many judgments ago is at least settled_tau


@dataclass(frozen=True, slots=True)
class MeasureProblem:
    line: int  # 1-based line of the entry
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line} ({self.text}): {self.message}"


def validate_measures(lines: Iterable[str]) -> tuple[list[Measure], list[MeasureProblem]]:
    """Measures from an editable list, one entry per line in ir_measures or trec_eval
    syntax (``nDCG@10``, ``P.5,10``, ``map``); blank lines and ``#`` comments skipped.
    Returns the measures (duplicates dropped, order kept) and one problem per bad line."""
    measures: list[Measure] = []
    problems: list[MeasureProblem] = []
    seen: set[Measure] = set()
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            parsed = parse_measures([text])
            for m in parsed:
                m.check_complete()
        except (MeasureError, ValueError) as exc:
            problems.append(MeasureProblem(number, text, str(exc)))
            continue
        bad = [m for m in parsed if m.aggregate == "text"]
        if bad:
            problems.append(MeasureProblem(number, text, f"{bad[0]} is text, not a number"))
            continue
        for m in parsed:
            if m not in seen:
                seen.add(m)
                measures.append(m)
    return measures, problems


# -- results the GUI reads ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProgressCurve:
    """Judging progress of one topic: after the i-th judged document (in the order the
    documents were first judged), ``relevant[i]`` of them are relevant now."""

    qid: str
    relevant: np.ndarray  # int64, cumulative relevant found
    pool_size: int | None  # pooled documents of the topic in the pool being judged
    estimate: tuple[float, float, float] | None = None  # total relevant (point, low, high)

    @property
    def judged(self) -> int:
        return int(self.relevant.size)

    @property
    def found(self) -> int:
        return int(self.relevant[-1]) if self.relevant.size else 0


@dataclass(frozen=True, slots=True)
class Checkpoint:
    judgments: int  # judgments made (changes of an effective grade) when it was taken
    means: np.ndarray  # the ranking measure's mean per run


@dataclass(frozen=True, slots=True)
class Stability:
    """Kendall's tau of the current system ranking against earlier checkpoints."""

    measure: str
    judgments: int  # judgments made so far
    points: tuple[tuple[int, float], ...]  # (judgments at the checkpoint, tau vs now)
    window: int
    threshold: float

    @property
    def reference(self) -> tuple[int, float] | None:
        """The newest checkpoint at least `window` judgments old, with its tau."""
        old = [p for p in self.points if p[0] <= self.judgments - self.window]
        return old[-1] if old else None

    @property
    def settled(self) -> bool | None:
        """True/False once a checkpoint old enough exists, None before."""
        ref = self.reference
        if ref is None or math.isnan(ref[1]):
            return None
        return ref[1] >= self.threshold


@dataclass(frozen=True, slots=True)
class DashboardWarning:
    kind: str  # "coverage" or "stability"
    text: str
    run: str | None = None
    severity: int = 1  # 0 info, 1 warning


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the dashboard shows, as copies (safe to read from another thread).

    Arrays are indexed [measure, run], [measure, run, topic], [run, topic] and
    [run, topic, level]; means are NaN while no topic is judged."""

    generation: int
    version: int  # increases with every update of the same evaluation
    config: DashboardConfig
    run_names: tuple[str, ...]
    qids: tuple[str, ...]
    measures: tuple[Measure, ...]
    means: np.ndarray
    per_topic: np.ndarray
    ap: np.ndarray
    iprec: np.ndarray
    iprec_mean: np.ndarray  # [run, level]: trec_eval's iprec_at_recall summary
    ndcg_cutoffs: tuple[int, ...]
    ndcg: np.ndarray
    ndcg_mean: np.ndarray  # [run, cutoff]
    judged_at_k: np.ndarray  # mean Judged@k per run
    changed_topics: frozenset[str]
    judgments: int
    warnings: tuple[DashboardWarning, ...]  # judging coverage (ranking stability: below)
    progress: ProgressCurve | None
    results: Results  # the table's measures only, for trec_eval-format output
    rank_measure: str  # the measure the system ranking is read from
    rank_means: np.ndarray  # its mean per run
    checkpoints: tuple[Checkpoint, ...]  # the ranking at earlier points of the judging
    made: int = 0  # judgments the filter's persons hold now (undone ones are not counted)

    @property
    def num_topics(self) -> int:
        return len(self.qids)

    @property
    def stability(self) -> Stability | None:
        """Kendall's tau against the checkpoints (computed when asked: the dashboard asks
        in the background, after the numbers are on screen)."""
        return stability_of(self)

    def topic_index(self, qid: str) -> int:
        return self.qids.index(qid)


# -- the live evaluation ----------------------------------------------------------------------


def _ranking_measure(measures: Sequence[Measure]) -> Measure:
    """The measure the system ranking is read from: the table's first averaged one."""
    for m in measures:
        if m.aggregate == "mean":
            return m
    return Measure("AP")


class LiveEvaluation:
    """One project's runs evaluated against the filtered judgments, kept up to date."""

    def __init__(
        self,
        store: Store,
        config: DashboardConfig | None = None,
        runs: Sequence[Run] | None = None,
        *,
        generation: int = 0,
        pool: str | None = None,
        history: bool = True,
    ) -> None:
        self.store = store
        self.config = config or DashboardConfig()
        self.generation = generation
        self.version = 0
        self.pool = pool
        self.runs: list[Run] = list(runs) if runs is not None else runs_from_store(store.runs)
        self.measures: tuple[Measure, ...] = tuple(validate_measures(self.config.measures)[0])
        if not self.measures:
            raise MeasureError("no valid measure to show")
        level = self.config.judgments.relevance_level
        self.options = EvalOptions(relevance_level=level, complete=True)
        self._ap = Measure("AP")
        self._iprec = [Measure("IPrec", x) for x in ELEVEN_LEVELS]
        self._ndcg = [Measure("nDCG", k) for k in NDCG_CUTOFFS]
        self._judged = Measure("Judged", self.config.judged_k)
        self._rank_measure = _ranking_measure(self.measures)
        self.assessors, self.persons = self.config.judgments.resolve(store)
        self.policy = parse_policy(self.config.judgments.policy).bind(store)
        self._known = {a.name for a in store.team.assessors()}
        self._all = list(
            dict.fromkeys([*self.measures, self._ap, *self._iprec, *self._ndcg, self._judged])
        )
        self._pool_sizes: dict[str, int] | None = None
        self.judgments = 0
        self.last_topic: str | None = None  # the topic of the newest judgment made
        self.checkpoints: list[Checkpoint] = []
        self.changed: frozenset[str] = frozenset()
        # judging progress per topic: doc -> (position in the judging, grade), kept up to date
        self._progress: dict[str, dict[int, tuple[int, int]]] = {}
        self._progress_seq: dict[str, int] = {}
        self._progress_persons: list[str] = []
        self._made: dict[str, int] = {}  # qid -> judgments the persons hold in it
        self._build()
        if history:
            self._replay_history()
        else:
            self._checkpoint()

    # -- building ---------------------------------------------------------------------------
    def _build(self) -> None:
        judgments = judgments_from_store(self.store, self.assessors, self.policy)
        for qid in [q for q, tj in judgments.topics.items() if not len(tj)]:
            del judgments.topics[qid]
        self.evaluator = Evaluator(judgments, self.runs, self._all, self.options)
        self.evaluator.evaluate()
        self._index = {str(m): i for i, m in enumerate(self.evaluator.measures)}
        self._made = {}
        if self.persons:
            for j in self.store.judgments.all(assessors=self.persons):
                self._made[j.qid] = self._made.get(j.qid, 0) + 1

    def _count_made(self, qid: str) -> None:
        if self.persons:
            self._made[qid] = len(self.store.judgments.all(qid, self.persons))

    def reload(self) -> None:
        """Evaluate everything again from the store (new runs, qrels imported, ...)."""
        self.runs = runs_from_store(self.store.runs)
        self.assessors, self.persons = self.config.judgments.resolve(self.store)
        self.policy = parse_policy(self.config.judgments.policy).bind(self.store)
        self._known = {a.name for a in self.store.team.assessors()}
        self._pool_sizes = None
        self._build()
        self.version += 1

    # -- live updates ------------------------------------------------------------------------
    def update(self, qids: Iterable[str], assessor: str | None = None) -> frozenset[str]:
        """Re-read the judgments of `qids` and recompute those topics for every run.
        `assessor`: who judged (the GUI's current assessor); one the evaluation has not
        seen yet is added when the filter takes every person. Returns the topics whose
        effective judgments actually changed."""
        changed: set[str] = set()
        made = 0
        if assessor is not None and assessor not in self._known:
            self.assessors, self.persons = self.config.judgments.resolve(self.store)
            self.policy = parse_policy(self.config.judgments.policy).bind(self.store)
            self._known = {a.name for a in self.store.team.assessors()}
        topics = self.evaluator.judgments.topics
        for qid in qids:
            self._count_made(qid)
            state = self._progress.get(qid)
            if state is not None and self._progress_persons == self.persons:
                self._progress_refresh(qid, state)  # every update: undone ones leave it
            arrays = effective_judgments(self.store, self.assessors, qid, self.policy).topics
            ids, grades = arrays.get(qid, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
            old = topics.get(qid)
            grades_changed = _changed_grades(old, ids, grades)
            if grades_changed:
                made += grades_changed
                self.last_topic = qid
            if (
                old is not None
                and np.array_equal(old.docids, ids)
                and np.array_equal(old.grades, grades)
            ):
                continue
            changed.add(qid)
            if ids.size == 0:
                # the topic is no longer judged: trec_eval would not see it at all
                self.evaluator.remove_topic(qid)
                continue
            self.evaluator.set_topic_judgments(qid, ids, grades)
            self.evaluator.recompute_topic(qid)
        self.version += 1
        self.changed = frozenset(changed)
        if made:
            before = self.judgments
            self.judgments += made
            every = self.config.checkpoint_every
            if before // every != self.judgments // every:
                self._checkpoint()
        return self.changed

    def bounds_job(self) -> Callable[[], Bounds]:
        """A function (to call in any thread) giving the bounds of the table's measures over
        the project's pools (judgeapp.services.bounds), from a copy of today's judgments."""
        judgments = Judgments(dict(self.evaluator.judgments.topics))
        runs, measures, options, store = list(self.runs), self.measures, self.options, self.store

        def work() -> Bounds:
            grade = max(store.settings.relevant_from(), options.relevance_level)
            pooled = pooled_documents(store)
            return evaluation_bounds(judgments, runs, measures, options, pooled, grade)

        return work

    def set_pool(self, pool: str | None) -> None:
        self.pool = pool
        self._pool_sizes = None

    # -- reading ------------------------------------------------------------------------------
    def _values(self, results: Results, measures: Sequence[Measure]) -> np.ndarray:
        return results.values[[self._index[str(m)] for m in measures]]

    def _summary(self, summary: np.ndarray, measures: Sequence[Measure]) -> np.ndarray:
        return summary[[self._index[str(m)] for m in measures]]

    def snapshot(self, progress_topic: str | None = None) -> Snapshot:
        """The current state; the progress curve of `progress_topic`, or of the topic of
        the newest judgment when None."""
        progress_topic = progress_topic or self.last_topic
        results = self.evaluator.results()
        summary = _summary(results)
        user = [self._index[str(m)] for m in self.measures]
        empty = not results.qids
        means = summary[user].copy()
        if empty:
            means[:] = np.nan
        ap = results.values[self._index[str(self._ap)]].copy()
        iprec = np.moveaxis(self._values(results, self._iprec), 0, 2).copy()
        ndcg = np.moveaxis(self._values(results, self._ndcg), 0, 2).copy()
        judged = summary[self._index[str(self._judged)]].copy()
        iprec_mean = self._summary(summary, self._iprec).T.copy()
        ndcg_mean = self._summary(summary, self._ndcg).T.copy()
        if empty:
            for array in (judged, iprec_mean, ndcg_mean):
                array[:] = np.nan
        table = Results(
            measures=self.measures,
            run_names=results.run_names,
            runids=results.runids,
            qids=results.qids,
            values=results.values[user].copy(),
            evaluated=results.evaluated.copy(),
            texts={},
            complete=True,
            complete_num_rel=results.complete_num_rel,
        )
        return Snapshot(
            generation=self.generation,
            version=self.version,
            config=self.config,
            run_names=results.run_names,
            qids=results.qids,
            measures=self.measures,
            means=means,
            per_topic=table.values,
            ap=ap,
            iprec=iprec,
            iprec_mean=iprec_mean,
            ndcg_cutoffs=NDCG_CUTOFFS,
            ndcg=ndcg,
            ndcg_mean=ndcg_mean,
            judged_at_k=judged,
            changed_topics=self.changed,
            judgments=self.judgments,
            warnings=tuple(coverage_warnings(self.config, results.run_names, judged)),
            progress=None if progress_topic is None else self.progress(progress_topic),
            results=table,
            rank_measure=str(self._rank_measure),
            rank_means=self._rank_means(summary),
            checkpoints=tuple(self.checkpoints),
            made=sum(self._made.values()),
        )

    def _rank_means(self, summary: np.ndarray | None = None) -> np.ndarray:
        if summary is None:
            summary = self.evaluator.results().summary()
        means: np.ndarray = summary[self._index[str(self._rank_measure)]].copy()
        return means

    # -- ranking stability ---------------------------------------------------------------------
    def _checkpoint(self) -> None:
        if self.evaluator.qids:
            self.checkpoints.append(Checkpoint(self.judgments, self._rank_means()))

    def stability(self) -> Stability | None:
        return self.snapshot().stability

    def _replay_history(self) -> None:
        """Rebuild the checkpoints from the judgment history: the events of the chosen
        assessors in order, each changing one effective grade; a checkpoint every
        `checkpoint_every` grade changes made by persons (imported qrels count as the state
        judging starts from, not as judgments made)."""
        everyone = {a.id: a for a in self.store.team.assessors()}
        chosen = (
            set(everyone)
            if self.assessors is None
            else {i for i, a in everyone.items() if a.name in set(self.assessors)}
        )
        persons = {i for i in chosen if everyone[i].kind == "person"}
        events = (((q, d), a, g) for q, d, a, g in self.store.history.events() if a in chosen)
        evaluator = Evaluator(Judgments(), self.runs, [self._rank_measure], self.options)
        current: dict[str, dict[int, int]] = {}
        dirty: set[str] = set()
        every = self.config.checkpoint_every
        made = 0

        def flush() -> None:
            for qid in dirty:
                docs = current.get(qid, {})
                ids = np.fromiter(docs.keys(), dtype=np.int64, count=len(docs))
                grades = np.fromiter(docs.values(), dtype=np.int64, count=len(docs))
                evaluator.set_topic_judgments(qid, ids, grades)
            dirty.clear()
            if evaluator.qids:
                results = evaluator.evaluate()
                self.checkpoints.append(Checkpoint(made, results.summary()[0].copy()))

        for (qid, doc), assessor, before, after in self.policy.replay(events):
            if after == before:
                continue
            if assessor in persons:
                if made == 0 and not self.checkpoints:
                    flush()  # the state before the first judgment (imported qrels)
                made += 1
                self.last_topic = qid
            docs = current.setdefault(qid, {})
            if after is None:
                docs.pop(doc, None)
            else:
                docs[doc] = after
            dirty.add(qid)
            if assessor in persons and made % every == 0:
                flush()
        self.judgments = made
        if not self.checkpoints or self.checkpoints[-1].judgments != made:
            self._checkpoint()

    # -- judging progress ----------------------------------------------------------------------
    def pool_size(self, qid: str) -> int | None:
        if self.pool is None:
            return None
        if self._pool_sizes is None:
            try:
                self._pool_sizes = self.store.pools.sizes(self.pool)
            except Exception:  # the pool was deleted meanwhile
                self._pool_sizes = {}
        return self._pool_sizes.get(qid)

    def progress(self, qid: str) -> ProgressCurve:
        """Relevant documents found against documents judged for one topic, counting the
        chosen persons' judgments (imported qrels are not judging progress).

        The order is the order in which the documents judged now were judged (a document
        whose judgment was undone and given again counts from the new one). It is read from
        the judgment history the first time a topic is shown; after that each update of
        the topic applies what changed, from the persons' current judgments of it."""
        level = self.config.judgments.relevance_level
        state = self._progress.get(qid)
        if state is None or self._progress_persons != self.persons:
            state = self._progress_from_history(qid)
        order = sorted(state, key=lambda d: state[d][0])
        relevant = np.cumsum(
            np.fromiter((state[d][1] >= level for d in order), dtype=np.int64, count=len(order))
        )
        return ProgressCurve(qid, relevant, self.pool_size(qid))

    def _progress_from_history(self, qid: str) -> dict[int, tuple[int, int]]:
        if self._progress_persons != self.persons:
            self._progress.clear()
            self._progress_persons = list(self.persons)
        events = judging_events(self.store, qid, self.persons) if self.persons else []
        state: dict[int, tuple[int, int]] = {}  # doc -> (position, grade)
        for i, (doc, g) in enumerate(events):
            if g is None:
                state.pop(doc, None)
            else:
                state[doc] = (state[doc][0] if doc in state else i, g)
        self._progress[qid] = state
        self._progress_seq[qid] = len(events)
        return state

    def _progress_refresh(self, qid: str, state: dict[int, tuple[int, int]]) -> None:
        arrays = effective_judgments(self.store, self.persons, qid).topics if self.persons else {}
        ids, grades = arrays.get(qid, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        now = dict(zip(ids.tolist(), grades.tolist(), strict=True))
        for doc in [d for d in state if d not in now]:
            del state[doc]
        seq = self._progress_seq.get(qid, 0)
        for doc, g in now.items():
            if doc in state:
                state[doc] = (state[doc][0], g)
            else:
                state[doc] = (seq, g)
                seq += 1
        self._progress_seq[qid] = seq


def coverage_warnings(
    config: DashboardConfig, runs: Sequence[str], judged: np.ndarray
) -> list[DashboardWarning]:
    """Runs whose top ranks are poorly judged (mean Judged@k below the threshold): a summary
    line, then one line per run, worst first."""
    k, limit = config.judged_k, config.judged_threshold
    low = [int(r) for r in np.argsort(judged, kind="stable") if judged[r] < limit]
    if not low:
        return []
    lowest, highest = judged[low[0]], judged[low[-1]]
    span = f"{lowest:.0%}" if lowest == highest else f"{lowest:.0%} to {highest:.0%}"
    out = [
        DashboardWarning(
            "coverage",
            f"{len(low)} of {len(runs)} runs have fewer than {limit:.0%} of their top {k} "
            f"judged ({span}): their scores are likely underestimated",
        )
    ]
    out += [
        DashboardWarning("coverage", f"{runs[r]}: Judged@{k} = {judged[r]:.0%}", runs[r])
        for r in low
    ]
    return out


def stability_of(snapshot: Snapshot) -> Stability | None:
    """Kendall's tau (scipy.stats.kendalltau, tau-b) of the snapshot's system ranking
    against the newest checkpoints and against the one the "settled" verdict reads."""
    if len(snapshot.run_names) < 2:
        return None
    from scipy.stats import kendalltau

    config, made, now = snapshot.config, snapshot.judgments, snapshot.rank_means
    earlier = [cp for cp in snapshot.checkpoints if cp.judgments < made]
    old = [i for i, cp in enumerate(earlier) if cp.judgments <= made - config.settle_window]
    keep = set(range(max(len(earlier) - RECENT_CHECKPOINTS, 0), len(earlier))) | set(old[-1:])
    points = []
    for i, cp in enumerate(earlier):
        if i not in keep:
            continue
        if np.ptp(cp.means) == 0 or np.ptp(now) == 0:
            tau = float("nan")  # a ranking of ties (e.g. nothing relevant yet)
        else:
            tau = float(kendalltau(now, cp.means).statistic)
        points.append((cp.judgments, tau))
    return Stability(
        snapshot.rank_measure, made, tuple(points), config.settle_window, config.settled_tau
    )


def stability_warning(stability: Stability | None) -> DashboardWarning | None:
    """Whether the system ranking has settled, in words."""
    if stability is None:
        return None
    ref = stability.reference
    if ref is None:
        return DashboardWarning(
            "stability",
            f"Ranking by {stability.measure}: fewer than {stability.window} judgments so "
            "far, too early to tell whether it has settled",
            severity=0,
        )
    ago = stability.judgments - ref[0]
    if stability.settled:
        return DashboardWarning(
            "stability",
            f"Ranking by {stability.measure} has settled: Kendall's tau {ref[1]:.3f} "
            f"against the ranking {ago} judgments ago",
            severity=0,
        )
    tau = "undefined" if math.isnan(ref[1]) else f"{ref[1]:.3f}"
    return DashboardWarning(
        "stability",
        f"Ranking by {stability.measure} is still moving: Kendall's tau {tau} against the "
        f"ranking {ago} judgments ago (settled from {stability.threshold})",
    )


def _summary(results: Results) -> np.ndarray:
    """`results.summary()`, computing only the plain means when every measure is one: the
    engine's summary also takes logarithms of every value (for gm_map and the like), a
    few milliseconds at TREC scale, after every judgment. The means are summed topic by
    topic in trec_eval's order, as the engine sums them, so the numbers are the same."""
    if any(m.aggregate != "mean" for m in results.measures) or not results.complete:
        return results.summary()
    n = len(results.qids)
    values = np.where(results.evaluated[None, :, :], results.values, 0.0)
    sums: np.ndarray = np.moveaxis(values, 2, 0).sum(axis=0)
    return sums / n if n else sums


def _changed_grades(old: Any, ids: np.ndarray, grades: np.ndarray) -> int:
    """How many documents' effective grades differ between `old` and the new arrays."""
    if old is None:
        return int(ids.size)
    before = dict(zip(old.docids.tolist(), old.grades.tolist(), strict=True))
    after = dict(zip(ids.tolist(), grades.tolist(), strict=True))
    keys = before.keys() | after.keys()
    return sum(1 for k in keys if before.get(k) != after.get(k))


def estimate_total(
    store: Store,
    pool: str | None,
    qid: str,
    persons: Sequence[str],
    relevance_level: int = 1,
    level: float = 0.95,
) -> tuple[float, float, float] | None:
    """The pooling estimate of the topic's total relevant documents, (point, low, high) of
    a `level` interval (PoolService.estimate_relevant: Horvitz-Thompson on a sample pool, else
    extrapolation of the found-vs-judged curve over the pool), from the persons' judgments;
    None without a pool, a judgment or enough of a sample. Tens of milliseconds at TREC
    scale: the dashboard asks for it in the background."""
    if pool is None or not persons:
        return None
    try:
        found = PoolService(store).estimate_relevant(
            pool, qid, assessors=list(persons), min_grade=relevance_level, level=level
        )
    except Exception:  # the pool went away meanwhile, or the topic is not in it
        return None
    return None if found is None else (found.point, found.low, found.high)
