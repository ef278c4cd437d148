"""ir_measures' own documented examples (its README and docs: reading files, calc_aggregate,
iter_calc, evaluator, parse_measure, dicts, DataFrames, namedtuples), run twice with only
the import swapped: once as ``ir_measures``, once as ``judgeapp``. Same keys, same values."""

from __future__ import annotations

import math

import pytest

import judgeapp
from tests.conftest import require

ir_measures = require("ir_measures")
pd = require("pandas")

EXAMPLES = {
    "files": """
qrels = lib.read_trec_qrels(QRELS)
run = lib.read_trec_run(RUN)
out = lib.calc_aggregate([lib.nDCG@10, lib.P@5, lib.P(rel=2)@5, lib.Judged@10, lib.AP], qrels, run)
""",
    "iter_calc": """
qrels = list(lib.read_trec_qrels(QRELS))
run = list(lib.read_trec_run(RUN))
out = [(m.query_id, m.measure, m.value) for m in lib.iter_calc([lib.P@5, lib.nDCG@10], qrels, run)]
""",
    "evaluator": """
qrels = list(lib.read_trec_qrels(QRELS))
evaluator = lib.evaluator([lib.nDCG@10, lib.P@5, lib.MAP, lib.MRR], qrels)
out = evaluator.calc_aggregate(list(lib.read_trec_run(RUN)))
""",
    "dicts": """
qrels = {'Q0': {"D0": 0, "D1": 1}, "Q1": {"D0": 0, "D3": 2}}
run = {'Q0': {"D0": 1.2, "D1": 1.0}, "Q1": {"D0": 2.4, "D3": 3.6}}
out = lib.calc_aggregate([lib.nDCG@10, lib.P@5, lib.AP, lib.RR], qrels, run)
""",
    "namedtuples": """
qrels = [lib.Qrel("Q0", "D0", 0), lib.Qrel("Q0", "D1", 1), lib.Qrel("Q1", "D0", 0),
         lib.Qrel("Q1", "D3", 2)]
run = [lib.ScoredDoc("Q0", "D0", 1.2), lib.ScoredDoc("Q0", "D1", 1.0),
       lib.ScoredDoc("Q1", "D0", 2.4), lib.ScoredDoc("Q1", "D3", 3.6)]
out = lib.calc_aggregate([lib.nDCG@10, lib.P@5, lib.AP], qrels, run)
""",
    "dataframes": """
qrels = pd.DataFrame([{'query_id': "Q0", 'doc_id': "D0", 'relevance': 0},
                      {'query_id': "Q0", 'doc_id': "D1", 'relevance': 1},
                      {'query_id': "Q1", 'doc_id': "D0", 'relevance': 0},
                      {'query_id': "Q1", 'doc_id': "D3", 'relevance': 2}])
run = pd.DataFrame([{'query_id': "Q0", 'doc_id': "D0", 'score': 1.2},
                    {'query_id': "Q0", 'doc_id': "D1", 'score': 1.0},
                    {'query_id': "Q1", 'doc_id': "D0", 'score': 2.4},
                    {'query_id': "Q1", 'doc_id': "D3", 'score': 3.6}])
out = lib.calc_aggregate([lib.nDCG@10, lib.P@5, lib.AP], qrels, run)
""",
    "parse": """
out = [lib.parse_measure('AP@100'), lib.parse_measure('nDCG@10'), *lib.parse_trec_measure('P.10,20'),
       *lib.parse_trec_measure('ndcg_cut.5')]
""",
    "define_byquery": """
def p_at_1(qrels, run):
    relevant = set(qrels[qrels.relevance > 0].doc_id)
    return float(run.head(1).doc_id.isin(relevant).mean())
P1 = lib.define_byquery(p_at_1, name='P1')
qrels = list(lib.read_trec_qrels(QRELS))
run = list(lib.read_trec_run(RUN))
out = lib.calc_aggregate([P1, lib.P@1], qrels, run)
""",
    "define": """
def depth(qrels, run):
    for qid, part in run.groupby('query_id'):
        yield qid, float(len(part))
Depth = lib.define(depth, name='Depth')
out = lib.calc_aggregate([Depth, Depth@10], list(lib.read_trec_qrels(QRELS)),
                         list(lib.read_trec_run(RUN)))
""",
    "provider": """
qrels = list(lib.read_trec_qrels(QRELS))
run = [lib.ScoredDoc(d.query_id, d.doc_id, round(d.score, 0)) for d in lib.read_trec_run(RUN)]
out = {**lib.cwl_eval.calc_aggregate([lib.RBP(rel=1)], qrels, run),
       **lib.judged.calc_aggregate([lib.Judged@10], qrels, run)}
""",
    "aliases": """
out = [lib.MAP, lib.MRR, lib.NDCG@10, lib.BPref, lib.RPrec, lib.Precision@5, lib.Recall@100,
       lib.SetRelP, lib.α_nDCG@20, lib.MAP_IA]
""",
}


