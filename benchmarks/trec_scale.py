"""The TREC-scale runs the GUI benchmarks share (bench_workbench, bench_dashboard).

Each topic has a hidden relevance score for CANDIDATES documents; each run ranks its top
LIST_LEN by a noisy copy of it, better runs (higher quality) copying it more faithfully,
so their pools overlap as real ones do.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

CANDIDATES = 20_000
LIST_LEN = 1000


def noisy_runs(
    rng: np.random.Generator, n_runs: int, n_topics: int
) -> Iterator[tuple[int, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]]:
    """Per topic: (topic index, hidden scores of the candidates, per run its ranked
    candidate indexes and their scores, best first)."""
    quality = rng.uniform(0.3, 3.0, n_runs)
    for t in range(n_topics):
        truth = rng.standard_normal(CANDIDATES) * 2.0
        ranked = []
        for r in range(n_runs):
            noisy = quality[r] * truth + rng.standard_normal(CANDIDATES) * 3.0
            top = np.argpartition(-noisy, LIST_LEN)[:LIST_LEN]
            order = np.argsort(-noisy[top])
            ranked.append((top[order], noisy[top][order]))
        yield t, truth, ranked
