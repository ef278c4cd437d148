"""Bounds on each run's measures while a pool is partly judged: what the values could still
become once every pooled document is judged.

Each unjudged pooled document will be either not relevant (grade 0) or relevant (at
``grade``, the project's lowest relevant grade). A run's low and high are the least and the
greatest value over completions of the judgments, each evaluated by the measures engine (so
they are trec_eval's numbers), topic by topic. The completions tried, for each run and
each m from 0 to the number of unjudged documents the run ranks:

- ``best m``: the run's m best-ranked unjudged documents relevant, every other one not;
- ``worst m``: its m worst-ranked unjudged documents relevant, and every pooled one it
  does not rank, the others not;

(``best 0`` is today's value wherever an unjudged document counts as not relevant), plus
every unjudged document relevant and none. For measures that grow when a relevant document
moves up the ranking (R fixed) and never grow when a document the run does not rank becomes
relevant, the least and greatest value over every completion are among these, so the bounds
are exact and always hold the final value: AP, P, R, RR, nDCG, ERR, RBP, IPrec, ... (the
`PROVEN` families, checked against every completion of generated pools by
tests/services/test_bounds.py). R-precision and bpref are not such measures (their cutoff or
their count of non-relevant documents moves with R): for them the range is that of these
completions, which the final value can leave. Graded measures see relevant documents at
``grade`` only, so a final grade above it can leave the range too.

A mean's low (high) is the engine's summary of the topics' lows (highs). Every unjudged
pooled document is judged in each completion, so topics that are pooled but not judged yet
count too; each judgment removes completions, so the bounds narrow and meet at the final
value once the pool is judged.

The cost is one evaluation per run over 2 x (its unjudged pooled documents + 1) completions
per topic, each evaluated as a topic of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeapp.measures import EvalOptions, Evaluator, Judgments, Measure, Results, Run
from judgeapp.services.evaluation import judgments_from_store, runs_from_store
from judgeapp.services.policy import DEFAULT_POLICY, JudgmentPolicy
from judgeapp.store import Store

EMPTY = np.zeros(0, np.int64)
BATCH = 2_000_000  # ranked documents evaluated at once (memory: a few hundred MB at most)
# families whose bounds are the exact extremes over every completion (see above)
PROVEN = frozenset(
    "AP AP_11pt ERR IPrec Judged NumRel NumRelRet P R RBP RR SetF SetP SetR Success infAP "
    "nDCG".split()
)


@dataclass(frozen=True)
class Bounds:
    """Low and high values of `measures` for every run: per topic [measure, run, topic] and
    summarised as trec_eval's ``all`` line [measure, run]."""

    measures: tuple[Measure, ...]
    run_names: tuple[str, ...]
    qids: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    low_mean: np.ndarray
    high_mean: np.ndarray
    unjudged: int  # pooled documents without a judgment
    grade: int  # the grade the relevant completions give them

    def proven(self, measure: Measure | str) -> bool:
        """Whether the final value always lies within this measure's bounds."""
        m = self.measures[[str(x) for x in self.measures].index(str(measure))]
        return m.family in PROVEN

    def mean(self, measure: Measure | str, run: str) -> tuple[float, float]:
        """(low, high) of one run's summary value."""
        m = [str(x) for x in self.measures].index(str(measure))
        r = self.run_names.index(run)
        return float(self.low_mean[m, r]), float(self.high_mean[m, r])


