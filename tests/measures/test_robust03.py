"""Per-topic equality (4 decimals, i.e. the printed lines) with trec_eval 10.0 and 9.0.4 on
the 17 Robust 2003 runs (`-q -m all_trec`), ties included: rutcor03100 has about 100k tied
scores, and 9.x keeps scores as C floats, so its ties differ from 10.0's."""

from __future__ import annotations

import gzip

import pytest

from judgeapp.formats import read_qrels, read_run
from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run, Vocabulary, format_trec
from judgeapp.measures.parse import parse_measures

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def robust(shared_data):
    base = shared_data / "robust03"
    paths = sorted((base / "runs").glob("input.*.gz"))
    assert len(paths) == 17
    return base, read_qrels(base / "robust03_qrels.txt"), [(p, read_run(p)) for p in paths]


@pytest.mark.parametrize(
    ("version", "folder"), [(10, "robust03_trec_eval_v10"), (9, "robust03_trec_eval_9.0.4")]
)
def test_every_line_equals_trec_eval(robust, version, folder):
    base, qrels, runs = robust
    vocab = Vocabulary()
    judgments = Judgments.from_qrels(qrels, vocab)
    engine_runs = [Run.from_run_file(rf, vocab, float32_scores=version < 10) for _, rf in runs]
    results = Evaluator(
        judgments, engine_runs, parse_measures(["all_trec"], version), EvalOptions(version=version)
    ).evaluate()
    compared = equal = 0
    mismatches = []
    for r, (path, _) in enumerate(runs):
        name = path.name.removeprefix("input.").removesuffix(".gz")
        expected_file = base / "trec_eval-outputs" / folder / f"{name}.all_trec.q.txt.gz"
        expected = gzip.open(expected_file, "rt").read().splitlines()
        got = format_trec(results, per_topic=True, runs=[r]).splitlines()
        assert len(got) == len(expected), name
        compared += len(expected)
        for a, b in zip(got, expected, strict=True):
            if a == b:
                equal += 1
            elif len(mismatches) < 5:
                mismatches.append((name, a, b))
    print(f"\ntrec_eval {version}: {compared} lines compared, {equal} equal")
    assert not mismatches
    assert equal == compared


def test_ties_decide_rutcor_map(robust):
    """The documented tie effect: rutcor03100's MAP is 0.0737 with trec_eval's docno tie
    rule (what trec_eval prints), 0.0582 when ties keep the file's order."""
    _base, qrels, runs = robust
    vocab = Vocabulary()
    judgments = Judgments.from_qrels(qrels, vocab)
    rf = dict((p.name, rf) for p, rf in runs)["input.rutcor03100.gz"]
    tie_rule = Run.from_run_file(rf, vocab)
    by_line = Run(
        "file order",
        {qid: vocab.ids([t.docnos[i] for i in _file_order(t)]) for qid, t in rf.topics.items()},
    )
    results = Evaluator(judgments, [tie_rule, by_line], ["map"]).evaluate()
    assert f"{results.mean('map')[0]:.4f}" == "0.0737"
    assert f"{results.mean('map')[1]:.4f}" == "0.0582"


def _file_order(topic):
    """Score descending, ties in the order of the file's lines."""
    import numpy as np

    return np.lexsort((topic.lines, -topic.scores))
