"""Each run's xinfAP, infNDCG and statAP from a project's ``sample`` pool and its judgments
(the estimators: judgeapp.measures.inferred).

A sample pool stores only the documents drawn (and those judged before the draw, stratum 0,
inclusion probability 1). The population they were drawn from is rebuilt from the pool's
runs, depth and strata edges, as the sampler built it: every document the runs retrieve
down to the depth, in the stratum of its best rank. A sampled document counts once it is
judged; the strata's sizes rebuilt must be those the stored inclusion probabilities imply,
else the runs changed since the draw and the sample no longer describes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeapp.measures.inferred import MEASURES, TopicSample, inferred_measures
from judgeapp.pooling.estimate import strata_of, stratum_sizes
from judgeapp.pooling.pools import PoolTopic, candidates, topic_lists
from judgeapp.services.evaluation import runs_from_store
from judgeapp.services.policy import DEFAULT_POLICY, JudgmentPolicy, effective_judgments
from judgeapp.store import Store, StoreError
from judgeapp.store.pools import Pools


@dataclass(frozen=True)
class InferredResults:
    """Inferred measures of every run over a sample pool's topics: per topic
    [measure, run, topic] (NaN where the run lacks the topic) and their means."""

    pool: str
    measures: tuple[str, ...]
    run_names: tuple[str, ...]
    runids: tuple[str, ...]  # the runs' tags, as trec_eval prints them
    qids: tuple[str, ...]
    values: np.ndarray
    population: int  # documents the sample was drawn from, over the topics
    sampled: int  # documents in the sample pool
    judged: int  # sampled documents judged

    def summary(self) -> np.ndarray:
        """[measure, run]: means over the topics each run has (trec_eval without -c)."""
        counts = np.sum(~np.isnan(self.values), axis=2)
        totals = np.nansum(self.values, axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(counts > 0, totals / counts, np.nan)

    def mean(self, measure: str, run: str) -> float:
        return float(self.summary()[self.measures.index(measure), self.run_names.index(run)])

    def value(self, measure: str, run: str, qid: str) -> float:
        m, r = self.measures.index(measure), self.run_names.index(run)
        return float(self.values[m, r, self.qids.index(qid)])


def sample_population(
    topic: PoolTopic, run_lists: Sequence[np.ndarray], depth: int, edges: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(population doc ids, stratum of each, sampled?) of one topic of a sample pool, the
    pool drawn from `run_lists` (its runs' lists, in its run order) with `depth`, `edges`."""
    e = candidates(run_lists, depth)
    stratum = strata_of(e.best_rank, edges)
    sampled = np.isin(e.doc_ids, topic.doc_ids)
    if topic.stratum is not None and len(topic):
        certain = topic.doc_ids[topic.stratum == 0]
        stratum = np.where(np.isin(e.doc_ids, certain), 0, stratum)
        _check_strata(topic, stratum, sampled)
    if np.count_nonzero(sampled) != len(topic):
        raise StoreError(
            f"topic {topic.qid}: the sample holds documents its runs no longer retrieve "
            f"down to depth {depth}; draw a new sample"
        )
    return e.doc_ids, stratum, sampled


def _check_strata(topic: PoolTopic, stratum: np.ndarray, sampled: np.ndarray) -> None:
    """The rebuilt strata must be as large as the stored inclusion probabilities say."""
    for h, implied in stratum_sizes(topic).items():
        if implied != np.count_nonzero(stratum == h):
            raise StoreError(
                f"topic {topic.qid}: stratum {h} had {implied} documents when the "
                f"sample was drawn and has {np.count_nonzero(stratum == h)} now (the runs "
                "changed); draw a new sample"
            )


def sample_pool_name(pools: Pools, pool: str | None) -> str:
    """`pool`, checked to be a sample; or the only sample pool among a project's pools
    (`store.pools`)."""
    if pool:
        if pools.kind(pool)[0] != "sample":
            raise StoreError(f"pool {pool!r} is not a sample (inferred measures need one)")
        return pool
    samples = [p.name for p in pools.all() if p.strategy == "sample"]
    if not samples:
        raise StoreError("the project has no sample pool (pool --strategy sample draws one)")
    if len(samples) > 1:
        raise StoreError(f"the project has several sample pools ({', '.join(samples)}); name one")
    return samples[0]


def project_inferred(
    db: str | Path | Store,
    pool: str | None = None,
    *,
    runs: Sequence[str] | None = None,
    assessors: Sequence[str] | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
    level: int = 1,
) -> InferredResults:
    """xinfAP, infNDCG and statAP of the project's runs (or `runs`) over the topics of the
    sample pool `pool` (the only one by default), from the judgments `policy` picks among
    `assessors`; `level` is the lowest grade counted relevant."""
    store = db if isinstance(db, Store) else Store.open(db, create=False)
    try:
        name = sample_pool_name(store.pools, pool)
        info = store.pools.get(name)
        topics = {q: PoolTopic.of(r) for q, r in store.pools.rows_all(name).items()}
        qids = tuple(q for q, t in topics.items() if len(t))
        drawn_from = store.runs.ranked_lists(runs=list(info.runs), qids=list(qids)).runs
        judgments = effective_judgments(store, assessors, policy=policy).topics
        evaluated = runs_from_store(store.runs, runs)
    finally:
        if store is not db:
            store.close()
    empty = np.empty(0, np.int64)
    values = np.full((len(MEASURES), len(evaluated), len(qids)), np.nan)
    population = judged = 0
    for t, qid in enumerate(qids):
        lists = topic_lists({r: drawn_from.get(r, {}) for r in info.runs}, qid)
        ids, stratum, sampled = sample_population(
            topics[qid], lists, info.params["depth"], info.params["edges"]
        )
        sample = TopicSample.of(ids, stratum, sampled, judgments.get(qid, (empty, empty)))
        population += len(ids)
        judged += int(np.count_nonzero(sample.grade >= 0))
        has = [r for r, run in enumerate(evaluated) if qid in run.topics]
        found = inferred_measures([evaluated[r].topics[qid] for r in has], sample, level=level)
        for m, measure in enumerate(MEASURES):
            values[m, has, t] = found[measure]
    return InferredResults(
        pool=name,
        measures=MEASURES,
        run_names=tuple(r.name for r in evaluated),
        runids=tuple(r.tag for r in evaluated),
        qids=qids,
        values=values,
        population=population,
        sampled=sum(len(topics[q]) for q in qids),
        judged=judged,
    )
