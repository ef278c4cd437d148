"""Measures that stay meaningful while judgments are incomplete, for one run and one topic.

`incomplete_measures` gives, beside plain AP and nDCG (which count unjudged documents as
non-relevant): Judged@k (the share of the top k that is judged), condensed AP and nDCG
(unjudged documents removed from the ranking first: trec_eval -J, Sakai's condensed lists),
bpref, infAP (pooled documents not yet judged given grade -1, as trec_eval expects for a
sampled pool), and RBP with its residual (the most the unjudged documents could add). All of
them come from `judgeapp.measures`, so they are trec_eval's numbers.
"""

from __future__ import annotations

import numpy as np

LABELS = {
    "AP": "AP",
    "AP(judged_only=True)": "AP, condensed",
    "nDCG": "nDCG",
    "nDCG(judged_only=True)": "nDCG, condensed",
    "Bpref": "bpref",
    "infAP": "infAP",
}


def measure_names(k: int = 10, p: float = 0.8) -> list[str]:
    """The measures `incomplete_measures` reports, as canonical measure text."""
    return [
        f"Judged@{k}",
        "AP",
        "AP(judged_only=True)",
        "nDCG",
        "nDCG(judged_only=True)",
        "Bpref",
        "infAP",
        f"rbp(p={p:g})",
        f"rbp_resid(p={p:g})",
    ]


def label(name: str) -> str:
    """A short label for one of `measure_names`, for tables and tooltips."""
    if name in LABELS:
        return LABELS[name]
    if name.startswith("rbp_resid"):
        return f"RBP residual ({name[len('rbp_resid') + 1 : -1]})"
    if name.startswith("rbp"):
        return f"RBP ({name[4:-1]})"
    return name


def incomplete_measures(
    ranking: np.ndarray,
    judged_ids: np.ndarray,
    grades: np.ndarray,
    *,
    pooled_unjudged: np.ndarray | None = None,
    k: int = 10,
    p: float = 0.8,
    relevance_level: int = 1,
) -> dict[str, float]:
    """The measures of `measure_names(k, p)` for one ranking (doc ids in rank order) against
    one topic's judgments; `pooled_unjudged` (doc ids) are pooled documents awaiting
    judgment, which infAP treats as sampled-but-unjudged rather than as outside the pool."""
    ids = np.asarray(judged_ids, np.int64)
    grades = np.asarray(grades, np.int64)
    ranking = np.asarray(ranking, np.int64)
    names = measure_names(k, p)
    values = _evaluate(ranking, ids, grades, [n for n in names if n != "infAP"], relevance_level)
    if pooled_unjudged is not None and len(pooled_unjudged):
        # only infAP reads grade -1 as "pooled, not judged yet"; elsewhere it would count as
        # a judgment (Judged@k) or a judged non-relevant document (condensed lists)
        extra = np.setdiff1d(np.asarray(pooled_unjudged, np.int64), ids)
        ids = np.concatenate([ids, extra])
        grades = np.concatenate([grades, np.full(len(extra), -1, np.int64)])
    values.update(_evaluate(ranking, ids, grades, ["infAP"], relevance_level))
    return {name: values[name] for name in names}


def _evaluate(
    ranking: np.ndarray, ids: np.ndarray, grades: np.ndarray, names: list[str], level: int
) -> dict[str, float]:
    from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run

    judgments = Judgments.from_arrays({"q": (ids, grades)})
    run = Run.from_arrays("run", {"q": ranking})
    results = Evaluator(judgments, [run], names, EvalOptions(relevance_level=level)).evaluate()
    return {name: float(results.value(name, "run", "q")) for name in names}
