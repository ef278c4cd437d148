"""Why a runs-only judging order that beats MaxMean on Robust 2003 does not on the classic
collections: how much the runs say, bounds on what orders built from them can reach, and
the two cross-topic orders tried (issue 17; benchmarks/results/judging_orders.md).

    python benchmarks/runs_only_bounds.py [--shared ../shared/data]

The same topic sets as bench_orders.py (the 17 Robust 2003 runs at depth 100; the demo's
seven runs on Cranfield, CISI and CACM at depth 100, queries with a relevant pooled
document), Cranfield reported as queries 1-100 (where the cross-topic orders' parameters
were chosen) and 101-225. Topics are judged in qid order; what an order learns from earlier
topics runs through every topic of a collection (Cranfield 101-225 starts from 1-100), and
only the topics of the row are counted. Judgments for 80% / 90% of the relevant are given
as a ratio to MaxMean's.

Table 1, the runs and bounds:
- agreement: the correlation of two runs' rank values (Hedge's ``ln(N/r) / ln N``, 0 where
  a run does not retrieve the document) over a topic's pool, mean over pairs and topics;
- split-half rho: a topic's relevant pooled documents (topics with at least 4) are split at
  random in halves (20 splits, seeded); Spearman's rho between the runs' mean rank value
  on one half and on the other: how well a run's quality seen on some relevant documents
  of a topic predicts where it puts the rest (what orders learning run weights within a
  topic live on);
- hindsight, per topic: the pool sorted by a weighted sum of the rank values, the weights a
  logistic regression (C = 1, C = 10) fitted to that topic's own qrels: an order of
  ridge-fusion's kind that knew the topic's best weights before its first judgment;
- one fit per set: the same with one logistic regression over all the row's topics (rank
  values plus how many runs retrieve the document, their sum and their maximum): the most
  that learning run weights across topics could give;
- related, all judged: CombSUM plus the related-topic evidence below taken from every other
  topic of the collection, fully judged (the most that evidence could give, e.g. for the
  last topic of a session that judges topics side by side).

Table 2, the orders (parameters chosen on Cranfield 1-100 only):
- cross-topic: ridge-fusion whose prior weights are the ridge regression of relevance on
  rank values over every earlier topic (global ridge 3, starting from 0.5 / runs), with
  per-topic ridge 30;
- related-topic: the same plus evidence from related earlier topics. Two topics are as
  related as the cosine of their pooled documents' CombSUM scores (summed rank values); a
  document relevant to an earlier topic j gets ``max_j s_j`` with
  ``s_j = cos_j ** 2 + 0.2 (hits_j - 0.5 misses_j)`` (hits and misses: this topic's
  judgments so far of j's relevant documents), added at 10 x the prior's per-run weight.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_orders import classic_sets, robust_sets  # noqa: E402

from judgeapp.pooling.order import RidgeFusion, _rank_values, make_order  # noqa: E402
from judgeapp.pooling.pools import topic_seed  # noqa: E402
from judgeapp.pooling.simulate import grades_for, judgments_needed  # noqa: E402

FRACTIONS = (0.8, 0.9)
GLOBAL_RIDGE, TOPIC_RIDGE = 3.0, 30.0  # cross-topic order (chosen on Cranfield 1-100)
POWER, BOOST, HIT, MISS = 2.0, 10.0, 0.2, 0.5  # related-topic evidence (the same)


class CrossTopicRidge(RidgeFusion):
    """ridge-fusion with prior weights `w0` learned on earlier topics, and optionally
    evidence from related topics: `member` (documents x related topics) marks the
    documents relevant to each, `closeness` the topics' similarity."""

    def __init__(self, topic, run_lists, w0, ridge, member=None, closeness=None) -> None:
        self._w0 = np.asarray(w0, float)
        n = len(topic.doc_ids)
        self._member = np.zeros((n, 0)) if member is None else member
        self._closeness = np.zeros(0) if closeness is None else closeness
        self._boost = BOOST * 0.5 / len(run_lists)
        super().__init__(topic, run_lists, 0, ridge=ridge)

    def _reset(self) -> None:
        self._inverse = np.eye(self._value.shape[1]) / self.ridge
        self._target = self.ridge * self._w0
        self._hits = np.zeros(self._member.shape[1])
        self._misses = np.zeros(self._member.shape[1])
        self._compact()

    def _scores(self):
        active, scores = super()._scores()
        if self._member.shape[1]:
            strength = np.maximum(self._closeness + HIT * (self._hits - MISS * self._misses), 0)
            scores = scores + self._boost * (self._member[active] * strength).max(1)
        return active, scores

    def _learn(self, i, arm, relevant) -> None:
        super()._learn(i, arm, relevant)
        if self._member.shape[1]:
            if relevant:
                self._hits += self._member[i]
            else:
                self._misses += self._member[i]


