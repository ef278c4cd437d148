"""The engine's own behaviour: incremental recomputation, batching, results API, data model,
missing topics, per-measure contexts, exact summation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgeapp.measures import (
    EvalOptions,
    Evaluator,
    Judgments,
    MissingTopicError,
    Run,
    Vocabulary,
    engine,
)
from judgeapp.measures.parse import parse_measures
from judgeapp.records import RankedTopic, RunFile

ALL = parse_measures(["all_trec"]) + parse_measures(
    [
        "nDCG(dcg='exp-log2')@10",
        "nDCG(dcg='jk')@5",
        "Judged@10",
        "F(beta=2)",
        "AP_11pt",
        "P(rel=2)@5",
        "AP(judged_only=True)",
        "Acc(N=5000)@20",
    ]
)


def make_case(seed: int, n_runs=6, n_topics=5, depth=60, n_docs=400):
    rng = np.random.default_rng(seed)
    judged = {}
    for t in range(n_topics):
        docs = rng.choice(n_docs, 80, replace=False)
        judged[str(t + 1)] = (docs, rng.choice([-1, 0, 0, 1, 2, 3], size=80))
    runs = []
    for r in range(n_runs):
        topics = {}
        for t in range(n_topics):
            if (r + t) % 7 == 3:
                continue  # a missing topic now and then
            topics[str(t + 1)] = rng.choice(n_docs, int(rng.integers(1, depth)), replace=False)
        runs.append(Run.from_arrays(f"run{r}", topics))
    return Judgments.from_arrays(judged), runs


def assert_same_results(a, b):
    assert a.qids == b.qids and a.measures == b.measures
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.evaluated, b.evaluated)
    np.testing.assert_array_equal(a.summary(), b.summary())
    assert a.texts == b.texts


OPTIONS = [
    EvalOptions(complete=True),
    EvalOptions(version=9),
    EvalOptions(complete=True, relevance_level=2, judged_only=True, max_docs=30),
]


@pytest.mark.parametrize("options", OPTIONS)
def test_recompute_topic_equals_a_fresh_evaluation(options):
    judgments, runs = make_case(1)
    live = Evaluator(judgments, runs, ALL, options)
    live.evaluate()
    rng = np.random.default_rng(5)
    for qid in ("2", "4", "2"):
        tj = judgments.topics[qid]
        grades = tj.grades.copy()
        grades[rng.integers(grades.size, size=5)] = rng.integers(-1, 4, size=5)
        new_docs = np.concatenate((tj.docids, [10_000 + int(rng.integers(100))]))
        live.set_topic_judgments(qid, new_docs, np.concatenate((grades, [2])))
        updated = live.recompute_topic(qid)
        fresh_judgments = Judgments({q: t for q, t in judgments.topics.items()})
        fresh = Evaluator(fresh_judgments, runs, ALL, options).evaluate()
        assert_same_results(updated, fresh)


def test_a_judgment_on_a_new_topic_adds_it():
    judgments, runs = make_case(2)
    live = Evaluator(judgments, runs, ["map", "P.5"], EvalOptions(missing="zero"))
    live.evaluate()
    ids = runs[0].topics["1"][:3]
    live.set_topic_judgments("10", ids, [1, 0, 2])  # "10" sorts between "1" and "2"
    updated = live.recompute_topic("10")
    assert updated.qids == ("1", "10", "2", "3", "4", "5")
    fresh = Evaluator(judgments, runs, ["map", "P.5"], EvalOptions(missing="zero")).evaluate()
    assert_same_results(updated, fresh)


@pytest.mark.parametrize("options", OPTIONS)
def test_removing_a_topic_equals_a_fresh_evaluation_without_it(options):
    judgments, runs = make_case(4)
    live = Evaluator(judgments, runs, ALL, options)
    live.evaluate()
    live.remove_topic("3")
    live.remove_topic("nope")  # unknown: nothing happens
    after = live.evaluate()
    assert after.qids == ("1", "2", "4", "5")
    fresh = Evaluator(Judgments(dict(judgments.topics)), runs, ALL, options).evaluate()
    assert_same_results(after, fresh)
    back = make_case(4)[0].topics["3"]
    live.set_topic_judgments("3", back.docids, back.grades)
    assert_same_results(
        live.recompute_topic("3"), Evaluator(*make_case(4), ALL, options).evaluate()
    )


def test_batching_does_not_change_a_bit(monkeypatch):
    judgments, runs = make_case(3)
    together = Evaluator(judgments, runs, ALL, EvalOptions(complete=True)).evaluate()
    monkeypatch.setattr(engine, "BATCH_CELLS", 1)  # one topic per pass
    alone = Evaluator(judgments, runs, ALL, EvalOptions(complete=True)).evaluate()
    assert_same_results(together, alone)


def test_results_api():
    judgments, runs = make_case(4)
    results = Evaluator(
        judgments, runs, ["map", "P.5,10", "nDCG@10", "num_ret"], EvalOptions(complete=True)
    ).evaluate()
    assert results.values.shape == (5, 6, 5)
    assert [m.name for m in results.measures] == ["num_ret", "map", "P_5", "P_10", "nDCG@10"]
    assert results.index("P_5") == results.index("P@5") == 2
    assert results.index("Precision@5") == 2  # any spelling the parser reads
    r = results.run_index("run2")
    assert results.value("map", "run2") == results.mean("AP")[r]
    assert results.value("P_10", "run2", "3") == results.per_topic("P@10")[r, 2]
    table = results.table()
    assert set(table) == {f"run{i}" for i in range(6)}
    assert table["run2"]["AP"] == results.mean("map")[r]
    assert table["run2"]["NumRet"] == results.per_topic("num_ret")[r].sum()
    with pytest.raises(KeyError):
        results.index("Bpref")


def test_summary_aggregates_as_trec_eval():
    """Means add topics in order then divide; counts are sums; gm_* is exp(mean(log(max(v,
    1e-5)))); num_q counts topics. Checked against plain Python on the per-topic values."""
    judgments, runs = make_case(5)
    ms = ["map", "gm_map", "num_rel_ret", "num_q"]
    results = Evaluator(judgments, runs, ms, EvalOptions(version=9)).evaluate()
    # rows in the order of ms, whatever order trec_eval prints them in
    summary = results.summary()[[results.index(m) for m in ms]]
    values = results.values[[results.index(m) for m in ms]]
    for r in range(len(runs)):
        topics = [t for t in range(len(results.qids)) if results.evaluated[r, t]]
        total = 0.0
        for t in topics:
            total += values[0, r, t]
        assert summary[0, r] == total / len(topics)
        logs = 0.0
        for t in topics:
            logs += math.log(max(values[1, r, t], 1e-5))
        assert summary[1, r] == math.exp(logs / len(topics))
        assert summary[2, r] == sum(values[2, r, t] for t in topics)
        assert summary[3, r] == len(topics)


def test_ap_sums_in_rank_order_exactly():
    """AP is the same bits as trec_eval's loop (precision added at each relevant document,
    in rank order, then divided by R): no pairwise summation."""
    rng = np.random.default_rng(9)
    flags = rng.random(1000) < 0.3
    judged = {"1": (np.arange(1000), flags.astype(int))}
    ranking = Run.from_arrays("r", {"1": np.arange(1000)})
    results = Evaluator(Judgments.from_arrays(judged), [ranking], ["map"]).evaluate()
    total, found = 0.0, 0
    for i, rel in enumerate(flags):
        if rel:
            found += 1
            total += found / (i + 1)
    assert results.values[0, 0, 0] == total / flags.sum()


def test_missing_topics_by_policy():
    judged = {"1": ([1, 2], [1, 0]), "2": ([3], [1])}
    run = Run.from_arrays("r", {"1": [1, 2]})
    js = Judgments.from_arrays(judged)
    with pytest.raises(MissingTopicError, match="topic 2"):
        Evaluator(js, [run], ["map"]).evaluate()
    zero = Evaluator(js, [run], ["num_q", "num_rel", "map"], EvalOptions(complete=True)).evaluate()
    assert zero.evaluated.tolist() == [[True, True]]
    assert zero.summary()[:, 0].tolist() == [2, 2, 0.5]
    skip = Evaluator(js, [run], ["num_q", "map"], EvalOptions(version=9)).evaluate()
    assert skip.evaluated.tolist() == [[True, False]] and math.isnan(skip.values[1, 0, 1])
    assert skip.summary()[:, 0].tolist() == [1, 1.0]
    nine_c = Evaluator(js, [run], ["num_q", "map"], EvalOptions(version=9, complete=True))
    assert nine_c.evaluate().summary()[:, 0].tolist() == [2, 0.5]  # counted, not printed
    gui = Evaluator(js, [run], ["map"], EvalOptions(missing="skip")).evaluate()
    assert gui.summary()[0, 0] == 1.0


def test_per_measure_level_and_judged_only_match_the_options():
    judgments, runs = make_case(6)
    opts = EvalOptions(complete=True)
    per_measure = Evaluator(
        judgments, runs, ["P(rel=2)@5", "AP(judged_only=True)"], opts
    ).evaluate()
    level2 = Evaluator(
        judgments, runs, ["P@5"], EvalOptions(complete=True, relevance_level=2)
    ).evaluate()
    judged = Evaluator(
        judgments, runs, ["AP"], EvalOptions(complete=True, judged_only=True)
    ).evaluate()
    np.testing.assert_array_equal(per_measure.values[0], level2.values[0])
    np.testing.assert_array_equal(per_measure.values[1], judged.values[0])
    assert not np.array_equal(
        per_measure.values[0], Evaluator(judgments, runs, ["P@5"], opts).evaluate().values[0]
    )


def test_float32_scores_reorder_as_trec_eval_9():
    """9.x keeps scores as C floats: 1.0000000001 ties with 1.0 and docno decides."""
    topic = RankedTopic(["a", "b", "c"], np.array([1.0000000001, 1.0, 0.5]), np.arange(3))
    run_file = RunFile("x", "tag", {"1": topic}, 3)
    vocab = Vocabulary(["a", "b", "c"])
    assert vocab.docnos(Run.from_run_file(run_file, vocab).topics["1"]) == ["a", "b", "c"]
    nine = Run.from_run_file(run_file, vocab, float32_scores=True)
    assert vocab.docnos(nine.topics["1"]) == ["b", "a", "c"]


def test_data_model_checks():
    vocab = Vocabulary(["x", "y"])
    assert vocab.ids(["y", "z", "x", "z"]).tolist() == [1, 2, 0, 2]
    assert vocab.ids(["q"], add=False).tolist() == [-1] and len(vocab) == 3
    assert vocab.docno(2) == "z" and "z" in vocab
    a = Judgments.from_arrays({"1": ([5, 3], [1, 0]), "2": ([4], [2])})
    b = Judgments.from_columns(["2", "1", "1"], [4, 3, 5], [2, 0, 1])
    for q in ("1", "2"):
        assert a.topics[q].docids.tolist() == b.topics[q].docids.tolist()
        assert a.topics[q].grades.tolist() == b.topics[q].grades.tolist()
    assert Judgments.from_arrays({"10": ([1], [1]), "9": ([1], [1]), "1": ([1], [1])}).qids == [
        "1",
        "10",
        "9",
    ]
    with pytest.raises(ValueError, match="twice"):
        Judgments.from_arrays({"1": ([3, 3], [1, 0])})
    with pytest.raises(ValueError, match="twice"):
        Run.from_arrays("r", {"1": [4, 2, 4]})
    with pytest.raises(ValueError, match="integers"):
        Run.from_arrays("r", {"1": [0.5]})
    with pytest.raises(ValueError, match=">= 0"):
        Judgments.from_arrays({"1": ([-1], [1])})


def test_qids_are_strings_01_is_not_1():
    judged = {"1": ([1], [1]), "01": ([2], [1])}
    run = Run.from_arrays("r", {"1": [2], "01": [1]})
    results = Evaluator(Judgments.from_arrays(judged), [run], ["map"]).evaluate()
    assert results.qids == ("01", "1")
    assert results.values[0, 0].tolist() == [0.0, 0.0]


def test_judged_counts_any_grade_unj_only_non_negative():
    """Judged@k (ir_measures): documents the judgments name, negative grades included;
    trec_eval's unj_k counts a negative grade as unjudged (pooled, not judged)."""
    judged = {"1": ([1, 2, 3], [1, -1, 0])}
    run = Run.from_arrays("r", {"1": [1, 2, 9, 3]})  # judged, negative, absent, judged
    names = ["Judged@4", "Judged@10", "Judged", "unj_4"]
    results = Evaluator(Judgments.from_arrays(judged), [run], [*names, "relstring"]).evaluate()
    assert [results.value(n, "r", "1") for n in names] == [0.75, 0.75, 0.75, 0.5]
    assert results.texts[results.index("relstring")][0][0] == "1.-0"


def test_measure_texts_parse_together():
    """Texts given to the Evaluator follow trec_eval's rules as a whole: its order, the
    first parameters of a measure win."""
    judgments, runs = make_case(7)
    ev = Evaluator(judgments, runs, ["P.10", "map", "P.5", "nDCG@10"], EvalOptions(complete=True))
    assert [m.name for m in ev.measures] == ["map", "P_10", "nDCG@10"]
