"""benchmarks/coverage_resolution.py: the chance that exactly calibrated intervals meet the
coverage bands, against a simulation, and its reading of the results file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "coverage_resolution.py"
spec = importlib.util.spec_from_file_location("coverage_resolution", BENCH)
assert spec and spec.loader
resolution = importlib.util.module_from_spec(spec)
spec.loader.exec_module(resolution)


@pytest.mark.parametrize("n", [25, 75])
def test_band_probability_matches_a_simulation(n):
    rng = np.random.default_rng(7)
    u = rng.random((100_000, n))  # each case's place in its predictive: calibrated
    c80 = ((u > 0.1) & (u < 0.9)).mean(axis=1)
    c95 = ((u > 0.025) & (u < 0.975)).mean(axis=1)
    band = np.vectorize(resolution.in_band)
    simulated = (band(c80, 0.8) & band(c95, 0.95)).mean()
    assert resolution.band_probability(n) == pytest.approx(simulated, abs=0.01)


def test_bands_edges_as_the_tables_round():
    assert resolution.in_band(0.78, 0.8) and resolution.in_band(0.88, 0.8)
    assert not resolution.in_band(0.77, 0.8) and not resolution.in_band(0.89, 0.8)
    assert resolution.in_band(0.93, 0.95) and not resolution.in_band(0.99, 0.95)


def test_reads_every_held_out_cell_of_the_results_file():
    cells = resolution.measured_cells(resolution.RESULTS.read_text())
    robust = {k: v for k, v in cells.items() if k[0] == "held-out Robust"}
    assert len(robust) == 12
    assert robust["held-out Robust", "blind", 25][0] == 225  # 75 topics x 3 shuffles
    assert all(n == 75 for (_, order, _), (n, _, _) in robust.items() if order != "blind")
    for n, k80, k95 in cells.values():
        assert 0 <= k80 <= k95 <= n  # the 80% interval lies inside the 95% one