def needed(found: np.ndarray, relevant: int) -> np.ndarray:
    return np.array([judgments_needed(found, relevant, f) for f in FRACTIONS])


def replay(order, relevant_of: dict[int, bool]) -> np.ndarray:
    found = []
    while (doc := order.next_doc()) is not None:
        order.record(doc, int(relevant_of[doc]), relevant_of[doc])
        found.append(relevant_of[doc])
    return needed(np.cumsum(found), sum(relevant_of.values()))


def static(scores: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    return needed(np.cumsum(relevant[np.argsort(-scores, kind="stable")]), int(relevant.sum()))


def with_summaries(x: np.ndarray) -> np.ndarray:
    counts = (x > 0).sum(1, keepdims=True)
    return np.hstack([x, counts, x.sum(1, keepdims=True), x.max(1, keepdims=True)])


class Topic:
    def __init__(self, qid, topic, run_lists, qrels) -> None:
        self.qid, self.topic, self.run_lists = qid, topic, run_lists
        grades, _ = grades_for(topic, qrels)
        self.relevant = grades >= 1
        self.values = _rank_values(topic.doc_ids, [np.asarray(v) for v in run_lists.values()])
        self.fused = self.values.sum(1)

    def related(self, others: list[Topic]) -> tuple[np.ndarray, np.ndarray]:
        """(documents x topics membership in each other topic's relevant set, the topics'
        closeness) for the other topics sharing a relevant document with this pool."""
        member, closeness = [], []
        for other in others:
            _, mine, theirs = np.intersect1d(
                self.topic.doc_ids, other.topic.doc_ids, return_indices=True
            )
            shared = theirs[other.relevant[theirs]]
            if not len(shared):
                continue
            cos = self.fused[mine] @ other.fused[theirs]
            cos /= np.linalg.norm(self.fused) * np.linalg.norm(other.fused)
            column = np.zeros(len(self.relevant))
            column[mine[other.relevant[theirs]]] = 1.0
            member.append(column)
            closeness.append(cos**POWER)
        if not member:
            return np.zeros((len(self.relevant), 0)), np.zeros(0)
        return np.array(member).T, np.array(closeness)


def topics_of(pool, lists, qrels) -> list[Topic]:
    return [
        Topic(qid, topic, {r: t.get(qid, np.empty(0, np.int64)) for r, t in lists.items()}, qrels)
        for qid, topic in pool.items()
    ]


def measure(title: str, every: list[Topic], counted) -> tuple[str, str]:
    """Both tables' rows for the topics of `every` that `counted` accepts."""
    rng = np.random.default_rng(17)
    totals = {k: np.zeros(2) for k in ("maxmean", "ridge", "cross", "related", "all", "c1", "c10")}
    agreement, reliability = [], []
    runs = every[0].values.shape[1]
    gram, target = GLOBAL_RIDGE * np.eye(runs), np.full(runs, GLOBAL_RIDGE * 0.5 / runs)
    rows = []
    for k, t in enumerate(every):
        if counted(t.qid):
            rows.append(t)
            relevant_of = dict(zip(t.topic.doc_ids.tolist(), t.relevant.tolist(), strict=True))
            seed = topic_seed(0, t.qid)
            for name, key in (("maxmean", "maxmean"), ("ridge-fusion", "ridge")):
                totals[key] += replay(make_order(name, t.topic, t.run_lists, seed), relevant_of)
            w0 = np.linalg.solve(gram, target)
            order = CrossTopicRidge(t.topic, t.run_lists, w0, TOPIC_RIDGE)
            totals["cross"] += replay(order, relevant_of)
            member, closeness = t.related(every[:k])
            order = CrossTopicRidge(t.topic, t.run_lists, w0, TOPIC_RIDGE, member, closeness)
            totals["related"] += replay(order, relevant_of)
            member, closeness = t.related(every[:k] + every[k + 1 :])
            evidence = (member * closeness).max(1) if len(closeness) else 0.0
            totals["all"] += static(t.fused + BOOST * evidence, t.relevant)
            x = t.values
            for c, key in ((1.0, "c1"), (10.0, "c10")):
                if t.relevant.all():
                    totals[key] += static(t.fused, t.relevant)
                    continue
                fit = LogisticRegression(C=c, max_iter=2000).fit(x, t.relevant)
                totals[key] += static(fit.decision_function(x), t.relevant)
            corr = np.corrcoef(x.T)
            agreement.append(np.nanmean(corr[np.triu_indices(runs, 1)]))
            idx = np.flatnonzero(t.relevant)
            if len(idx) >= 4:
                for _ in range(20):
                    half = rng.permutation(idx)
                    a, b = x[half[: len(idx) // 2]].mean(0), x[half[len(idx) // 2 :]].mean(0)
                    if a.std() > 0 and b.std() > 0:
                        reliability.append(spearmanr(a, b)[0])
        gram += t.values.T @ t.values
        target += t.values[t.relevant].sum(0)
    xs = np.vstack([with_summaries(t.values) for t in rows])
    shared = LogisticRegression(C=1.0, max_iter=2000).fit(
        xs, np.concatenate([t.relevant for t in rows])
    )
    across = sum(
        static(shared.decision_function(with_summaries(t.values)), t.relevant) for t in rows
    )
    base = totals["maxmean"]

    def ratio(v: np.ndarray) -> str:
        return " / ".join(f"{a / b:.2f}" for a, b in zip(v, base, strict=True))

    per_topic = sum(int(t.relevant.sum()) for t in rows) / len(rows)
    bounds = (
        f"| {title} | {len(rows)} | {per_topic:.1f} | {np.mean(agreement):.2f} "
        f"| {np.nanmean(reliability):.2f} | {ratio(totals['c1'])} | {ratio(totals['c10'])} "
        f"| {ratio(across)} | {ratio(totals['all'])} |"
    )
    orders = (
        f"| {title} | {base[0]:,.0f} / {base[1]:,.0f} | {ratio(totals['ridge'])} "
        f"| {ratio(totals['cross'])} | {ratio(totals['related'])} |"
    )
    return bounds, orders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=RuntimeWarning)  # corrcoef of an empty run
    results = []
    for title, pool, lists, qrels in robust_sets(args.shared):
        results.append(measure(title, topics_of(pool, lists, qrels), lambda q: True))
    for title, pool, lists, qrels, _texts, _statements in classic_sets(args.shared):
        every = topics_of(pool, lists, qrels)
        if title == "Cranfield":
            results.append(measure("Cranfield 1-100 (tuning)", every, lambda q: int(q) <= 100))
            results.append(measure("Cranfield 101-225", every, lambda q: int(q) > 100))
        else:
            results.append(measure(title, every, lambda q: True))
    print(
        "| topics | n | relevant per topic | agreement | split-half rho "
        "| hindsight, per topic C=1 | per topic C=10 | one fit per set | related, all judged |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(bounds for bounds, _ in results))
    print()
    print("| topics | maxmean 80% / 90% | ridge-fusion | cross-topic | related-topic |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(orders for _, orders in results))


if __name__ == "__main__":
    main()
