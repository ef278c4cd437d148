"""Diversity measures against ndeval (pyndeval, as ir_measures calls it), per topic.

Generated subtopic judgments (tests/measures/diversity_data.py says how; no diversity
qrels are at hand) on generated runs and on one real Robust 2003 run (all 17: benchmarks/parity_measures.py). pyndeval accepts
cutoffs up to 20, and ir_measures' judged_only path for it fails (it reads a generator as
a dict), so judged_only is checked as the reference on the run filtered to judged
documents."""

from __future__ import annotations

import random

import pytest

import judgeapp
from judgeapp.cli import main
from tests.conftest import require
from tests.measures import diversity_data

ir_measures = require("ir_measures")
require("pyndeval")

MEASURES = [
    "alpha_nDCG@5",
    "alpha_nDCG@20",
    "alpha_DCG@10",
    "alpha_nDCG(alpha=0.8)@10",
    "alpha_nDCG(rel=2)@10",
    "ERR_IA@5",
    "ERR_IA@20",
    "nERR_IA@10",
    "NRBP",
    "nNRBP",
    "NRBP(alpha=0.3,beta=0.8)",
    "AP_IA",
    "P_IA@3",
    "P_IA@10",
    "StRecall@10",
    "StRecall@20",
]


def references(rows, run, measures):
    """{measure: {qid: value}}: the measures with default parameters in one call of the
    provider, each other one alone (ndeval keeps alpha and beta in globals, so evaluators
    built together with different values share the last ones)."""
    qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in rows]
    provider = ir_measures.providers.registry["pyndeval"]
    plain = [m for m in measures if "(" not in m]
    groups = [plain] + [[m] for m in measures if "(" in m]
    out: dict[str, dict[str, float]] = {m: {} for m in measures}
    for group in groups:
        parsed = {ir_measures.parse_measure(m): m for m in group}
        for x in provider.iter_calc(list(parsed), qrels, run):
            if x.query_id in run:
                out[parsed[x.measure]][x.query_id] = x.value
    return out


def reference(rows, run, measure):
    return references(rows, run, [measure])[measure]


def ours(rows, run, measure):
    return {
        m.query_id: m.value
        for m in judgeapp.iter_calc([measure], diversity_data.nested(rows), run, topics="run")
    }


def generated(seed):
    rng = random.Random(seed)
    base, run = [], {}
    for q in range(1, 10):
        docs = [f"d{i:03d}" for i in range(60)]
        base.extend((str(q), d, rng.choice([0, 0, 1, 2])) for d in rng.sample(docs, 40))
        ranked = rng.sample(docs, rng.randint(3, 50))
        run[str(q)] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return diversity_data.subtopic_rows(base, seed), run


def assert_equal(rows, run, measures):
    refs = references(rows, run, measures)
    for measure in measures:
        ref = refs[measure]
        got = ours(rows, run, measure)
        assert ref
        worst = max(abs(got[q] - v) for q, v in ref.items())
        assert worst <= 1e-12, (measure, worst)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_equal_ndeval(seed):
    rows, run = generated(seed)
    assert_equal(rows, run, MEASURES)


def test_judged_only_is_ndeval_on_the_judged_documents():
    rows, run = generated(4)
    judged = {(q, d) for q, _s, d, _g in rows}
    kept = {q: {d: s for d, s in docs.items() if (q, d) in judged} for q, docs in run.items()}
    for measure in ("alpha_nDCG@10", "ERR_IA@5", "AP_IA", "nERR_IA@20"):
        ref = reference(rows, kept, measure)
        flagged = (
            measure.replace("@", "(judged_only=True)@")
            if "@" in measure
            else measure + "(judged_only=True)"
        )
        got = ours(rows, run, flagged)
        assert max(abs(got[q] - v) for q, v in ref.items()) <= 1e-12


def test_plain_qrels_are_one_subtopic():
    """Without subtopics every topic has one (ir_measures does the same, with a warning)."""
    qrels = {"1": {"a": 1, "b": 1, "c": 0}}
    run = {"1": {"a": 3.0, "c": 2.0, "b": 1.0}}
    rows = [("1", "0", d, g) for d, g in qrels["1"].items()]
    for measure in ("alpha_nDCG@3", "P_IA@2", "StRecall@1"):
        assert judgeapp.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(
            reference(rows, run, measure)["1"], abs=1e-12
        )


def test_cli_reads_web_track_diversity_qrels(tmp_path, capsys):
    rows, run = generated(5)
    qrels_path = tmp_path / "qrels.diversity"
    diversity_data.write(rows, qrels_path)
    run_path = tmp_path / "run"
    run_path.write_text(
        "".join(f"{q} Q0 {d} 0 {s} div\n" for q, docs in run.items() for d, s in docs.items())
    )
    assert (
        main(
            [
                "evaluate",
                "--subtopics",
                "-m",
                "alpha_nDCG@20",
                "-m",
                "ERR_IA@20",
                "-c",
                str(qrels_path),
                str(run_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    expected = {
        m: sum(reference(rows, run, m).values()) / 9 for m in ("alpha_nDCG@20", "ERR_IA@20")
    }
    assert out == [f"{m:<22}\tall\t{v:6.4f}" for m, v in expected.items()]


@pytest.mark.slow
def test_robust03_runs_equal_ndeval(shared_data):
    from judgeapp.formats import read_qrels, read_run

    base = shared_data / "robust03"
    rows = diversity_data.subtopic_rows(read_qrels(base / "robust03_qrels.txt"))
    qids = {q for q, *_ in rows}
    for path in sorted((base / "runs").glob("input.*.gz"))[1:2]:  # one; the 17: parity script
        rf = read_run(path)
        run = {
            q: {d: float(len(t.docnos) - i) for i, d in enumerate(t.docnos)}
            for q, t in rf.topics.items()
            if q in qids
        }
        assert_equal(rows, run, MEASURES[:2] + MEASURES[5:9] + MEASURES[11:])
