"""The Python API (judgeapp.calc_aggregate, iter_calc, evaluator) as a notebook user meets it,
checked against ir_measures' pytrec_eval provider (trec_eval 9.x inside) to 1e-12."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import judgeapp
from judgeapp import AP, P, nDCG
from tests.conftest import require

ir_measures = require("ir_measures")
pd = require("pandas")

# measures both compute through pytrec_eval (ir_measures' text is also judgeapp's)
SHARED = [
    "AP",
    "AP@100",
    "P@5",
    "P@10",
    "P(rel=2)@10",
    "R@100",
    "RR",
    "nDCG",
    "nDCG@10",
    "Rprec",
    "Bpref",
    "infAP",
    "IPrec@0.3",
    "IPrec@0.75",
    "SetP",
    "SetR",
    "SetF",
    "SetAP",
    "Success@10",
    "NumRet",
    "NumRelRet",
    "AP(rel=2)",
    "nDCG(judged_only=True)@10",
]


def pytrec_eval_values(qrels, run, measures):
    provider = ir_measures.providers.registry["pytrec_eval"]
    parsed = [ir_measures.parse_measure(m) for m in measures]
    assert all(provider.supports(m) for m in parsed)
    found = provider.calc_aggregate(parsed, qrels, run)
    return {text: float(found[m]) for text, m in zip(measures, parsed, strict=True)}


def by_text(measures, result):
    """judgeapp's results keyed by the texts asked for (in the order asked)."""
    assert len(result) == len(measures)
    return dict(zip(measures, result.values(), strict=True))


def synthetic(seed: int):
    """Graded qrels (with negative grades) and a run with ties, documents the qrels do not
    name, a qrels topic the run lacks and a run topic the qrels lack; dict order random."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(8):
        qid = f"{q:02d}" if q % 3 else str(q)
        docs = [f"d{i}" for i in range(60)]
        qrels[qid] = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2]) for d in rng.sample(docs, 35)}
        if q == 5:
            continue  # a judged topic the run lacks
        ranked = rng.sample(docs + [f"x{i}" for i in range(20)], 50)
        run[qid] = {d: float(rng.choice([0.5, 1.0, 1.25, 2.0, 3.5, rng.random()])) for d in ranked}
    run["999"] = {"d1": 1.0}
    return qrels, run


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dicts_equal_ir_measures_pytrec_eval(seed):
    qrels, run = synthetic(seed)
    expected = pytrec_eval_values(qrels, run, SHARED)
    got = by_text(SHARED, judgeapp.calc_aggregate(SHARED, qrels, run, version=9))
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_dataframe_and_namedtuples_equal_dicts():
    qrels, run = synthetic(4)
    qrels_df = pd.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.Random(0).shuffle(rows)  # a DataFrame in no particular order
    run_df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    expected = pytrec_eval_values(qrels, run, SHARED)
    from_frames = by_text(SHARED, judgeapp.calc_aggregate(SHARED, qrels_df, run_df, version=9))
    tuples = [ir_measures.ScoredDoc(*r) for r in rows]
    qrel_tuples = [ir_measures.Qrel(q, d, g) for q, d, g in qrels_df.itertuples(index=False)]
    from_tuples = by_text(SHARED, judgeapp.calc_aggregate(SHARED, qrel_tuples, tuples, version=9))
    for name, value in expected.items():
        assert from_frames[name] == pytest.approx(value, abs=1e-12), name
        assert from_tuples[name] == pytest.approx(value, abs=1e-12), name


def test_per_topic_values_equal_ir_measures():
    qrels, run = synthetic(5)
    measures = ["AP", "nDCG@10", "P@5", "Bpref"]
    provider = ir_measures.providers.registry["pytrec_eval"]
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in provider.iter_calc([ir_measures.parse_measure(x) for x in measures], qrels, run)
    }
    got = {(m.query_id, str(m.measure)): m.value for m in judgeapp.iter_calc(measures, qrels, run)}
    assert got.keys() == expected.keys()  # every qrels topic, the missing one as 0
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_robust03_runs_as_dicts_equal_ir_measures(shared_data):
    """Three Robust 2003 runs read into dicts in reversed file order (not sorted by score)."""
    from judgeapp.formats import read_qrels, read_run

    base = shared_data / "robust03"
    qrels_file = read_qrels(base / "robust03_qrels.txt")
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in qrels_file:
        qrels.setdefault(q, {})[d] = g
    measures = [m for m in SHARED if m != "nDCG(judged_only=True)@10"]
    for path in sorted((base / "runs").glob("input.*.gz"))[:3]:
        rf = read_run(path)
        run = {
            q: dict(reversed(list(zip(t.docnos, t.scores.tolist(), strict=True))))
            for q, t in rf.topics.items()
        }
        expected = pytrec_eval_values(qrels, run, measures)
        got = by_text(measures, judgeapp.calc_aggregate(measures, qrels, run, version=9))
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-12), (path.name, name)


def test_run_order_does_not_matter():
    """The issue's case: a run given in its own order was scored as if it were ranked."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
    shuffled = {"q": {"c": 1.0, "a": 2.0, "b": 3.0}}
    # ranking b a c: AP = (1/2 + 2/3) / 2
    assert judgeapp.calc_aggregate([AP], qrels, run)[AP] == pytest.approx(7 / 12)
    assert judgeapp.calc_aggregate([AP], qrels, shuffled)[AP] == pytest.approx(7 / 12)
    # ties: docno descending, as trec_eval
    tied = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}  # ranked c b a
    assert judgeapp.calc_aggregate(["RR"], qrels, tied)["RR"] == 1.0
    assert judgeapp.calc_aggregate(["P@2"], qrels, tied)["P@2"] == 0.5


