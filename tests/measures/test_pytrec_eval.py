"""Equality with pytrec_eval (trec_eval 9.x inside) on generated cases.

Cases have ties and duplicate scores (scores from a small set, some equal only as C
floats), qids like "01" and "1", docnos with '#', topics with no relevant document, negative
grades (pooled but unjudged), qrels topics the run lacks and run topics the qrels lack,
relevance levels 1-3 and -J. Inputs go through real files and judgeapp's readers.

Inputs outside trec_eval's defined behaviour are not generated: a judged topic whose grades
are all negative, and a run topic with no documents evaluated together with gm_bpref and
recip_rank, make pytrec_eval crash (a segfault) or read freed memory. Empty run topics are
checked one measure at a time, which pytrec_eval survives.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeapp.formats import read_qrels, read_run
from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run, Vocabulary
from judgeapp.measures.parse import parse_measures
from tests.conftest import require

pytrec_eval = require("pytrec_eval")

QIDS = ["1", "01", "2", "10", "q#1"]
DOCS = [f"d{i}" for i in range(12)] + ["D1", "d1#x", "d10a"]
# 1.0000000001 equals 1.0 as a C float: a tie for 9.x, not for 10.0
SCORES = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 1.0000000001, 0.1, 3.25]
PLAIN = sorted(m for m in pytrec_eval.supported_measures if m not in ("runid", "relstring"))
# parameters as pytrec_eval takes them (it aborts on name=value pairs such as ndcg.1=3 and
# ignores utility's coefficients; those are checked against trec_eval's own suite)
WITH_PARAMS = [
    "P.3,7",
    "recall.4,30",
    "map_cut.3,8",
    "ndcg_cut.2,4,11",
    "success.2",
    "relative_P.3",
    "iprec_at_recall.0.25,0.5",
    "Rprec_mult.0.5,1.5",
    "set_F.0.5",
    "11pt_avg.0.25,0.5,0.75",
]

topic_judgments = st.dictionaries(
    st.sampled_from(DOCS), st.integers(-2, 3), min_size=1, max_size=12
).filter(lambda d: max(d.values()) >= 0)
qrels_st = st.dictionaries(st.sampled_from(QIDS), topic_judgments, min_size=1, max_size=4)


def runs_st(min_docs: int):
    ranked = st.dictionaries(
        st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=min_docs, max_size=12
    )
    return st.dictionaries(st.sampled_from(QIDS), ranked, min_size=1, max_size=4)


def judgeapp_results(tmp_path, qrels, run, measures, level, judged_only):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    run_path.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items())
    )
    vocab = Vocabulary()
    judgments = Judgments.from_qrels(read_qrels(qrels_path), vocab)
    if any(run.values()):
        engine_run = Run.from_run_file(read_run(run_path), vocab, float32_scores=True)
    else:
        engine_run = Run("tag")
    for qid, docs in run.items():  # pytrec_eval evaluates a topic given with no documents
        if not docs:
            engine_run.topics[qid] = np.zeros(0, dtype=np.int64)
    options = EvalOptions(version=9, relevance_level=level, judged_only=judged_only)
    return Evaluator(judgments, [engine_run], parse_measures(measures, 9), options).evaluate()


def assert_same(expected: dict, results) -> int:
    evaluated = {q for t, q in enumerate(results.qids) if results.evaluated[0, t]}
    assert evaluated == set(expected)
    checked = 0
    for qid, values in expected.items():
        t = results.qids.index(qid)
        for i, m in enumerate(results.measures):
            if m.name not in values:
                continue
            want, got = values[m.name], results.values[i, 0, t]
            if m.aggregate == "gmean":  # pytrec_eval reports the per-topic log
                got = math.log(max(got, 1e-5))
            if math.isnan(want) and math.isnan(got):
                continue
            assert got == pytest.approx(want, abs=1e-12), (qid, m.name)
            checked += 1
    return checked


def common(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))


@common(150)
@given(qrels=qrels_st, run=runs_st(1), level=st.sampled_from([1, 2, 3]), judged=st.booleans())
def test_all_measures_match(tmp_path_factory, qrels, run, level, judged):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(PLAIN), relevance_level=level, judged_docs_only_flag=judged
    )
    expected = evaluator.evaluate(run)
    results = judgeapp_results(tmp_path_factory.mktemp("c"), qrels, run, PLAIN, level, judged)
    assert_same(expected, results)


@common(60)
@given(qrels=qrels_st, run=runs_st(1), level=st.sampled_from([1, 2]))
def test_measure_parameters_match(tmp_path_factory, qrels, run, level):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(WITH_PARAMS), relevance_level=level)
    expected = evaluator.evaluate(run)
    results = judgeapp_results(tmp_path_factory.mktemp("c"), qrels, run, WITH_PARAMS, level, False)
    assert_same(expected, results)


@common(40)
@given(qrels=qrels_st, run=runs_st(0), level=st.sampled_from([1, 2]))
def test_empty_topics_match(tmp_path_factory, qrels, run, level):
    results = judgeapp_results(tmp_path_factory.mktemp("c"), qrels, run, PLAIN, level, False)
    for measure in PLAIN:
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=level)
        assert_same(evaluator.evaluate(run), results)


def test_generated_cases_are_checked():
    """A guard that the comparison really compares: a fixed case with ties, "01" vs "1",
    a negative grade and a topic without relevant documents checks every measure."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "x": -1}, "01": {"a": 0}, "2": {"z": 0, "y": 1}}
    run = {
        "1": {"a": 0.5, "b": 0.5, "c": 0.2, "d": 0.9, "x": 0.1},
        "01": {"a": 1.0},
        "3": {"a": 1.0},
    }
    import tempfile
    from pathlib import Path

    expected = pytrec_eval.RelevanceEvaluator(qrels, set(PLAIN)).evaluate(run)
    with tempfile.TemporaryDirectory() as tmp:
        results = judgeapp_results(Path(tmp), qrels, run, PLAIN, 1, False)
    assert assert_same(expected, results) == 2 * len(expected["1"])
