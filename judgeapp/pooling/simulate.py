"""Replaying judging with qrels as the assessor, and the pool-bias test.

`simulate` judges every pooled document of every topic in the order each strategy chooses,
taking the grade from the qrels (a pooled document the qrels lack counts as non-relevant),
and records after every judgment how many relevant documents were found. From that curve
`judgments_needed` reads how many judgments reached a share of the pool's relevant documents.

`pool_bias` is Zobel's test (SIGIR 1998) of how much a run's score depends on the documents
only it contributed to the pool: for each run, those documents lose their judgments (they
become unjudged, so non-relevant to AP), the run is evaluated again, and its change in score
and in rank among the other runs (scored on the full judgments) is reported, with Kendall's
tau between the ranking by full scores and the ranking by the reduced scores.

`check_estimates` asks the curve estimator, as the window asks it, at given shares of each
replayed pool and checks its intervals against the truth (`simulate --check-estimates`);
`calibration_cases` gives what fitting a calibration needs (judgeapp.pooling.calibration);
`check_stopping` replays the stopping rule (`simulate --stop-at R --confidence C`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judgeapp.pooling.calibration import SHARES, Calibration, CalibrationCase
from judgeapp.pooling.estimate import MIN_FOUND, CurveFit, fit_curve
from judgeapp.pooling.order import ORDERS, make_order
from judgeapp.pooling.pools import PoolTopic, topic_seed

FRACTIONS = (0.5, 0.8, 0.9, 1.0)
Qrels = Mapping[str, tuple[np.ndarray, np.ndarray]]  # qid -> (doc ids, grades)
ProgressFn = Callable[[int, int | None, str], None]


@dataclass(frozen=True, slots=True)
class TopicReplay:
    """One topic judged to the end in one strategy's order."""

    qid: str
    order: np.ndarray  # doc ids in the order they were judged
    relevant_at: np.ndarray  # bool, parallel to `order`
    unjudged: int  # pooled documents the qrels do not grade (counted as non-relevant)

    @property
    def pool_size(self) -> int:
        return len(self.order)

    @property
    def relevant(self) -> int:
        return int(self.relevant_at.sum())

    @property
    def found(self) -> np.ndarray:
        """Relevant documents found after 1, 2, ... judgments."""
        return np.cumsum(self.relevant_at)

    def judgments_needed(self, fraction: float) -> int:
        return judgments_needed(self.found, self.relevant, fraction)


def judgments_needed(found: np.ndarray, relevant: int, fraction: float) -> int:
    """The fewest judgments after which at least ceil(fraction x relevant) relevant documents
    were found (0 when that is 0)."""
    target = math.ceil(fraction * relevant - 1e-9)
    if target <= 0:
        return 0
    return int(np.searchsorted(found, target) + 1)