def test_which_topics_are_averaged():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "3": {"b": 1.0}}
    assert judgeapp.calc_aggregate([AP], qrels, run)[AP] == 0.5  # qrels' topics (-c)
    assert judgeapp.calc_aggregate([AP], qrels, run, topics="run")[AP] == 1.0
    with pytest.raises(judgeapp.measures.MissingTopicError):
        judgeapp.calc_aggregate([AP], qrels, run, topics="strict")


def test_evaluator_reused_and_paths(tmp_path):
    qrels, run = synthetic(6)
    ev = judgeapp.evaluator([AP, nDCG @ 10, P @ 5], qrels)
    first = ev.calc_aggregate(run)
    path = tmp_path / "run.txt"
    path.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items())
    )
    assert ev.calc_aggregate(path) == first
    assert ev.calc_aggregate(str(path)) == first
    qpath = tmp_path / "qrels.txt"
    qpath.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    assert judgeapp.calc_aggregate([AP, nDCG @ 10, P @ 5], qpath, run) == first
    both = ev.calc(run)
    assert both.aggregated == first
    assert len(both.per_query) == 3 * len(qrels)


def test_bad_inputs_are_clear():
    with pytest.raises(ValueError, match="integers"):
        judgeapp.calc_aggregate([AP], {"q": {"a": 0.5}}, {"q": {"a": 1.0}})
    Row = namedtuple("Row", "qid doc score")
    with pytest.raises(TypeError, match="query_id"):
        judgeapp.calc_aggregate([AP], {"q": {"a": 1}}, [Row("q", "a", 1.0)])
    with pytest.raises(ValueError, match="twice"):
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1, 2]})
        judgeapp.calc_aggregate([AP], {"q": {"a": 1}}, frame)


def test_import_judgeapp_stays_light():
    code = (
        "import sys, judgeapp; judgeapp.calc_aggregate(['AP'], {'q': {'a': 1}}, {'q': {'a': 1.0}});"
        "print('PySide6' in sys.modules, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_ranx_objects_are_read():
    ranx = require("ranx")
    qrels, run = synthetic(7)
    expected = judgeapp.calc_aggregate(["AP", "nDCG@10"], qrels, run)
    got = judgeapp.calc_aggregate(["AP", "nDCG@10"], ranx.Qrels(qrels), ranx.Run(run))
    for m, v in expected.items():
        assert got[m] == pytest.approx(v, abs=1e-12)
    assert np.isfinite(list(got.values())).all()


def test_readme_example_runs(tmp_path):
    """The README's "From Python" example, run as a notebook would (a fresh interpreter)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## From Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": root},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0].split()
    # AP of q1 ranked d2 d1 d3 (relevant d1, d3): (1/2 + 2/3) / 2; q2: d5 d4: 1/2
    assert float(first[0]) == pytest.approx(((1 / 2 + 2 / 3) / 2 + 1 / 2) / 2)


@pytest.mark.parametrize("seed", [1, 2])
def test_heavy_ties_rank_as_the_file_reader_does(tmp_path, seed):
    """Scores from a handful of values, judged and unjudged documents tied together: the
    dict path's tie handling equals the engine fed by read_run (trec_eval's order)."""
    from judgeapp.formats import read_run
    from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run, Vocabulary

    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(5):
        docs = [f"doc{i:03d}" for i in range(150)]
        qrels[str(q)] = {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 40)}
        run[str(q)] = {d: float(rng.choice([1, 2, 3])) for d in rng.sample(docs, 120)}
    measures = ["AP", "P@10", "nDCG@20", "RR", "Bpref", "ERR@20", "RBP(rel=1)"]
    path = tmp_path / "run"
    path.write_text(
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items())
    )
    vocab = Vocabulary()
    judgments = Judgments.from_arrays(
        {q: (vocab.ids(list(docs)), list(docs.values())) for q, docs in qrels.items()}
    )
    engine = Evaluator(
        judgments, [Run.from_run_file(read_run(path), vocab)], measures, EvalOptions(complete=True)
    ).evaluate()
    got = judgeapp.calc_aggregate(measures, qrels, run)
    for m in measures:
        assert got[m] == engine.mean(m)[0], m