def _split(ranking: np.ndarray, unjudged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the unjudged documents the ranking holds, in rank order; the others)."""
    held = ranking[np.isin(ranking, unjudged)]
    return held, np.setdiff1d(unjudged, held)


def evaluation_bounds(
    judgments: Judgments,
    runs: Sequence[Run],
    measures: Sequence[Measure],
    options: EvalOptions,
    pooled: Mapping[str, np.ndarray],
    grade: int,
) -> Bounds:
    """The bounds of `measures` for `runs` given today's `judgments` and the `pooled`
    document ids per topic (judged or not); relevant completions use `grade`."""
    measures = tuple(m for m in measures if m.aggregate != "text")
    runs = list(runs)
    topics: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for qid in sorted(set(judgments.topics) | set(pooled), key=str.encode):
        tj = judgments.topics.get(qid)
        ids = tj.docids if tj is not None else EMPTY
        grades = tj.grades if tj is not None else EMPTY
        unjudged = np.setdiff1d(np.asarray(pooled.get(qid, EMPTY), np.int64), ids)
        topics[qid] = (ids, grades, unjudged)

    def completed(qid: str, relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ids, grades, unjudged = topics[qid]
        return (
            np.concatenate([ids, unjudged]),
            np.concatenate([grades, np.where(np.isin(unjudged, relevant), grade, 0)]),
        )

    # every run at once, nothing more relevant and everything relevant: the layout of the
    # results, and the values of topics a run lacks (which depend on the judgments alone)
    none = Judgments.from_arrays({q: completed(q, EMPTY) for q in topics})
    base = Evaluator(none, runs, measures, options).evaluate()
    every = Judgments.from_arrays({q: completed(q, t[2]) for q, t in topics.items()})
    everything = Evaluator(every, runs, measures, options).evaluate()
    full = _aligned(everything, base)
    low, high = np.fmin(base.values, full), np.fmax(base.values, full)
    where = {q: t for t, q in enumerate(base.qids)}
    scenario_options = dataclasses.replace(options, complete=False)
    for r, run in enumerate(runs):
        # this run over every completion, each as a topic of its own, in batches of
        # about BATCH ranked documents
        batch: dict[str, tuple[tuple[np.ndarray, np.ndarray], np.ndarray, int]] = {}
        size = 0
        for qid, ranking in run.topics.items():
            if qid not in where or qid not in topics:
                continue
            ranked = ranking if options.max_docs is None else ranking[: options.max_docs]
            held, others = _split(ranked, topics[qid][2])
            for m in range(len(held) + 1):
                # the best m of the run's unjudged documents relevant, the others not; the
                # worst m relevant and every unjudged document it does not rank
                for kind, relevant in (
                    ("best", held[:m]),
                    ("worst", np.concatenate([held[len(held) - m :], others])),
                ):
                    batch[f"{qid}\x00{kind}{m}"] = (completed(qid, relevant), ranking, where[qid])
                    size += len(ranking) + 1
                    if size >= BATCH:
                        _evaluate_batch(
                            batch, run, measures, scenario_options, low[:, r], high[:, r]
                        )
                        batch, size = {}, 0
        if batch:
            _evaluate_batch(batch, run, measures, scenario_options, low[:, r], high[:, r])
    return Bounds(
        measures=measures,
        run_names=base.run_names,
        qids=base.qids,
        low=low,
        high=high,
        low_mean=dataclasses.replace(base, values=low, _summary=None).summary(),
        high_mean=dataclasses.replace(
            base,
            values=high,
            complete_num_rel=everything.complete_num_rel,  # -c's NumRel: the qrels' count
            _summary=None,
        ).summary(),
        unjudged=sum(len(t[2]) for t in topics.values()),
        grade=grade,
    )


def _evaluate_batch(
    batch: Mapping[str, tuple[tuple[np.ndarray, np.ndarray], np.ndarray, int]],
    run: Run,
    measures: Sequence[Measure],
    options: EvalOptions,
    low: np.ndarray,
    high: np.ndarray,
) -> None:
    """Evaluate `run` over the completions of `batch` (key: (judgments, ranking, topic
    column)) and widen `low` and `high` [measure, topic] of the run to take them in."""
    found = Evaluator(
        Judgments.from_arrays({key: item[0] for key, item in batch.items()}),
        [Run(run.name, {key: item[1] for key, item in batch.items()}, run.tag)],
        measures,
        options,
    ).evaluate()
    values = found.values[:, 0, :]
    for i, qid in enumerate(found.qids):
        t = batch[qid][2]
        low[:, t] = np.fmin(low[:, t], values[:, i])
        high[:, t] = np.fmax(high[:, t], values[:, i])


def _aligned(results: Results, base: Results) -> np.ndarray:
    """`results.values` laid out on `base`'s topics (the same topics, the same runs)."""
    out = np.full(base.values.shape, np.nan)
    where = {q: t for t, q in enumerate(base.qids)}
    for t, qid in enumerate(results.qids):
        out[:, :, where[qid]] = results.values[:, :, t]
    return out


def pooled_documents(store: Store, pools: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """Every document of `pools` (all of the project's by default) per topic."""
    found: dict[str, list[np.ndarray]] = {}
    for name in store.pools.names() if pools is None else pools:
        for qid, ids in store.pools.doc_ids(name).items():
            found.setdefault(qid, []).append(ids)
    return {qid: np.unique(np.concatenate(parts)) for qid, parts in found.items()}


def project_bounds(
    db: str | Path | Store,
    measures: Sequence[Measure],
    options: EvalOptions,
    *,
    runs: Sequence[str] | None = None,
    assessors: Sequence[str] | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
    pools: Sequence[str] | None = None,
) -> Bounds:
    """The bounds of a project's runs over its pools, with the judgments `policy` picks;
    relevant completions use the scale's lowest relevant grade (or the evaluation's
    relevance level, when higher)."""
    store = db if isinstance(db, Store) else Store.open(db, create=False)
    try:
        judgments = judgments_from_store(store, assessors, policy)
        grade = max(store.settings.relevant_from(), options.relevance_level)
        return evaluation_bounds(
            judgments,
            runs_from_store(store.runs, runs),
            measures,
            options,
            pooled_documents(store, pools),
            grade,
        )
    finally:
        if store is not db:
            store.close()
