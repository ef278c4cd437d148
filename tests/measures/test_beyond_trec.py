"""Measures ir_measures has and trec_eval lacks, per topic against the implementation
ir_measures calls for each: cwl_eval (RBP(rel=), INST, INSQ, NERR8-11, BPM, SDCG), gdeval
(ERR@k, run from a copy printing full precision instead of 5 decimals), the compat and
accuracy providers, ranx (hits). Runs are handed to the references with scores that encode
trec_eval's order (score = list length - rank), so every implementation sees the same
ranking, ties included."""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

import judgeapp
from tests.conftest import require
from tests.measures import references
from tests.measures.references import ours

ir_measures = require("ir_measures")

CWL = [
    "RBP(rel=1)",
    "RBP(p=0.9,rel=2)",
    "INST(max_rel=2)",
    "INST(T=2.0,max_rel=2)",
    "INSQ(max_rel=2)",
    "NERR8(max_rel=2)@10",
    "NERR9(max_rel=2)@10",
    "NERR10(max_rel=2)",
    "NERR11(max_rel=2)",
    "BPM(max_rel=2)@10",
    "BPM(T=2.0,max_rel=2)@20",
    "SDCG(max_rel=2)@10",
]
COMPAT = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)"]
ACCURACY = ["Accuracy", "Accuracy@10", "Accuracy(rel=2)"]


def in_trec_order(run: dict) -> dict:
    """The run with scores n - rank of its trec_eval order (score desc, docno desc)."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        out[q] = {d: float(len(ranked) - i) for i, (d, _) in enumerate(ranked)}
    return out


def reference(provider: str, measure: str, qrels, run) -> dict[str, float]:
    return references.reference(provider, measure, qrels, run)[0]


def gdeval_err(tmp_path, qrels, run, k: int) -> dict[str, float]:
    if shutil.which("perl") is None:
        pytest.skip("gdeval needs perl")
    return references.gdeval_err(tmp_path, qrels, run, k)


def synthetic(seed: int):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(1, 13):
        docs = [f"d{i:03d}" for i in range(150)]
        qrels[str(q)] = {d: rng.choice([0, 0, 0, 0, 1, 1, 2]) for d in rng.sample(docs, 80)}
        if q == 7:
            qrels[str(q)] = {d: 0 for d in docs[:20]}  # no relevant document
        ranked = rng.sample(docs, rng.randint(5, 120))
        run[str(q)] = {d: float(rng.choice([1, 2, 3, 4, rng.random()])) for d in ranked}
    return qrels, in_trec_order(run)


def check(provider, measures, qrels, run, tol=1e-12):
    for measure in measures:
        ref = reference(provider, measure, qrels, run)
        got = ours(measure, qrels, run)
        assert ref, measure
        worst = max(abs(got[q] - v) for q, v in ref.items())
        assert worst <= tol, (measure, worst)


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_cases_equal_references(tmp_path, seed):
    qrels, run = synthetic(seed)
    check("cwl_eval", CWL, qrels, run)
    check("compat", COMPAT, qrels, run)
    check("accuracy", ACCURACY, qrels, run)
    for k in (5, 20):
        ref = gdeval_err(tmp_path, qrels, run, k)
        got = ours(f"ERR@{k}", qrels, run)
        assert max(abs(got[q] - v) for q, v in ref.items()) <= 1e-12


def test_hits_equal_ranx_and_numrelret_sums():
    ranx = require("ranx")
    qrels, run = synthetic(3)
    for k in (5, 10, 100):
        ref = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), f"hits@{k}", return_mean=False)
        by_q = dict(zip(sorted(run), np.asarray(ref).tolist(), strict=True))
        got = ours(f"Hits@{k}", qrels, run)
        assert got == pytest.approx(by_q, abs=0)
        total = judgeapp.calc_aggregate([f"NumRelRet@{k}"], qrels, run, topics="run")
        assert total[f"NumRelRet@{k}"] == sum(by_q.values())


def test_rbp_is_trec_eval_rbp_under_ir_measures_name():
    """RBP(p=x) is trec_eval's rbp.p=x (its trec_eval suite is checked elsewhere), with
    ir_measures' default persistence 0.8; resid=True is rbp_resid."""
    qrels, run = synthetic(4)
    for p in (0.5, 0.8, 0.95):
        a = judgeapp.calc_aggregate([f"RBP(p={p})", f"rbp.p={p}"], qrels, run, topics="run")
        first, second = a.values()
        assert first == second
        r = judgeapp.calc_aggregate(
            [f"RBP(p={p},resid=True)", f"rbp_resid.p={p}"], qrels, run, topics="run"
        )
        first, second = r.values()
        assert first == second
    assert (
        judgeapp.calc_aggregate(["RBP"], qrels, run)["RBP"]
        == judgeapp.calc_aggregate(["rbp.p=0.8"], qrels, run)["rbp.p=0.8"]
    )


@pytest.fixture(scope="module")
def robust(shared_data):
    from judgeapp.formats import read_qrels, read_run

    base = shared_data / "robust03"
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in read_qrels(base / "robust03_qrels.txt"):
        qrels.setdefault(q, {})[d] = g
    runs = []
    for path in sorted((base / "runs").glob("input.*.gz"))[::8][:1]:  # one; the 17: parity script
        rf = read_run(path)
        runs.append(
            {
                q: {d: float(len(t.docnos) - i) for i, d in enumerate(t.docnos)}
                for q, t in rf.topics.items()
                if q in qrels
            }
        )
    return qrels, runs


@pytest.mark.slow
def test_robust03_equal_references(robust, tmp_path):
    qrels, runs = robust
    for run in runs:
        check("cwl_eval", CWL[:4] + CWL[5:7] + CWL[9:], qrels, run)
        check("compat", COMPAT[:1], qrels, run)
        check("accuracy", ACCURACY[:2], qrels, run)
        ref = gdeval_err(tmp_path, qrels, run, 20)
        got = ours("ERR@20", qrels, run)
        assert max(abs(got[q] - v) for q, v in ref.items()) <= 1e-12
