"""Simulated judging: the bookkeeping by hand, and the strategies' shape on TREC data."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from judgeapp.pooling import depth_pool
from judgeapp.pooling.simulate import (
    grades_for,
    judgments_needed,
    needed_table,
    pool_bias,
    replay_topic,
    simulate,
    summed_curve,
)

ROBUST_TOPICS = [str(q) for q in range(601, 651)]


def test_judgments_needed_uses_the_ceiling_of_the_share():
    found = np.array([0, 1, 1, 2, 3, 3, 4])  # 4 relevant
    assert judgments_needed(found, 4, 0.5) == 4  # 2 found after the 4th judgment
    assert judgments_needed(found, 4, 0.8) == 7  # ceil(3.2) = 4
    assert judgments_needed(found, 4, 0.75) == 5  # exactly 3
    assert judgments_needed(found, 0, 1.0) == 0


def test_grades_of_pooled_documents_and_the_unjudged_ones():
    topic = depth_pool("1", ["A"], [np.array([5, 3, 9])], 3)  # pool 3, 5, 9
    grades, missing = grades_for(topic, {"1": (np.array([9, 3, 4]), np.array([2, 0, 1]))})
    assert grades.tolist() == [0, 0, 2]
    assert missing.tolist() == [False, True, False]


def test_replay_and_summed_curve():
    lists = {"A": np.array([1, 2, 3]), "B": np.array([4])}
    topic = depth_pool("1", list(lists), list(lists.values()), 3)
    replay = replay_topic("rank", topic, lists, {"1": (np.array([2, 4]), np.array([1, 3]))})
    assert replay.order.tolist() == [1, 4, 2, 3]
    assert replay.found.tolist() == [0, 1, 2, 2]
    assert (replay.relevant, replay.unjudged) == (2, 2)
    other = replay_topic(
        "rank",
        depth_pool("2", ["A"], [np.array([7])], 1),
        {"A": np.array([7])},
        {"2": (np.array([7]), np.array([1]))},
    )
    assert summed_curve([replay, other]).tolist() == [0, 1, 2, 3, 3]


@pytest.fixture(scope="module")
def robust(robust03):
    lists, qrels = robust03
    names = list(lists)
    empty = np.empty(0, np.int64)
    pool = {
        q: depth_pool(q, names, [lists[r].get(q, empty) for r in names], 100) for q in ROBUST_TOPICS
    }
    return pool, lists, qrels


@pytest.mark.slow
def test_robust03_strategies_have_the_expected_shape(robust):
    pool, lists, qrels = robust
    strategies = ["blind", "rank", "mtf", "hedge", "maxmean", "maxmean-ns"]
    results = simulate(strategies, pool, lists, qrels)
    first = results["blind"]
    assert sum(r.pool_size for r in first) == 23402
    assert sum(r.unjudged for r in first) == 0  # 601-650 are judged to depth 125
    table = needed_table(results)
    for column in (1, 2):  # 80% and 90%
        bandit = max(table["maxmean"][column], table["maxmean-ns"][column])
        assert bandit <= table["mtf"][column]
        assert table["mtf"][column] < 0.9 * table["rank"][column]
        assert table["rank"][column] < 0.7 * table["blind"][column]
    # every strategy judges the whole pool and finds every pooled relevant document
    for replays in results.values():
        assert sum(r.relevant for r in replays) == 1433


@pytest.mark.slow
def test_robust03_pool_bias_full_map_is_trec_evals(robust, shared_data):
    pool, lists, qrels = robust
    report = pool_bias(pool, lists, qrels)
    outputs = shared_data / "robust03" / "trec_eval-outputs" / "robust03_trec_eval_v10"
    for row in report.rows:
        with gzip.open(outputs / f"{row.run}.all_trec.q.txt.gz", "rt") as fh:
            aps = [
                float(p[2])
                for p in (line.split() for line in fh)
                if p[0] == "map" and p[1] in set(ROBUST_TOPICS)
            ]
        assert len(aps) == 50
        assert row.score_full == pytest.approx(sum(aps) / 50, abs=5e-5), row.run
        assert row.unique_docs == sum(len(pool[q].unique_to()[row.run]) for q in ROBUST_TOPICS)
    assert 0.9 < report.tau <= 1.0