def _run(example: str, lib, suite):
    space = {
        "lib": lib,
        "pd": pd,
        "QRELS": str(suite / "test" / "qrels.test"),
        "RUN": str(suite / "test" / "results.test"),
    }
    exec(EXAMPLES[example], space)
    return space["out"]


def _same(a, b):
    if isinstance(a, dict):
        assert {str(k) for k in a} == {str(k) for k in b}
        by_text = {str(k): v for k, v in b.items()}
        for k in a:
            assert math.isclose(a[k], by_text[str(k)], rel_tol=1e-12, abs_tol=1e-15), k
            if type(k).__module__.startswith("ir_measures.measures."):
                assert b[k] == a[k]  # results of ir_measures' objects are found by them
        return
    if isinstance(a, list) and a and isinstance(a[0], tuple):
        assert len(a) == len(b)
        for x, y in zip(sorted(a, key=str), sorted(b, key=str), strict=True):
            assert (x[0], str(x[1])) == (y[0], str(y[1]))
            assert math.isclose(x[2], y[2], rel_tol=1e-12, abs_tol=1e-15)
        return
    assert [str(x) for x in a] == [str(x) for x in b]
    assert all(y == x for x, y in zip(a, b, strict=True))  # judgeapp's equal ir_measures'


@pytest.fixture
def suite(shared_data):
    return shared_data / "trec_eval-10.0"


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_example_gives_the_same_with_judgeapp(example, suite):
    _same(_run(example, ir_measures, suite), _run(example, judgeapp, suite))


def test_measure_objects_of_ir_measures_are_accepted_and_returned(suite):
    qrels = list(judgeapp.read_trec_qrels(suite / "test" / "qrels.test"))
    run = list(judgeapp.read_trec_run(suite / "test" / "results.test"))
    wanted = [ir_measures.AP, ir_measures.nDCG @ 10]
    agg = judgeapp.calc_aggregate(wanted, qrels, run)
    assert all(any(k is w for k in agg) for w in wanted)
    metric = next(iter(judgeapp.iter_calc([ir_measures.P @ 5], qrels, run)))
    assert metric.measure is not None and metric.measure == ir_measures.P @ 5
    # judgeapp's own measures equal ir_measures' too
    assert judgeapp.AP == ir_measures.AP and judgeapp.nDCG @ 10 == ir_measures.nDCG @ 10


def test_every_public_name_is_there_or_listed():
    """Each of ir_measures' public names is in judgeapp, or in docs/interop.md's table of
    those that do not apply (with the reason)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "interop.md").read_text()
    table = doc.split("<!-- not-applicable -->")[1].split("<!-- /not-applicable -->")[0]
    listed = set(
        re.findall(
            r"`([^`]+)`",
            "".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| `")),
        )
    )
    public = {n for n in dir(ir_measures) if not n.startswith("_")}
    missing = {n for n in public if not hasattr(judgeapp, n)}
    assert missing == listed & public, (missing - listed, listed & public - missing)
