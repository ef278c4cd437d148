"""How much a project's assessors agree, and whether their disagreement changes which systems
look best (the `agreement` command and the agreement view).

`agreement_report` reads the current judgments of the chosen assessors and imported qrels
sources (all that judged something, by default), makes a unit of every (topic, document)
that two or more of them graded, and computes the figures of
:mod:`judgeapp.statistics.agreement` per topic, over all topics (with bootstrap intervals over
topics) and per pair of assessors (with its confusion matrix). Grades are compared on the
project's scale (plus any other grade that occurs), in ascending order.

`compare_rankings` evaluates every run of the project under each assessor's judgments, each
source's, and the combined judgments (the judgment policy's effective grades), and compares
the system rankings of every two of these judgment sets on the topics both judged: Kendall's
tau-b and tau_AP (Yilmaz et al., SIGIR 2008), the latter once with each set as the
reference. Evaluation is trec_eval's with -c (a run's missing topic counts 0) and -l at the
relevant cut.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgeapp.errors import UserError
from judgeapp.measures import EvalOptions, Evaluator, Judgments, MeasureError, parse_measures
from judgeapp.records import JudgmentArrays
from judgeapp.services.evaluation import runs_from_store
from judgeapp.services.policy import DEFAULT_POLICY, JudgmentPolicy, effective_judgments
from judgeapp.services.rows import natural_key
from judgeapp.statistics.agreement import (
    KAPPAS,
    PAIR_STATISTICS,
    SCOPE_STATISTICS,
    Ratings,
    bootstrap_intervals,
    kendall_tau,
    pair_figures,
    scope_figures,
    tau_ap,
)
from judgeapp.store import Store

COMBINED = "combined"  # the name of the combined judgments in ranking comparisons
COUNTS = ("documents", "fleiss_documents")  # figures that are counts (no interval)


class AgreementError(UserError):
    """Agreement cannot be computed for what was asked (unknown assessor, nothing shared)."""


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """Two assessors on the documents both judged: figures (`PAIR_STATISTICS`), bootstrap
    intervals over topics, and the confusion matrix (rows: `first`'s grades, columns:
    `second`'s, both in the order of `AgreementReport.grades`)."""

    first: str
    second: str
    figures: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    confusion: np.ndarray


@dataclass(frozen=True, slots=True)
class RankingPair:
    """The runs ranked by the measure under two judgment sets, on the topics both judged:
    Kendall's tau-b, and tau_AP of `other`'s ranking with `reference`'s as the truth."""

    reference: str
    other: str
    topics: tuple[str, ...]
    kendall_tau: float
    tau_ap: float
    reference_scores: np.ndarray  # per run, in `RankingComparison.runs` order
    other_scores: np.ndarray


@dataclass(frozen=True, slots=True)
class JudgmentSet:
    name: str
    kind: str  # an assessor's kind ("person", "source", ...) or "combined"
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RankingComparison:
    measure: str
    policy: str  # the rule that made the combined judgments
    runs: tuple[str, ...]
    sets: tuple[JudgmentSet, ...]
    pairs: tuple[RankingPair, ...]  # every two sets, in both orders


@dataclass(frozen=True, slots=True)
class AgreementReport:
    assessors: tuple[str, ...]
    kinds: dict[str, str]
    grades: tuple[int, ...]
    relevant_from: int
    fleiss_raters: int  # the number of ratings of the units Fleiss' kappa is over
    topics: tuple[str, ...]  # topics with documents judged by two or more, natural order
    overall: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    per_topic: dict[str, dict[str, float]]
    pairs: tuple[PairAgreement, ...]
    bootstrap: int
    seed: int
    rankings: RankingComparison | None = field(default=None)

    def intervals_note(self) -> str:
        """What the intervals are, or why there are none."""
        if len(self.topics) < 2:
            return (
                "no intervals: the bootstrap resamples topics, and the documents judged by "
                "two or more are in one topic"
            )
        return f"95% bootstrap over topics ({self.bootstrap} resamples, seed {self.seed})"

    def figures(self) -> list[tuple[str, str, float]]:
        """Every figure as (scope, statistic, value): scope `all` (each figure followed by
        its interval as `<statistic>_low` and `_high`), then each topic, then each pair of
        assessors (`pair:A:B`, with intervals), then with rankings each ordered pair of
        judgment sets (`rankings:REFERENCE:OTHER`: kendall_tau, tau_ap, topics)."""
        out: list[tuple[str, str, float]] = []

        def scope(name: str, figures: dict[str, float], intervals: dict) -> None:
            for stat, value in figures.items():
                out.append((name, stat, value))
                if stat in intervals:
                    out.append((name, f"{stat}_low", intervals[stat][0]))
                    out.append((name, f"{stat}_high", intervals[stat][1]))

        scope("all", self.overall, self.intervals)
        for qid in self.topics:
            scope(qid, self.per_topic[qid], {})
        for pair in self.pairs:
            scope(f"pair:{pair.first}:{pair.second}", pair.figures, pair.intervals)
        if self.rankings is not None:
            for r in self.rankings.pairs:
                name = f"rankings:{r.reference}:{r.other}"
                out.append((name, "kendall_tau", r.kendall_tau))
                out.append((name, "tau_ap", r.tau_ap))
                out.append((name, "topics", float(len(r.topics))))
        return out

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-able (NaN as None)."""

        def num(v: float) -> float | None:
            return None if math.isnan(v) else float(v)

        def figs(f: dict[str, float]) -> dict[str, float | int | None]:
            return {k: int(v) if k in COUNTS else num(v) for k, v in f.items()}

        def ints(i: dict[str, tuple[float, float]]) -> dict[str, list[float | int | None]]:
            return {k: [num(lo), num(hi)] for k, (lo, hi) in i.items()}

        out: dict[str, Any] = {
            "assessors": [{"name": a, "kind": self.kinds[a]} for a in self.assessors],
            "grades": list(self.grades),
            "relevant_from": self.relevant_from,
            "fleiss_raters": self.fleiss_raters,
            "bootstrap": {"resamples": self.bootstrap, "seed": self.seed, "confidence": 0.95},
            "all": {"figures": figs(self.overall), "intervals": ints(self.intervals)},
            "topics": {q: figs(self.per_topic[q]) for q in self.topics},
            "pairs": [
                {
                    "first": p.first,
                    "second": p.second,
                    "figures": figs(p.figures),
                    "intervals": ints(p.intervals),
                    "confusion": p.confusion.astype(int).tolist(),
                }
                for p in self.pairs
            ],
        }
        if self.rankings is not None:
            rk = self.rankings
            out["rankings"] = {
                "measure": rk.measure,
                "policy": rk.policy,
                "runs": list(rk.runs),
                "sets": [
                    {"name": s.name, "kind": s.kind, "topics": len(s.topics)} for s in rk.sets
                ],
                "pairs": [
                    {
                        "reference": r.reference,
                        "other": r.other,
                        "topics": list(r.topics),
                        "kendall_tau": num(r.kendall_tau),
                        "tau_ap": num(r.tau_ap),
                        "reference_scores": dict(
                            zip(rk.runs, map(num, r.reference_scores), strict=True)
                        ),
                        "other_scores": dict(zip(rk.runs, map(num, r.other_scores), strict=True)),
                    }
                    for r in rk.pairs
                ],
            }
        return out


# -- reading the project ---------------------------------------------------------------------------
def _chosen(store: Store, assessors: Sequence[str] | None) -> dict[str, str]:
    """{name: kind} of the chosen assessors, checked; all that judged something by default."""
    known = {a.name: a.kind for a in store.team.assessors()}
    if assessors is None:
        judged = set(store.judgments.rows().assessor_ids.tolist())
        ids = {a.id: a.name for a in store.team.assessors()}
        return {ids[i]: known[ids[i]] for i in sorted(judged)}
    names = list(assessors)
    unknown = [a for a in names if a not in known]
    if unknown:
        have = ", ".join(known) or "none"
        raise AgreementError(
            f"no assessor or judgment source named {unknown[0]!r} (the project has: {have})"
        )
    twice = sorted({a for a in names if names.count(a) > 1})
    if twice:
        raise AgreementError(f"assessor {twice[0]!r} is named twice")
    return {a: known[a] for a in names}


def read_ratings(
    store: Store, assessors: Sequence[str], topics: Sequence[str] | None = None
) -> Ratings:
    """The units (topic, document) that two or more of `assessors` graded, on `topics` (all
    by default), as ratings grouped by topic (natural order)."""
    ids = {a.name: a.id for a in store.team.assessors()}
    column = {ids[a]: i for i, a in enumerate(assessors)}
    rows = store.judgments.rows(list(assessors))
    topic_of_row = np.repeat(np.arange(len(rows.qids), dtype=np.int64), np.diff(rows.bounds))
    if topics is not None:
        wanted = set(topics)
        keep = np.isin(topic_of_row, [i for i, q in enumerate(rows.qids) if q in wanted])
        topic_of_row = topic_of_row[keep]
    else:
        keep = np.ones(len(rows), dtype=bool)
    doc_ids = rows.doc_ids[keep]
    cols = np.array([column[a] for a in rows.assessor_ids[keep].tolist()], dtype=np.int64)
    # one unit per (topic, document): a single integer key for np.unique
    stride = int(doc_ids.max()) + 1 if len(doc_ids) else 1
    unit_keys, unit = np.unique(topic_of_row * stride + doc_ids, return_inverse=True)
    values = np.full((len(unit_keys), len(assessors)), np.nan)
    values[unit.reshape(-1), cols] = rows.grades[keep]
    shared = (~np.isnan(values)).sum(axis=1) >= 2
    values, unit_topics = values[shared], (unit_keys[shared] // stride).tolist()
    names = sorted({rows.qids[t] for t in unit_topics}, key=natural_key)
    index = {q: i for i, q in enumerate(names)}
    groups = np.array([index[rows.qids[t]] for t in unit_topics], dtype=np.int64)
    scale = {g.grade for g in store.settings.scale()}
    observed = set(np.unique(values[~np.isnan(values)]).astype(int).tolist())
    categories = np.array(sorted(scale | observed), dtype=np.float64)
    return Ratings(values, groups, tuple(names), tuple(assessors), categories)


# -- the report -------------------------------------------------------------------------------------
def _floats(figures: dict[str, np.ndarray]) -> dict[str, float]:
    return {k: float(v) for k, v in figures.items()}


def agreement_report(
    store: Store,
    assessors: Sequence[str] | None = None,
    *,
    topics: Sequence[str] | None = None,
    relevant_from: int = 1,
    bootstrap: int = 1000,
    seed: int = 0,
    rankings: str | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> AgreementReport:
    """Agreement of `assessors` (names of persons or sources; all that judged by default) on
    `topics` (all by default). `rankings`: a measure to compare system rankings by (see
    `compare_rankings`), or None."""
    chosen = _chosen(store, assessors)
    names = list(chosen)
    if len(names) < 2:
        have = ", ".join(names) or "nobody"
        which = "chosen" if assessors is not None else "judgments so far by"
        raise AgreementError(f"agreement needs two or more assessors ({which}: {have})")
    ratings = read_ratings(store, names, topics)
    if not len(ratings.values):
        where = " on the chosen topics" if topics is not None else ""
        raise AgreementError(f"{', '.join(names)} judged no document in common{where}")
    cats, n = ratings.categories, ratings.fleiss_raters
    per_group = ratings.tallies()

    def figures(t: Any) -> dict[str, np.ndarray]:
        return scope_figures(t, cats, relevant_from, n)

    intervals = bootstrap_intervals(per_group, figures, resamples=bootstrap, seed=seed)
    total = per_group.total()
    pairs = []
    for p, (r, s) in enumerate(ratings.rater_pairs):

        def pair(t: Any, p: int = p) -> dict[str, np.ndarray]:
            return pair_figures(t.confusion[..., p, :, :], cats, relevant_from)

        pair_intervals = bootstrap_intervals(per_group, pair, resamples=bootstrap, seed=seed)
        pairs.append(
            PairAgreement(
                names[r],
                names[s],
                _floats(pair(total)),
                {k: v for k, v in pair_intervals.items() if k not in COUNTS},
                total.confusion[p].astype(np.int64),
            )
        )
    comparison = (
        compare_rankings(
            store,
            names,
            topics=topics,
            measure=rankings,
            relevant_from=relevant_from,
            policy=policy,
        )
        if rankings is not None
        else None
    )
    return AgreementReport(
        assessors=tuple(names),
        kinds=chosen,
        grades=tuple(int(c) for c in cats),
        relevant_from=relevant_from,
        fleiss_raters=n,
        topics=ratings.group_names,
        overall=_floats(figures(total)),
        intervals={k: v for k, v in intervals.items() if k not in COUNTS},
        per_topic={
            q: _floats(figures(per_group.take(g))) for g, q in enumerate(ratings.group_names)
        },
        pairs=tuple(pairs),
        bootstrap=bootstrap,
        seed=seed,
        rankings=comparison,
    )


# -- rankings ---------------------------------------------------------------------------------------
def _restrict(arrays: JudgmentArrays, topics: Sequence[str] | None) -> dict[str, tuple]:
    if topics is None:
        return dict(arrays.topics)
    wanted = set(topics)
    return {q: v for q, v in arrays.topics.items() if q in wanted}


def compare_rankings(
    store: Store,
    assessors: Sequence[str],
    *,
    topics: Sequence[str] | None = None,
    measure: str = "AP",
    relevant_from: int = 1,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> RankingComparison:
    """Rank every run of the project by `measure` under each assessor's judgments and under
    the combined ones (`policy` over all of `assessors`), and compare every two rankings on
    the topics both sets judged."""
    try:
        parsed = parse_measures([measure])
    except MeasureError as exc:
        raise AgreementError(f"illegal measure: {exc}") from exc
    if len(parsed) != 1 or parsed[0].aggregate == "text":
        raise AgreementError(f"rank runs by one numeric measure, not {measure!r}")
    chosen = parsed[0]
    runs = runs_from_store(store.runs)
    if not runs:
        raise AgreementError("the project has no runs to rank")
    kinds = {a.name: a.kind for a in store.team.assessors()}
    judged: dict[str, dict[str, tuple]] = {
        a: _restrict(effective_judgments(store, [a]), topics) for a in assessors
    }
    sets = [JudgmentSet(a, kinds[a], tuple(sorted(judged[a], key=natural_key))) for a in assessors]
    if len(assessors) > 1:
        name = COMBINED
        while name in judged:  # an assessor could be called "combined"
            name += "*"
        judged[name] = _restrict(effective_judgments(store, list(assessors), policy=policy), topics)
        sets.append(JudgmentSet(name, COMBINED, tuple(sorted(judged[name], key=natural_key))))
    options = EvalOptions(relevance_level=relevant_from, complete=True)
    cache: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}

    def scores(judgment_set: str, qids: tuple[str, ...]) -> np.ndarray:
        key = (judgment_set, qids)
        if key not in cache:
            arrays = judged[judgment_set]
            judgments = Judgments.from_arrays({q: arrays[q] for q in qids})
            results = Evaluator(judgments, runs, [chosen], options).evaluate()
            cache[key] = results.mean(chosen).astype(np.float64)
        return cache[key]

    run_names = [r.name for r in runs]
    pairs = []
    for i, a in enumerate(sets):
        for b in sets[i + 1 :]:
            shared = tuple(sorted(set(a.topics) & set(b.topics), key=natural_key))
            if shared:
                sa, sb = scores(a.name, shared), scores(b.name, shared)
                tau = kendall_tau(sa.tolist(), sb.tolist())
                ab = tau_ap(sa.tolist(), sb.tolist(), run_names)
                ba = tau_ap(sb.tolist(), sa.tolist(), run_names)
            else:
                sa = sb = np.full(len(runs), np.nan)
                tau = ab = ba = float("nan")
            pairs.append(RankingPair(a.name, b.name, shared, tau, ab, sa, sb))
            pairs.append(RankingPair(b.name, a.name, shared, tau, ba, sb, sa))
    return RankingComparison(
        measure=str(chosen),
        policy=policy.name,
        runs=tuple(run_names),
        sets=tuple(sets),
        pairs=tuple(pairs),
    )


__all__ = [
    "COMBINED",
    "KAPPAS",
    "PAIR_STATISTICS",
    "SCOPE_STATISTICS",
    "AgreementError",
    "AgreementReport",
    "JudgmentSet",
    "PairAgreement",
    "RankingComparison",
    "RankingPair",
    "agreement_report",
    "compare_rankings",
    "read_ratings",
]
