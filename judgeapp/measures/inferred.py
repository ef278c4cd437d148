"""Measures inferred from a stratified random sample of judgments: xinfAP, infNDCG, statAP.

A topic's sample (`TopicSample`) is a population of documents (for judgeapp's ``sample``
pools: every document the pooled runs retrieve down to the sampling depth), each in a
stratum, of which a random subset drawn stratum by stratum without replacement is judged.
Only the judged sampled documents count as the sample: in stratum h, m_h of its N_h
documents, so each has inclusion probability pi_h = m_h / N_h (a blind judging order keeps
a partly judged sample random). Documents a run retrieves outside the population count as
not relevant, as a depth-k pool counts them.

- ``xinfAP`` (Yilmaz, Kanoulas and Aslam, SIGIR 2008, "A simple and efficient sampling
  method for estimating AP and NDCG"; NIST's sample_eval.pl computes it): at each sampled
  relevant document at rank k, the expected precision is 1/k plus, for each stratum s, the
  stratum's population documents above rank k times the share of its judged ones above k
  that are relevant, smoothed (r + e) / (n + 3e), e = 0.00001, over k. These are summed
  with weight 1/pi and divided by R^ = sum_h N_h r_h / m_h (the Horvitz-Thompson estimate
  of the relevant documents). With one stratum it is trec_eval's infAP but for the
  smoothing, (r + e) / (n + 2e) there: the two part where nothing above a relevant
  document is judged (1/2 against 1/3).
- ``infNDCG`` (the same paper and script): per stratum, the DCG of the run's judged
  relevant documents (gain = grade) scaled by the stratum's population documents the run
  retrieves over its judged ones, over the ideal DCG of round(R^_g) documents of each
  grade g, R^_g estimated as R^ is. (sample_eval.pl stops the ideal ranking at 1000
  documents, its longest run; here it is not cut, as in trec_eval's ndcg.)
- ``statAP`` (Pavlu and Aslam 2007, "A practical sampling strategy for efficient retrieval
  evaluation"): R AP = sum over pairs of relevant documents d' at or above d of 1 / rank(d),
  estimated by Horvitz-Thompson with the second-order inclusion probabilities of stratified
  sampling without replacement (pi_h (m_h - 1) / (N_h - 1) for two documents of stratum h,
  pi_h pi_g across strata), divided by R^. The numerator and R^ are unbiased; the ratio is
  not exactly. (The Million Query track's statAP script uses pi_h pi_g for every pair.)

With every population document judged, xinfAP is AP (to within 3e-5, the smoothing),
infNDCG is nDCG and statAP is AP, as trec_eval computes them with the population as
the judgments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

EPSILON = 0.00001  # sample_eval.pl's smoothing of the precision above a relevant document
MEASURES = ("xinfAP", "infNDCG", "statAP")
DESCRIPTIONS = {
    "xinfAP": "Extended inferred AP from a stratified sample (Yilmaz, Kanoulas and Aslam 2008).",
    "infNDCG": "Inferred nDCG from a stratified sample (Yilmaz, Kanoulas and Aslam 2008).",
    "statAP": "Statistical AP, Horvitz-Thompson estimates from a sample (Pavlu and Aslam 2007).",
}


@dataclass(frozen=True, slots=True)
class TopicSample:
    """One topic's sampling population: document ids (ascending), the stratum of each, and
    the judged grade of each sampled and judged document (-1 for the others)."""

    doc_ids: np.ndarray
    stratum: np.ndarray
    grade: np.ndarray

    def __post_init__(self) -> None:
        if not (len(self.doc_ids) == len(self.stratum) == len(self.grade)):
            raise ValueError("doc_ids, stratum and grade must be parallel arrays")
        if len(self.doc_ids) > 1 and np.any(np.diff(self.doc_ids) <= 0):
            raise ValueError("doc_ids must be ascending and unique")

    @classmethod
    def of(
        cls,
        doc_ids: np.ndarray,
        stratum: np.ndarray,
        sampled: np.ndarray,
        judged: tuple[np.ndarray, np.ndarray],
    ) -> TopicSample:
        """A population (`doc_ids` with `stratum`, any order) whose `sampled` documents (a
        mask) take their grades from `judged` (ids, grades) where judged."""
        doc_ids = np.asarray(doc_ids, np.int64)
        order = np.argsort(doc_ids, kind="stable")
        doc_ids, stratum = doc_ids[order], np.asarray(stratum)[order]
        sampled = np.asarray(sampled, bool)[order]
        ids, grades = (np.asarray(a, np.int64) for a in judged)
        by_id = np.argsort(ids, kind="stable")
        ids, grades = ids[by_id], grades[by_id]
        grade = np.full(len(doc_ids), -1, np.int64)
        if len(ids):
            pos = np.minimum(np.searchsorted(ids, doc_ids), len(ids) - 1)
            hit = sampled & (ids[pos] == doc_ids) & (grades[pos] >= 0)
            grade[hit] = grades[pos[hit]]
        return cls(doc_ids, stratum, grade)

    def estimated_relevant(self, level: int = 1) -> float:
        """R^: the Horvitz-Thompson estimate of the population's relevant documents."""
        _, sizes, judged = self._strata()
        rel = np.bincount(self._label[self.grade >= level], minlength=len(sizes))
        return float(np.sum(_weights(sizes, judged) * rel))

    @property
    def _label(self) -> np.ndarray:
        return np.unique(self.stratum, return_inverse=True)[1].ravel()

    def _strata(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(stratum index of each document, N_h, m_h)."""
        label = self._label
        n_strata = int(label.max()) + 1 if len(label) else 0
        sizes = np.bincount(label, minlength=n_strata).astype(np.float64)
        judged = np.bincount(label[self.grade >= 0], minlength=n_strata).astype(np.float64)
        return label, sizes, judged


def _weights(sizes: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """1 / pi_h = N_h / m_h; 0 for a stratum with nothing judged (it adds nothing, as in
    sample_eval.pl)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(judged > 0, sizes / judged, 0.0)


def inferred_measures(
    rankings: Sequence[np.ndarray], sample: TopicSample, *, level: int = 1
) -> dict[str, np.ndarray]:
    """xinfAP, infNDCG and statAP of each ranking (document ids, best first) against one
    topic's sample; `level` is the lowest grade counted relevant (AP measures; infNDCG's
    gains are the grades)."""
    n_rows = len(rankings)
    depth = max((len(r) for r in rankings), default=0)
    label, sizes, judged_n = sample._strata()
    n_strata = len(sizes)
    # the rankings as (rows x depth) codes: population stratum (-1 outside it) and grade
    # (-1 unless sampled and judged)
    st = np.full((n_rows, depth), -1, np.int64)
    gr = np.full((n_rows, depth), -1, np.int64)
    if len(sample.doc_ids):
        for i, ranking in enumerate(rankings):
            ranking = np.asarray(ranking, np.int64)
            pos = np.minimum(np.searchsorted(sample.doc_ids, ranking), len(sample.doc_ids) - 1)
            hit = sample.doc_ids[pos] == ranking
            st[i, : len(ranking)] = np.where(hit, label[pos], -1)
            gr[i, : len(ranking)] = np.where(hit, sample.grade[pos], -1)
    return _estimates(st, gr, sizes, judged_n, _grade_counts(sample, label, n_strata), level)


def _grade_counts(sample: TopicSample, label: np.ndarray, n_strata: int) -> dict[int, np.ndarray]:
    """Judged documents of each positive grade, per stratum."""
    out = {}
    for g in np.unique(sample.grade[sample.grade > 0]).tolist():
        out[int(g)] = np.bincount(label[sample.grade == g], minlength=n_strata).astype(float)
    return out


def _estimates(
    st: np.ndarray,
    gr: np.ndarray,
    sizes: np.ndarray,
    judged_n: np.ndarray,
    grade_counts: dict[int, np.ndarray],
    level: int,
) -> dict[str, np.ndarray]:
    n_rows, depth = st.shape
    n_strata = len(sizes)
    w = _weights(sizes, judged_n)
    rel_n = sum((c for g, c in grade_counts.items() if g >= level), np.zeros(n_strata))
    r_hat = float(np.sum(w * rel_n))
    strata = np.arange(n_strata)
    pop = st[..., None] == strata  # (rows, depth, strata)
    judged = pop & (gr >= 0)[..., None]
    relevant = pop & (gr >= level)[..., None]
    # counts strictly above each rank, per stratum
    above_pop = np.cumsum(pop, axis=1, dtype=np.float64) - pop
    above_judged = np.cumsum(judged, axis=1, dtype=np.float64) - judged
    above_rel = np.cumsum(relevant, axis=1, dtype=np.float64) - relevant
    rank = np.arange(1, depth + 1, dtype=np.float64)
    is_rel = gr >= level
    h = np.where(is_rel, st, 0)
    w_d = w[h]  # 1 / pi of each relevant document (garbage elsewhere, masked below)

    # xinfAP: expected precision at each sampled relevant document
    share = (above_rel + EPSILON) / (above_judged + 3 * EPSILON)
    prec = (1.0 + np.sum(above_pop * share, axis=2)) / rank
    xinf_num = np.sum(np.where(is_rel, w_d * prec, 0.0), axis=1)

    # statAP: pairs (d' above d) weighted 1 / pi_dd'; within a stratum pi_dd' = pi_h q_h
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(sizes > 1, (judged_n - 1) / (sizes - 1), 1.0)
        inv_q = np.where(q > 0, 1.0 / q, 0.0)
    across = above_rel @ w  # sum_s a_s / pi_s
    same = np.take_along_axis(above_rel, h[..., None], axis=2)[..., 0]
    pair_sum = across + same * (inv_q[h] - w_d)
    stat_num = np.sum(np.where(is_rel, w_d * (1.0 + pair_sum) / rank, 0.0), axis=1)

    # infNDCG: each stratum's DCG scaled by its retrieved population over its retrieved judged
    gain = np.where(gr > 0, gr, 0).astype(np.float64) / np.log2(rank + 1.0)
    dcg_by_stratum = np.einsum("rd,rds->rs", gain, judged.astype(np.float64))
    ret_pop = pop.sum(axis=1)
    ret_judged = judged.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(ret_judged > 0, ret_pop / ret_judged, 0.0)
    dcg = np.sum(scale * dcg_by_stratum, axis=1)
    ideal = _ideal_dcg({g: float(np.sum(w * c)) for g, c in grade_counts.items()})

    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "xinfAP": np.where(r_hat > 0, xinf_num / r_hat, 0.0),
            "infNDCG": np.where(ideal > 0, dcg / ideal, 0.0) * np.ones(n_rows),
            "statAP": np.where(r_hat > 0, stat_num / r_hat, 0.0),
        }


def _ideal_dcg(estimated: dict[int, float]) -> float:
    """DCG of the ideal ranking of round(R^_g) documents of each grade g (gain g), best
    first; sample_eval.pl rounds half up."""
    gains = np.concatenate(
        [np.full(int(np.floor(n + 0.5)), float(g)) for g, n in sorted(estimated.items())[::-1]]
        or [np.zeros(0)]
    )
    return float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2))))
