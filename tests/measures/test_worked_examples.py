"""The worked examples of ../shared/docs/measures.md (from the lecture notes in seeds 000,
003 and 004), as unit tests. Rankings are relevance flags or grades from rank 1 down."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run


def evaluate_flags(rankings: dict[str, list[int]], measures, num_rel=None, **options):
    """One run ranking documents 0..n-1 per topic; a flag/grade per rank; the judgments are
    exactly those grades (plus extra relevant documents not retrieved, to reach num_rel)."""
    judged, lists = {}, {}
    for qid, flags in rankings.items():
        docs = list(range(len(flags)))
        grades = list(flags)
        extra = (num_rel or {}).get(qid, 0) - sum(1 for g in flags if g > 0)
        docs += [10**7 + i for i in range(max(extra, 0))]
        grades += [1] * max(extra, 0)
        judged[qid] = (docs, grades)
        lists[qid] = np.arange(len(flags))
    results = Evaluator(
        Judgments.from_arrays(judged),
        [Run.from_arrays("run", lists)],
        measures,
        EvalOptions(**options),
    ).evaluate()
    return results


CASE_A = [1, 0, 1, 1, 1, 1, 0, 0, 0, 1]
CASE_B = [0, 1, 0, 0, 1, 1, 1, 0, 1, 1]
CASE_C = [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
CASE_D = [0, 1, 0, 0, 1, 0, 1, 0, 0, 0]
Q1 = [1, 0, 1, 0, 0, 1, 0, 0, 1, 1]
Q2 = [0, 1, 0, 0, 1, 0, 1, 0, 0, 0]


@pytest.mark.parametrize(
    ("flags", "ap"),
    [
        (CASE_A, 0.7750),
        (CASE_B, 0.5212),
        (CASE_C, 0.5444),
        (CASE_D, 0.4429),
        (Q1, 0.6222),
        (Q2, 0.4429),
    ],
)
def test_average_precision(flags, ap):
    results = evaluate_flags({"1": flags}, ["AP"])
    assert f"{results.value('AP', 'run', '1'):.4f}" == f"{ap:.4f}"


@pytest.mark.parametrize(
    ("pair", "mean"), [((CASE_A, CASE_C), 0.6597), ((CASE_B, CASE_D), 0.4820), ((Q1, Q2), 0.5325)]
)
def test_mean_average_precision(pair, mean):
    results = evaluate_flags({"1": pair[0], "2": pair[1]}, ["map"])
    assert f"{results.mean('map')[0]:.4f}" == f"{mean:.4f}"


@pytest.mark.parametrize(("flags", "value"), [(CASE_A, 0.8212), (CASE_B, 0.6000)])
def test_eleven_point_interpolated_ap(flags, value):
    """'AP alternative 2' of seed 000: precision interpolated at recall >= each level."""
    results = evaluate_flags({"1": flags}, ["AP_11pt"])
    assert f"{results.value('AP_11pt', 'run', '1'):.4f}" == f"{value:.4f}"


def test_eleven_point_differs_from_trec_eval_11pt_avg():
    """trec_eval's 11pt_avg turns levels into counts by rounding, hence another value for A."""
    results = evaluate_flags({"1": CASE_A}, ["AP_11pt", "11pt_avg"])
    assert results.value("11pt_avg", "run", "1") != results.value("AP_11pt", "run", "1")


def test_precision_at_k():
    results = evaluate_flags({"1": [1, 0, 1, 0, 1]}, ["P@3", "P@4", "P@5"])
    assert results.value("P@3", "run", "1") == pytest.approx(2 / 3)
    assert results.value("P@4", "run", "1") == 2 / 4
    assert results.value("P@5", "run", "1") == 3 / 5


GRADED = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
TABLE = {
    "exp-log2": (
        "7.00 8.89 12.39 12.39 12.39 12.75 13.75 14.70 16.80 16.80",
        "1.00 0.78 0.83 0.76 0.71 0.69 0.73 0.78 0.90 0.90",
    ),
    "jk": (
        "3 5 6.89 6.89 6.89 7.28 7.99 8.66 9.61 9.61",
        # the slides print 0.76 at rank 4; measures.md gives the computed 0.78
        "1.00 0.83 0.87 0.78 0.71 0.69 0.73 0.80 0.88 0.88",
    ),
    "log2": (
        "3.00 4.26 5.76 5.76 5.76 6.12 6.78 7.42 8.32 8.32",
        "1.00 0.87 0.90 0.79 0.72 0.70 0.75 0.82 0.92 0.92",
    ),
}


