"""Agreement figures from the reference implementations (scikit-learn, statsmodels, the
krippendorff package), for comparison with judgeapp's own in the tests."""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    jaccard_score,
)
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

LEVELS = ("nominal", "ordinal", "interval", "ratio")
KAPPAS = {"cohen_kappa": None, "cohen_kappa_linear": "linear", "cohen_kappa_quadratic": "quadratic"}


def _pairs(values: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    given = ~np.isnan(values)
    return [
        (values[given[:, r] & given[:, s], r], values[given[:, r] & given[:, s], s])
        for r, s in combinations(range(values.shape[1]), 2)
    ]


def scope_reference(
    values: np.ndarray, relevant_from: int, fleiss_raters: int, labels=(0, 1, 2, 3)
) -> dict[str, float]:
    """Every scope figure of units x raters grades (NaN: not graded)."""
    out: dict[str, float] = {}
    pairs = _pairs(values)
    agree = sum(int((a == b).sum()) for a, b in pairs)
    out["percent_agreement"] = agree / sum(len(a) for a, _ in pairs)
    if values.shape[1] == 2:
        a, b = pairs[0]
        for name, weights in KAPPAS.items():
            out[name] = cohen_kappa_score(a, b, labels=list(labels), weights=weights)
    given = ~np.isnan(values)
    complete = values[given.sum(axis=1) == fleiss_raters]
    ratings = [row[~np.isnan(row)].astype(int) for row in complete]
    if ratings:
        with np.errstate(invalid="ignore", divide="ignore"):  # one category only: NaN
            out["fleiss_kappa"] = sm_fleiss_kappa(aggregate_raters(np.array(ratings))[0])
    else:
        out["fleiss_kappa"] = np.nan
    for level in LEVELS:
        out[f"krippendorff_alpha_{level}"] = krippendorff.alpha(
            values.T, level_of_measurement=level
        )
    # pooled over pairs of raters: F1 of one rater's relevant set against the other's is
    # 2a / (2a + b + c), the Jaccard index a / (a + b + c)
    first = np.concatenate([a for a, _ in pairs]) >= relevant_from
    second = np.concatenate([b for _, b in pairs]) >= relevant_from
    out["positive_agreement"] = f1_score(first, second) if (first | second).any() else np.nan
    out["relevant_overlap"] = jaccard_score(first, second) if (first | second).any() else np.nan
    out["documents"] = len(values)
    out["fleiss_documents"] = len(complete)
    return out


def pair_reference(a: np.ndarray, b: np.ndarray, relevant_from: int, labels=(0, 1, 2, 3)):
    """(figures, confusion matrix) of two raters' grades of the same units."""
    out = {"percent_agreement": accuracy_score(a, b)}
    for name, weights in KAPPAS.items():
        out[name] = cohen_kappa_score(a, b, labels=list(labels), weights=weights)
    ra, rb = a >= relevant_from, b >= relevant_from
    out["positive_agreement"] = f1_score(ra, rb) if (ra | rb).any() else np.nan
    out["relevant_overlap"] = jaccard_score(ra, rb) if (ra | rb).any() else np.nan
    out["documents"] = len(a)
    return out, confusion_matrix(a, b, labels=list(labels))
