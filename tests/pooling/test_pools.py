"""Pool building on hand-made runs: every expected pool below was worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from judgeapp.pooling.pools import (
    PoolingError,
    build_pool,
    depth_pool,
    extend_topic,
    normalise_params,
    take_pool,
    topic_seed,
)

RUNS = ("A", "B", "C")
LISTS = [np.array([10, 11, 12, 13]), np.array([12, 10, 14, 15]), np.array([16, 17, 10])]


def contributors(topic) -> dict[int, list[tuple[str, int]]]:
    return {int(d): topic.contributors(d) for d in topic.doc_ids}


def test_depth_pool_records_runs_ranks_and_best_rank():
    topic = depth_pool("7", RUNS, LISTS, 2)
    assert topic.doc_ids.tolist() == [10, 11, 12, 16, 17]
    assert topic.best_rank.tolist() == [1, 2, 1, 1, 2]
    assert contributors(topic) == {
        10: [("A", 1), ("B", 2)],
        11: [("A", 2)],
        12: [("B", 1)],
        16: [("C", 1)],
        17: [("C", 2)],
    }
    assert topic.n_runs.tolist() == [2, 1, 1, 1, 1]
    assert topic.inclusion_prob.tolist() == [1.0] * 5


def test_depth_three_adds_deeper_ranks():
    topic = depth_pool("7", RUNS, LISTS, 3)
    assert topic.doc_ids.tolist() == [10, 11, 12, 14, 16, 17]
    assert contributors(topic)[10] == [("A", 1), ("B", 2), ("C", 3)]
    assert contributors(topic)[12] == [("A", 3), ("B", 1)]


def test_unique_contributions():
    topic = depth_pool("7", RUNS, LISTS, 2)
    unique = {run: docs.tolist() for run, docs in topic.unique_to().items()}
    assert unique == {"A": [11], "B": [12], "C": [16, 17]}


def test_a_run_listing_a_document_twice_counts_it_once_at_its_best_rank():
    topic = depth_pool("1", ["A"], [np.array([5, 6, 5])], 3)
    assert topic.doc_ids.tolist() == [5, 6]
    assert contributors(topic)[5] == [("A", 1)]


def test_take_by_best_rank_breaks_ties_by_number_of_runs_then_doc_id():
    # best rank 1: 10 (3 runs), 12 (2 runs), 16 (1 run); best rank 2: 11 before 17 (doc id)
    assert take_pool("7", RUNS, LISTS, 3).doc_ids.tolist() == [10, 12, 16]
    assert take_pool("7", RUNS, LISTS, 4).doc_ids.tolist() == [10, 11, 12, 16]
    taken = take_pool("7", RUNS, LISTS, 4)
    # a Take@N document's contributors are every run that retrieved it
    assert contributors(taken)[10] == [("A", 1), ("B", 2), ("C", 3)]


def test_take_of_a_depth_pool_size_is_the_depth_pool():
    depth = depth_pool("7", RUNS, LISTS, 2)
    take = take_pool("7", RUNS, LISTS, len(depth))
    assert take.doc_ids.tolist() == depth.doc_ids.tolist()


FUSION_RUNS = ("A", "B")
# doc 1 and 3 are at rank 1 once; doc 2 is at rank 5 in both runs
FUSION_LISTS = [np.array([1, 7, 8, 9, 2]), np.array([3, 10, 11, 12, 2])]


def test_rbp_weight_prefers_one_top_rank_at_low_persistence():
    # p = 0.5: doc 1 weighs 0.5, doc 2 weighs 2 * 0.5 * 0.5**4 = 0.0625; 1 and 3 tie -> id
    pool = take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "rbp", p=0.5)
    assert pool.doc_ids.tolist() == [1]
    assert take_pool("1", FUSION_RUNS, FUSION_LISTS, 2, "rbp", p=0.5).doc_ids.tolist() == [1, 3]


def test_rbp_weight_prefers_agreement_at_high_persistence():
    # p = 0.95: doc 2 weighs 2 * 0.05 * 0.95**4 = 0.0815 > 0.05 for doc 1
    pool = take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "rbp", p=0.95)
    assert pool.doc_ids.tolist() == [2]


def test_rrf_prefers_agreement():
    # k = 60: doc 2 scores 2/65 = 0.0308 > 1/61 = 0.0164 for doc 1
    assert take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "rrf").doc_ids.tolist() == [2]
    # k = 0: doc 1 scores 1, doc 2 scores 2/5
    assert take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "rrf", k=0).doc_ids.tolist() == [1]
    # plain Take@1 by best rank
    assert take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "take").doc_ids.tolist() == [1]


def test_take_candidate_depth_limits_the_lists():
    pool = take_pool("1", FUSION_RUNS, FUSION_LISTS, 1, "rrf", depth=4)
    assert pool.doc_ids.tolist() == [1]  # doc 2 (rank 5) is not a candidate


def test_extend_with_a_run_equals_pooling_all_runs():
    old = depth_pool("7", RUNS[:2], LISTS[:2], 2)
    grown = extend_topic(old, list(RUNS), LISTS, "depth", {"depth": 2})
    full = depth_pool("7", RUNS, LISTS, 2)
    assert contributors(grown) == contributors(full)
    assert grown.best_rank.tolist() == full.best_rank.tolist()


def test_extend_deeper():
    old = depth_pool("7", RUNS, LISTS, 2)
    grown = extend_topic(old, list(RUNS), LISTS, "depth", {"depth": 3})
    assert contributors(grown) == contributors(depth_pool("7", RUNS, LISTS, 3))


def test_extend_take_pool_adds_budget_new_documents_and_keeps_old_ones():
    old = take_pool("7", RUNS[:2], LISTS[:2], 2)  # A, B: 10 (2 runs), 12 (2 runs)
    assert old.doc_ids.tolist() == [10, 12]
    grown = extend_topic(old, list(RUNS), LISTS, "take", {"budget": 2})
    # with C: next by best rank are 16 (rank 1), then 11 (rank 2, before 17 by id)
    assert grown.doc_ids.tolist() == [10, 11, 12, 16]
    assert contributors(grown)[10] == [("A", 1), ("B", 2), ("C", 3)]


def test_extend_never_drops_a_document_even_when_no_list_holds_it_any_more():
    old = depth_pool("7", ["A"], [np.array([99, 10])], 2)
    grown = extend_topic(old, ["A", "B"], [np.array([10]), np.array([12])], "depth", {"depth": 2})
    assert grown.doc_ids.tolist() == [10, 12, 99]
    assert contributors(grown)[99] == [("A", 1)]


def test_extend_refuses_to_lose_runs():
    old = depth_pool("7", RUNS, LISTS, 2)
    with pytest.raises(PoolingError, match="cannot lose a run"):
        extend_topic(old, ["A", "B"], LISTS[:2], "depth", {"depth": 2})


def test_build_pool_over_topics_and_missing_topics():
    lists = {
        "A": {"1": (np.array([1, 2]), np.array([2.0, 1.0])), "2": (np.array([5]), np.array([1.0]))},
        "B": {"1": (np.array([2, 3]), np.array([2.0, 1.0]))},
    }
    pool = build_pool(lists, "depth", {"depth": 1})
    assert list(pool) == ["1", "2"]
    assert pool["1"].doc_ids.tolist() == [1, 2]
    assert pool["2"].doc_ids.tolist() == [5]
    assert pool["2"].runs == ("A", "B")


@pytest.mark.parametrize(
    ("strategy", "params", "message"),
    [
        ("deep", {"depth": 1}, "unknown pooling strategy"),
        ("depth", {}, "needs a depth"),
        ("depth", {"depth": 0}, "at least 1"),
        ("take", {}, "needs a budget"),
        ("rbp", {"budget": 5, "p": 1.0}, "strictly between 0 and 1"),
    ],
)
def test_bad_parameters(strategy, params, message):
    with pytest.raises(PoolingError, match=message):
        normalise_params(strategy, params)


def test_normalised_parameters_have_defaults():
    assert normalise_params("rbp", {"budget": 3}) == {"budget": 3, "p": 0.8}
    assert normalise_params("rrf", {"budget": 3, "depth": 50}) == {
        "budget": 3,
        "depth": 50,
        "k": 60.0,
    }


def test_topic_seeds_differ_per_topic_and_are_stable():
    # seed * 1_000_003 + CRC-32 (IEEE) of the qid, mod 2**63: the same in every process and
    # on every platform. 0xCBF43926 is the standard's published check value for "123456789";
    # 0x52BBA297 is the CRC-32 of "401", computed bit by bit (reflected polynomial 0xEDB88320)
    assert topic_seed(0, "123456789") == 0xCBF43926
    assert topic_seed(3, "123456789") == 3 * 1_000_003 + 0xCBF43926
    assert topic_seed(2**63, "123456789") == 0xCBF43926  # the modulus
    assert topic_seed(1, "401") == 1_000_003 + 0x52BBA297 == 1_389_028_570
    assert topic_seed(1, "401") != topic_seed(1, "402")
    assert topic_seed(1, "401") != topic_seed(2, "401")
