"""Sakai's condensed-list measures (AP', nDCG'@k, P'@k): unjudged documents removed from each
ranking first, which is trec_eval -J applied to that measure alone."""

from __future__ import annotations

import pytest
import pytrec_eval

from judgeapp.cli import main
from judgeapp.measures import (
    EvalOptions,
    Evaluator,
    Judgments,
    MeasureError,
    Run,
    parse_measure,
)


def lines(capsys, *args: str) -> dict[tuple[str, str], str]:
    """(qid, measure name) -> value of `evaluate -q ...` (the runid line left out)."""
    assert main(["evaluate", "-q", *args]) == 0
    out = {}
    for line in capsys.readouterr().out.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        if name != "runid":
            out[qid, name] = value
    return out


CASES = [
    ("test/qrels.test", "test/results.test", ()),
    ("test/qrels.rel_level", "test/results.test", ("-l", "2")),
    ("test/qrels.comment.test", "test/results.comment.test", ()),
]
PAIRS = [("AP'", "map"), ("nDCG'@10", "ndcg_cut.10"), ("P'@10", "P.10"), ("nDCG'", "ndcg")]


@pytest.mark.parametrize(("qrels", "run", "options"), CASES)
def test_condensed_measures_are_minus_j_on_trec_evals_test_files(
    shared_data, monkeypatch, capsys, qrels, run, options
):
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    plain = lines(capsys, *options, *(a for _, t in PAIRS for a in ("-m", t)), qrels, run)
    changed = []
    for condensed, trec in PAIRS:
        with_j = lines(capsys, "-J", *options, "-m", trec, qrels, run)
        primed = lines(capsys, *options, "-m", condensed, qrels, run)
        # printed under the name asked for, with -J's values, topic by topic and on `all`
        assert {q for q, _ in primed} == {q for q, _ in with_j}
        assert {n for _, n in primed} == {condensed}
        assert {q: v for (q, _), v in primed.items()} == {q: v for (q, _), v in with_j.items()}
        changed.append(primed[("all", condensed)] != plain[("all", plain_name(trec))])
    # each run leaves retrieved documents unjudged (in qrels.test only below rank 10):
    # AP' is not AP
    assert changed[0]
    if qrels == "test/qrels.test":
        assert changed == [True, False, False, True]


def plain_name(trec: str) -> str:
    return {"map": "map", "ndcg_cut.10": "ndcg_cut_10", "P.10": "P_10", "ndcg": "ndcg"}[trec]


def test_ap_prime_is_pytrec_evals_judged_docs_only_map(shared_data):
    from judgeapp.formats import read_qrels, read_run
    from judgeapp.measures import Vocabulary

    folder = shared_data / "trec_eval-10.0" / "test"
    qrels_file, run_file = read_qrels(folder / "qrels.test"), read_run(folder / "results.test")
    vocab = Vocabulary()
    judgments = Judgments.from_qrels(qrels_file, vocab)
    run = Run.from_run_file(run_file, vocab)
    results = Evaluator(judgments, [run], ["AP'"], EvalOptions()).evaluate()
    qrels = {
        q: {vocab.docno(int(d)): int(g) for d, g in zip(t.docids, t.grades, strict=True)}
        for q, t in judgments.topics.items()
    }
    ranked = {
        q: {d: float(s) for d, s in zip(t.docnos, t.scores, strict=True)}
        for q, t in run_file.topics.items()
    }
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, judged_docs_only_flag=True)
    expected = oracle.evaluate(ranked)
    for qid in results.qids:
        assert results.value("AP'", run.name, qid) == pytest.approx(expected[qid]["map"], abs=1e-12)


def test_hand_made_example(tmp_path, capsys):
    # ranking d1 (relevant), d2 (unjudged), d3 (not relevant), d4 (relevant), d5 (unjudged)
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d3 0\n1 0 d4 1\n")
    (tmp_path / "r").write_text("".join(f"1 Q0 d{i} {i} {10 - i} tag\n" for i in range(1, 6)))
    args = ["-m", "AP'", "-m", "AP", "-m", "P'@2", "-m", "P@2", "-m", "nDCG'", str(tmp_path / "q")]
    got = lines(capsys, *args, str(tmp_path / "r"))
    # condensed: d1, d3, d4 -> AP' (1 + 2/3) / 2; plain: (1 + 2/4) / 2
    assert got["all", "AP'"] == f"{(1 + 2 / 3) / 2:.4f}"
    assert got["all", "AP"] == f"{(1 + 2 / 4) / 2:.4f}"
    assert got["all", "P'@2"] == "0.5000"  # d1, d3
    assert got["all", "P@2"] == "0.5000"  # d1, d2
    # nDCG': gains 1, 0, 1 at ranks 1-3 against the ideal 1, 1
    import math

    ideal = 1 + 1 / math.log2(3)
    assert got["all", "nDCG'"] == f"{(1 + 1 / math.log2(4)) / ideal:.4f}"
    # the same as -J -m map
    assert (
        lines(capsys, "-J", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r"))["all", "map"]
        == got["all", "AP'"]
    )


def test_condensed_names_parse_to_the_minus_j_measures():
    assert parse_measure("AP'") == parse_measure("AP(judged_only=True)")
    assert parse_measure("nDCG'@10") == parse_measure("nDCG(judged_only=True)@10")
    assert parse_measure("P'@5") == parse_measure("P(judged_only=True)@5")
    assert parse_measure("AP'").name == "AP'" and parse_measure("P'@5").name == "P'@5"
    assert parse_measure("AP'(rel=2)") == parse_measure("AP(rel=2,judged_only=True)")


@pytest.mark.parametrize("text", ["MAP'", "NumQ'", "XYZ'", "AP'(judged_only=False)"])
def test_what_has_no_condensed_form_is_refused(text):
    with pytest.raises(MeasureError):
        parse_measure(text)
