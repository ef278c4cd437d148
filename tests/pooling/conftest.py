"""Shared data of the pooling tests: the Robust 2003 runs and qrels as id arrays."""

from __future__ import annotations

import numpy as np
import pytest

ROBUST_TOPICS = [str(q) for q in range(601, 651)]  # judged to depth 125 for these 17 runs


@pytest.fixture(scope="session")
def robust03(shared_data):
    """(lists, qrels): run tag -> qid -> doc ids in trec_eval order, and for topics 601-650
    qid -> (doc ids, grades), all with ids from one Vocabulary."""
    from judgeapp.formats import read_qrels, read_run
    from judgeapp.measures import Judgments, Vocabulary

    vocab = Vocabulary()
    judged = Judgments.from_qrels(
        read_qrels(shared_data / "robust03" / "robust03_qrels.txt"), vocab
    )
    lists: dict[str, dict[str, np.ndarray]] = {}
    for path in sorted((shared_data / "robust03" / "runs").glob("input.*.gz")):
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items()}
    qrels = {q: (judged.topics[q].docids, judged.topics[q].grades) for q in ROBUST_TOPICS}
    return lists, qrels