def grades_for(topic: PoolTopic, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Grades of the pooled documents from `qrels`, and which of them the qrels lack."""
    ids, grades = qrels.get(topic.qid, (np.empty(0, np.int64), np.empty(0, np.int64)))
    ids = np.asarray(ids, np.int64)
    order = np.argsort(ids, kind="stable")
    ids, grades = ids[order], np.asarray(grades)[order]
    pos = np.searchsorted(ids, topic.doc_ids)
    pos = np.minimum(pos, max(len(ids) - 1, 0))
    known = ids[pos] == topic.doc_ids if len(ids) else np.zeros(len(topic), bool)
    pooled_grades = np.where(known, grades[pos] if len(ids) else 0, 0)
    return pooled_grades.astype(np.int64), ~known


def replay_topic(
    strategy: str,
    topic: PoolTopic,
    run_lists: Mapping[str, np.ndarray],
    qrels: Qrels,
    seed: int = 0,
    min_grade: int = 1,
    priors: Mapping[int, float] | None = None,
    *,
    texts: Mapping[int, str] | None = None,
    query: str = "",
) -> TopicReplay:
    """Judge every pooled document of `topic` in `strategy`'s order (`priors`, doc id ->
    an automatic judge's score, for the `suggested` order; `texts`, doc id -> text, and
    the topic statement `query` for an order that learns from text)."""
    grades, missing = grades_for(topic, qrels)
    grade_of = dict(zip(topic.doc_ids.tolist(), grades.tolist(), strict=True))
    params: dict[str, object] = {"priors": priors or {}} if strategy == "suggested" else {}
    if strategy in ORDERS and ORDERS[strategy].needs_text:
        params = {"texts": texts or {}, "query": query}
    order = make_order(strategy, topic, run_lists, topic_seed(seed, topic.qid), **params)
    seen, rel = [], []
    while (doc := order.next_doc()) is not None:
        grade = grade_of[doc]
        relevant = grade >= min_grade
        order.record(doc, grade, relevant)
        seen.append(doc)
        rel.append(relevant)
    return TopicReplay(topic.qid, np.array(seen, np.int64), np.array(rel, bool), int(missing.sum()))


def simulate(
    strategies: Sequence[str],
    pool: Mapping[str, PoolTopic],
    lists: Mapping[str, Mapping[str, np.ndarray]],
    qrels: Qrels,
    *,
    seed: int = 0,
    min_grade: int = 1,
    progress: ProgressFn | None = None,
    priors: Mapping[str, Mapping[int, float]] | None = None,
    texts: Mapping[int, str] | None = None,
    queries: Mapping[str, str] | None = None,
) -> dict[str, list[TopicReplay]]:
    """Every strategy over every topic of `pool`; `lists` is run -> qid -> doc ids (the
    runs' full ranked lists, in pool run order); `priors` qid -> doc id -> score, the
    automatic judge's suggestions the `suggested` order replays; `texts` (doc id -> text)
    and `queries` (qid -> statement) for orders that learn from text (`cal`)."""
    out: dict[str, list[TopicReplay]] = {}
    total = len(strategies) * len(pool)
    done = 0
    for strategy in strategies:
        replays = []
        for qid, topic in pool.items():
            if progress:
                progress(done, total, f"{strategy} {qid}")
            run_lists = {
                run: topics.get(qid, np.empty(0, np.int64)) for run, topics in lists.items()
            }
            suggested = (priors or {}).get(qid)
            replays.append(
                replay_topic(
                    strategy,
                    topic,
                    run_lists,
                    qrels,
                    seed,
                    min_grade,
                    suggested,
                    texts=texts,
                    query=(queries or {}).get(qid, ""),
                )
            )
            done += 1
        out[strategy] = replays
    if progress:
        progress(total, total, "simulated")
    return out


def needed_table(
    results: Mapping[str, Sequence[TopicReplay]], fractions: Sequence[float] = FRACTIONS
) -> dict[str, list[int]]:
    """Per strategy: judgments needed for each fraction, summed over topics."""
    return {
        name: [sum(r.judgments_needed(f) for r in replays) for f in fractions]
        for name, replays in results.items()
    }


def summed_curve(replays: Sequence[TopicReplay]) -> np.ndarray:
    """Relevant documents found over all topics after n judgments per topic, n = 0, 1, ...
    up to the largest pool (a topic whose pool is judged stays at its total)."""
    longest = max((r.pool_size for r in replays), default=0)
    total = np.zeros(longest + 1, np.int64)
    for r in replays:
        found = np.r_[0, r.found]
        total[: len(found)] += found
        total[len(found) :] += found[-1]
    return total


# -- the pool-bias test ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BiasRow:
    run: str
    unique_docs: int  # pooled documents only this run contributed (over all topics)
    unique_relevant: int  # of which judged relevant
    score_full: float
    score_reduced: float
    rank_full: int  # 1 = best, among all runs scored on the full judgments
    rank_reduced: int  # the run's reduced score placed among the others' full scores

    @property
    def change(self) -> float:
        return self.score_reduced - self.score_full

    @property
    def change_percent(self) -> float:
        return 100.0 * self.change / self.score_full if self.score_full else 0.0


@dataclass(frozen=True, slots=True)
class BiasReport:
    measure: str
    rows: list[BiasRow]
    tau: float  # Kendall's tau: ranking by full scores vs ranking by reduced scores
    tau_p: float


def _ranks(scores: np.ndarray) -> np.ndarray:
    """1 = highest score; ties share the better rank."""
    return np.array([1 + int((scores > s).sum()) for s in scores])


def pool_bias(
    pool: Mapping[str, PoolTopic],
    runs: Mapping[str, Mapping[str, np.ndarray]],
    qrels: Qrels,
    *,
    measure: str = "AP",
    min_grade: int = 1,
    progress: ProgressFn | None = None,
) -> BiasReport:
    """Zobel's leave-one-run-out test over the topics of `pool` (`runs`: name -> qid -> doc
    ids in trec_eval order; the pool's runs). Scores are means over the pool's topics that
    the qrels judge, as trec_eval -c computes them."""
    from scipy.stats import kendalltau

    from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run

    qids = [q for q in pool if q in qrels]
    wanted = set(qids)
    options = EvalOptions(relevance_level=min_grade, complete=True)
    full = Judgments.from_arrays({q: qrels[q] for q in qids})
    run_objs = [
        Run.from_arrays(name, {q: ids for q, ids in topics.items() if q in wanted})
        for name, topics in runs.items()
    ]
    names = [r.name for r in run_objs]
    full_scores = Evaluator(full, run_objs, [measure], options).evaluate().mean(measure)
    unique = {q: pool[q].unique_to() for q in qids}
    reduced_scores = np.zeros(len(names))
    rows_data = []
    for i, run in enumerate(run_objs):
        if progress:
            progress(i, len(run_objs), f"pool bias {run.name}")
        reduced: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        n_unique = n_unique_rel = 0
        for q in qids:
            ids, grades = qrels[q]
            gone = unique[q].get(run.name, np.empty(0, np.int64))
            drop = np.isin(ids, gone)
            n_unique += len(gone)
            n_unique_rel += int((grades[drop] >= min_grade).sum())
            reduced[q] = (ids[~drop], grades[~drop])
        score = Evaluator(Judgments.from_arrays(reduced), [run], [measure], options)
        reduced_scores[i] = score.evaluate().mean(measure)[0]
        rows_data.append((n_unique, n_unique_rel))
    if progress:
        progress(len(run_objs), len(run_objs), "pool bias")
    rank_full = _ranks(full_scores)
    rows = []
    for i, name in enumerate(names):
        others = np.delete(full_scores, i)
        rows.append(
            BiasRow(
                run=name,
                unique_docs=rows_data[i][0],
                unique_relevant=rows_data[i][1],
                score_full=float(full_scores[i]),
                score_reduced=float(reduced_scores[i]),
                rank_full=int(rank_full[i]),
                rank_reduced=1 + int((others > reduced_scores[i]).sum()),
            )
        )
    if len(names) > 1:
        tau, p = kendalltau(full_scores, reduced_scores)
    else:
        tau, p = float("nan"), float("nan")
    return BiasReport(measure, rows, float(tau), float(p))


# -- checking the recall estimates and the stopping rule -------------------------------------


def case_seed(seed: int, qid: str, judged: int) -> int:
    """The Monte Carlo seed of one estimate: fixed by the topic and the judgments made."""
    return zlib.crc32(f"{seed}:{qid}:{judged}".encode())


def replay_fit(
    strategy: str,
    replay: TopicReplay,
    judged: int,
    calibration: Calibration | str | None = "built-in",
    seed: int = 0,
) -> CurveFit:
    """The curve estimator's model of a replayed topic after its first `judged` judgments,
    as the window would have it."""
    return fit_curve(
        replay.relevant_at[:judged],
        replay.pool_size,
        order=strategy,
        adaptive=ORDERS[strategy].adaptive if strategy in ORDERS else True,
        calibration=calibration,
        qid=replay.qid,
        seed=case_seed(seed, replay.qid, judged),
    )


def _each_replay(
    results: Mapping[str, Sequence[TopicReplay]], progress: ProgressFn | None, what: str
) -> Iterator[tuple[str, TopicReplay]]:
    """(strategy, replay) of every replayed topic, with progress."""
    total = sum(len(r) for r in results.values())
    done = 0
    for strategy, replays in results.items():
        for replay in replays:
            if progress:
                progress(done, total, f"{what} {strategy} {replay.qid}")
            done += 1
            yield strategy, replay
    if progress:
        progress(total, total, what)


def _at_share(replay: TopicReplay, share: float) -> int:
    return min(max(round(share * replay.pool_size), 1), replay.pool_size)


def calibration_cases(
    results: Mapping[str, Sequence[TopicReplay]],
    shares: Sequence[float] = SHARES,
    *,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> list[CalibrationCase]:
    """What fitting a calibration needs (judgeapp.pooling.calibration): each replayed topic
    judged down to each share, its predictive (uncalibrated) and where the truth sits in
    it. Topics an adaptive order has found nothing relevant in yet are left out (the
    estimator is conservative there), as are pools judged whole by then."""
    cases = []
    for strategy, replay in _each_replay(results, progress, "calibration cases"):
        found = replay.found
        for share in shares:
            n = _at_share(replay, share)
            if n >= replay.pool_size:
                continue
            fit = replay_fit(strategy, replay, n, None, seed)
            if fit.adaptive and fit.found < MIN_FOUND:
                continue
            left = replay.relevant - int(found[n - 1])
            cases.append(
                CalibrationCase(
                    strategy,
                    fit.adaptive,
                    share,
                    replay.pool_size,
                    fit.found,
                    fit.predictive.level(left),
                )
            )
    return cases


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """How often the estimator's intervals held the truth, over the cases of one cell."""

    strategy: str
    share: float  # of each pool judged
    level: float  # stated coverage
    cases: int
    coverage: float
    median_width: float  # of the interval of the relevant documents left
    uncalibrated: int  # cases shown with the conservative interval


def check_estimates(
    results: Mapping[str, Sequence[TopicReplay]],
    shares: Sequence[float],
    levels: Sequence[float],
    *,
    calibration: Calibration | str | None = "built-in",
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> list[CoverageRow]:
    """Every replayed topic judged down to each share, the estimator asked as the window
    asks it (`replay_fit`), its intervals at each level checked against the truth: the
    pool's relevant documents not judged yet."""
    got: dict[tuple[str, float, float], list[tuple[bool, int, bool]]] = {}
    for strategy, replay in _each_replay(results, progress, "estimates"):
        for share in shares:
            n = _at_share(replay, share)
            fit = replay_fit(strategy, replay, n, calibration, seed)
            left = replay.relevant - int(replay.found[n - 1])
            for level in levels:
                low, high = fit.interval(level)
                got.setdefault((strategy, share, level), []).append(
                    (low <= left <= high, high - low, not fit.calibrated)
                )
    rows = []
    for (strategy, share, level), cells in got.items():
        hits, widths, loose = zip(*cells, strict=True)
        rows.append(
            CoverageRow(
                strategy,
                share,
                level,
                len(cells),
                float(np.mean(hits)),
                float(np.median(widths)),
                int(sum(loose)),
            )
        )
    return rows


def stop_step(pool_size: int) -> int:
    """The stopping rule is checked after every fiftieth of the pool (rounded up), 50 times
    at most: each check is a chance to cross its bound early by chance, so the window
    checks it where the simulation that vouches for it did."""
    return max(1, math.ceil(pool_size / STOP_CHECKS))


STOP_CHECKS = 50


def stop_checkpoint(judged: int, pool_size: int) -> int:
    """The judgments up to the last check of the stopping rule (`stop_step`)."""
    return judged - judged % stop_step(pool_size)


@dataclass(frozen=True, slots=True)
class StopRow:
    """The stopping rule replayed on every topic of one judging order."""

    strategy: str
    topics: int
    target: float
    confidence: float
    reached: float  # share of topics whose recall when stopped was at least the target
    spent: int  # judgments made until the rule said stop (or the pool was judged), summed
    hindsight: int  # judgments that first reached the target recall, summed
    judged_whole: int  # topics whose rule never said stop before the pool was judged


def stop_at(
    strategy: str,
    replay: TopicReplay,
    target: float,
    confidence: float,
    *,
    calibration: Calibration | str | None = "built-in",
    seed: int = 0,
) -> int:
    """The judgments after which the stopping rule first says stop (the pool size when it
    never does before the pool is judged), checked at every `stop_checkpoint`."""
    size = replay.pool_size
    step = stop_step(size)
    for n in range(step, size, step):
        fit = replay_fit(strategy, replay, n, calibration, seed)
        if fit.stop_advice(target, confidence).stop:
            return n
    return size


def check_stopping(
    results: Mapping[str, Sequence[TopicReplay]],
    target: float,
    confidence: float,
    *,
    calibration: Calibration | str | None = "built-in",
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> list[StopRow]:
    """Every replayed topic judged until the stopping rule says stop: how many stopped at
    the target recall or above, and the judgments spent against the fewest that reached
    it (hindsight)."""
    counts: dict[str, list[int]] = {s: [0, 0, 0, 0, 0] for s in results}
    for strategy, replay in _each_replay(results, progress, "stopping"):
        n = stop_at(strategy, replay, target, confidence, calibration=calibration, seed=seed)
        found = int(replay.found[n - 1]) if n else 0
        recall = found / replay.relevant if replay.relevant else 1.0
        tally = counts[strategy]
        tally[0] += 1
        tally[1] += recall >= target - 1e-12
        tally[2] += n
        tally[3] += replay.judgments_needed(target)
        tally[4] += n >= replay.pool_size
    return [
        StopRow(s, n, target, confidence, reached / n if n else 0.0, spent, hindsight, whole)
        for s, (n, reached, spent, hindsight, whole) in counts.items()
    ]