@pytest.mark.parametrize("variant", list(TABLE))
def test_dcg_and_ndcg_table(variant):
    dcg_expected, ndcg_expected = TABLE[variant]
    dcg = [f"DCG(dcg='{variant}')@{k}" for k in range(1, 11)]
    ndcg = [f"nDCG(dcg='{variant}')@{k}" for k in range(1, 11)]
    results = evaluate_flags({"1": GRADED}, dcg + ndcg)
    for name, text in zip(dcg, dcg_expected.split(), strict=True):
        decimals = len(text.partition(".")[2])
        assert round(results.value(name, "run", "1"), decimals) == pytest.approx(float(text))
    for name, text in zip(ndcg, ndcg_expected.split(), strict=True):
        assert f"{results.value(name, 'run', '1'):.2f}" == text


def test_trec_eval_ndcg_cut_is_the_linear_variant():
    results = evaluate_flags({"1": GRADED}, ["ndcg_cut.5,10", "nDCG@5", "nDCG@10"])
    assert results.value("ndcg_cut_5", "run", "1") == results.value("nDCG@5", "run", "1")
    assert f"{results.value('ndcg_cut_10', 'run', '1'):.2f}" == "0.92"


def test_jarvelin_kekalainen_four_documents():
    """Seed 004: truth d4=2 d3=2 d2=1 d1=0; the ranking d3 d2 d4 d1."""
    judged = {"1": ([1, 2, 3, 4], [0, 1, 2, 2])}
    run = Run.from_arrays("run", {"1": [3, 2, 4, 1]})
    results = Evaluator(
        Judgments.from_arrays(judged), [run], ["DCG(dcg='jk')", "nDCG(dcg='jk')"]
    ).evaluate()
    assert f"{results.value(results.measures[0], 'run', '1'):.4f}" == "4.2619"
    assert f"{results.value(results.measures[1], 'run', '1'):.4f}" == "0.9203"
    ideal = results.value(results.measures[0], "run", "1") / results.value(
        results.measures[1], "run", "1"
    )
    assert f"{ideal:.4f}" == "4.6309"


def test_accuracy():
    """Seed 004: one document retrieved (relevant), 10 relevant, 1000 documents: 0.991."""
    results = evaluate_flags({"1": [1]}, ["Acc(N=1000)"], num_rel={"1": 10})
    assert results.value("Acc(N=1000)", "run", "1") == pytest.approx(0.991)
    with_n = evaluate_flags({"1": [1]}, ["Acc"], num_rel={"1": 10}, num_docs=1000)
    assert with_n.value("Acc", "run", "1") == pytest.approx(0.991)


@pytest.mark.parametrize(
    ("retrieved", "relevant_retrieved", "relevant", "precision", "recall", "slide"),
    # 0.94 / 0.26 is 0.4073: the slides print it truncated as 0.40
    [(650, 611, 2350, 0.94, 0.26, "0.40"), (2300, 2277, 2475, 0.99, 0.92, "0.95")],
)
def test_f_measure(retrieved, relevant_retrieved, relevant, precision, recall, slide):
    flags = [1] * relevant_retrieved + [0] * (retrieved - relevant_retrieved)
    results = evaluate_flags(
        {"1": flags}, ["F", "F(beta=2)", "SetP", "SetR", "set_F"], num_rel={"1": relevant}
    )
    value = results.value("F", "run", "1")
    assert results.value("SetP", "run", "1") == pytest.approx(precision)
    assert results.value("SetR", "run", "1") == pytest.approx(recall)
    assert value == pytest.approx(2 * precision * recall / (precision + recall))
    assert f"{math.floor(value * 100) / 100:.2f}" == slide
    # beta 1: the lecture notes' F equals trec_eval's set_F; beta 2 weighs recall more
    assert results.value("set_F", "run", "1") == pytest.approx(value)
    f2 = results.value("F(beta=2)", "run", "1")
    assert f2 == pytest.approx(5 * precision * recall / (4 * precision + recall))


def test_fallout():
    """Judged non-relevant retrieved over (collection size - R)."""
    results = evaluate_flags(
        {"1": [1, 0, 0, 1, 0]}, ["Fallout(N=100)", "Fallout(N=100)@2"], num_rel={"1": 4}
    )
    assert results.value("Fallout(N=100)", "run", "1") == pytest.approx(3 / 96)
    assert results.value("Fallout(N=100)@2", "run", "1") == pytest.approx(1 / 96)
