"""Simulated judging: the bookkeeping by hand, and the strategies' shape on TREC data."""

from __future__ import annotations

import gzip
from collections import defaultdict
from pathlib import Path

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
from tests.pooling.judging import depth_pools

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


def plain_tops(runs: Path, topics: list[str], depth: int) -> dict[str, dict[str, set[str]]]:
    """run tag -> qid -> docnos of its first `depth` lines, straight from the run files
    without judgeapp's readers: a topic's lines in trec_eval's order (score descending, ties
    by docno descending, as its qsort comparator)."""
    tops: dict[str, dict[str, set[str]]] = {}
    for path in sorted(runs.glob("input.*.gz")):
        lines: dict[str, list[tuple[float, str]]] = defaultdict(list)
        with gzip.open(path, "rt") as fh:
            for line in fh:
                qid, _q0, docno, _rank, score, tag = line.split()[:6]
                if qid in topics:
                    lines[qid].append((float(score), docno))
        for entries in lines.values():
            entries.sort(reverse=True)
        tops[tag] = {q: {d for _s, d in lines[q][:depth]} for q in topics}
    return tops


def plain_grades(path: Path) -> dict[tuple[str, str], int]:
    grades = {}
    for line in path.read_text().splitlines():
        qid, _iteration, docno, grade = line.split()
        grades[qid, docno] = int(grade)
    return grades


@pytest.fixture(scope="module")
def plain(shared_data):
    """The depth-100 contributions of each run and the qrels, read without judgeapp."""
    base = shared_data / "robust03"
    return plain_tops(base / "runs", ROBUST_TOPICS, 100), plain_grades(base / "robust03_qrels.txt")


@pytest.fixture(scope="module")
def robust(robust03):
    lists, qrels = robust03
    return depth_pools(lists, ROBUST_TOPICS), lists, qrels


@pytest.mark.slow
def test_robust03_strategies_have_the_expected_shape(robust, plain):
    pool, lists, qrels = robust
    strategies = ["blind", "rank", "mtf", "hedge", "maxmean", "maxmean-ns"]
    results = simulate(strategies, pool, lists, qrels)
    first = results["blind"]
    # the depth-100 pool and its relevant documents, worked out from the files directly
    tops, grades = plain
    pooled = {q: set().union(*(top[q] for top in tops.values())) for q in ROBUST_TOPICS}
    assert {r.qid: r.pool_size for r in first} == {q: len(pooled[q]) for q in ROBUST_TOPICS}
    assert sum(r.pool_size for r in first) == 23402
    assert all((q, d) in grades for q in ROBUST_TOPICS for d in pooled[q])  # judged to 125
    assert sum(r.unjudged for r in first) == 0
    relevant = {q: sum(grades[q, d] >= 1 for d in pooled[q]) for q in ROBUST_TOPICS}
    assert sum(relevant.values()) == 1433
    table = needed_table(results)
    for column in (1, 2):  # 80% and 90%
        bandit = max(table["maxmean"][column], table["maxmean-ns"][column])
        assert bandit <= table["mtf"][column]
        assert table["mtf"][column] < 0.9 * table["rank"][column]
        assert table["rank"][column] < 0.7 * table["blind"][column]
    # every strategy judges the whole pool and finds every pooled relevant document
    for replays in results.values():
        assert {r.qid: r.relevant for r in replays} == relevant


@pytest.mark.slow
def test_robust03_pool_bias_full_map_is_trec_evals(robust, plain, shared_data):
    pool, lists, qrels = robust
    tops, _grades = plain
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
        others = [top for run, top in tops.items() if run != row.run]
        unique = sum(
            len(tops[row.run][q].difference(*(o[q] for o in others))) for q in ROBUST_TOPICS
        )
        assert row.unique_docs == unique, row.run
    assert 0.9 < report.tau <= 1.0
