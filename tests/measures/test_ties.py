"""The tie rules of other tools, reproduced by `--ties` / ``ties=``, checked per topic
against those tools themselves on rutcor03100 (about 100k tied scores): ranx (``ranx``),
ir_measures' cwl_eval provider (``file``), its judged provider (``docno``), pytrec_eval
(``trec_eval``)."""

from __future__ import annotations

import numpy as np
import pytest

import judgeapp
from judgeapp.cli import main
from tests.conftest import require


@pytest.fixture(scope="module")
def tied(shared_data):
    robust = shared_data / "robust03"
    return robust / "robust03_qrels.txt", robust / "runs" / "input.rutcor03100.gz"


def _ours(qrels, run, measure, ties):
    return {
        m.query_id: m.value for m in judgeapp.iter_calc([measure], str(qrels), str(run), ties=ties)
    }


def test_small_example_each_rule():
    qrels = {"1": {"a": 1, "b": 0, "c": 0}}
    run = {"1": {"b": 2.0, "c": 1.0, "a": 1.0}}  # a and c tied, c named first
    rr = {
        t: judgeapp.calc_aggregate(["RR"], qrels, run, ties=t)["RR"]
        for t in ("trec_eval", "docno", "file", "ranx")
    }
    # trec_eval: c before a (docno descending); docno: a before c; file: c first; ranx: a
    # run this short is insertion-sorted, which is stable: c first
    assert rr == {"trec_eval": 1 / 3, "docno": 0.5, "file": 1 / 3, "ranx": 1 / 3}
    with pytest.raises(ValueError, match="unknown tie order"):
        judgeapp.evaluator(["RR"], qrels, ties="random")


def test_ranx_rule_equals_ranx(tied):
    ranx = require("ranx")
    qrels, run = tied
    rq = ranx.Qrels.from_file(str(qrels), kind="trec")
    rr = ranx.Run.from_file(str(run))
    for ours_m, theirs_m in (("AP", "map"), ("P@10", "precision@10"), ("RR", "mrr")):
        ranx.evaluate(rq, rr, theirs_m)
        theirs = rr.scores[theirs_m]
        ours = _ours(qrels, run, ours_m, "ranx")
        common = set(theirs) & set(ours)
        assert len(common) == 100
        assert all(ours[q] == pytest.approx(theirs[q], abs=1e-12) for q in common), ours_m
    # and trec_eval's rule differs there: the point of the option
    assert _ours(qrels, run, "AP", "trec_eval") != _ours(qrels, run, "AP", "ranx")


def test_file_rule_equals_ir_measures_cwl_provider(tied):
    irm = require("ir_measures")
    qrels, run = tied
    want = {
        m.query_id: m.value
        for m in irm.cwl_eval.iter_calc(
            [irm.RBP(rel=1)], irm.read_trec_qrels(str(qrels)), irm.read_trec_run(str(run))
        )
    }
    got = _ours(qrels, run, "RBP(rel=1)", "file")
    assert set(want) <= set(got)
    assert max(abs(got[q] - want[q]) for q in want) < 1e-12
    default = _ours(qrels, run, "RBP(rel=1)", "trec_eval")
    assert max(abs(default[q] - want[q]) for q in want) > 1e-3


def test_docno_rule_equals_ir_measures_judged_provider(tied):
    irm = require("ir_measures")
    qrels, run = tied
    want = {
        m.query_id: m.value
        for m in irm.judged.iter_calc(
            [irm.Judged @ 10], irm.read_trec_qrels(str(qrels)), irm.read_trec_run(str(run))
        )
    }
    got = _ours(qrels, run, "Judged@10", "docno")
    assert max(abs(got[q] - want[q]) for q in want) < 1e-12


def test_evaluate_command_ties(tied, capsys):
    pytrec_eval = require("pytrec_eval")
    qrels, run = tied
    assert main(["evaluate", "-m", "map", "-q", "--ties", "trec_eval", str(qrels), str(run)]) == 0
    default = capsys.readouterr().out
    assert main(["evaluate", "-m", "map", "-q", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == default
    assert main(["evaluate", "-m", "map", "-q", "--ties", "ranx", str(qrels), str(run)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    ours = {q: float(v) for _, q, v in lines if q != "all"}
    ranx_rule = _ours(qrels, run, "AP", "ranx")
    assert all(abs(ours[q] - round(ranx_rule[q], 4)) < 1e-9 for q in ours)
    # the default is pytrec_eval's (trec_eval 9 and 10 agree on AP)
    from judgeapp.formats import read_qrels, read_run

    q_dict: dict = {}
    for q, d, g in read_qrels(qrels):
        q_dict.setdefault(q, {})[d] = g
    r = read_run(run)
    r_dict = {q: dict(zip(t.docnos, t.scores.tolist(), strict=True)) for q, t in r.topics.items()}
    pte = pytrec_eval.RelevanceEvaluator(q_dict, {"map"}).evaluate(r_dict)
    mine = _ours(qrels, run, "AP", "trec_eval")
    assert np.allclose([mine[q] for q in pte], [pte[q]["map"] for q in pte], atol=1e-12)
    assert main(["evaluate", "--db", "x.db", "--ties", "ranx"]) == 2
