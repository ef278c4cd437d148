"""Run fusion against ranx.fuse on two runs, the `fuse` command with weight optimisation,
and a fused run used where runs are used (evaluate, simulate)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from judgeapp.cli import main
from judgeapp.formats import read_run
from judgeapp.formats.interop import run_from_columns
from judgeapp.fusion import Fusion, fuse, normalise, parse_topics
from tests.conftest import require

ranx = require("ranx")

# our name -> ranx's; both norms and methods defined the same way
RANX_METHOD = {
    "combsum": "sum",
    "combmnz": "mnz",
    "combmax": "max",
    "combmin": "min",
    "combanz": "anz",
    "wsum": "wsum",
    "rrf": "rrf",
    "isr": "isr",
    "borda": "bordafuse",
}
RANX_NORM = {"minmax": "min-max", "zscore": "zmuv", "sum": "sum", "rank": "rank", "none": None}


def two_runs(seed: int, ties: bool):
    """Two runs as {qid: {docno: score}} in trec_eval order (score desc, docno desc), the
    insertion order ranx ranks by; overlapping documents. ranx needs the same topics in
    every run (judgeapp fuses a topic only some runs have: test_topic_of_one_run)."""
    rng = random.Random(seed)
    runs = []
    for _ in range(2):
        run = {}
        for q in range(1, 7):
            docs = rng.sample([f"d{i:03d}" for i in range(80)], rng.randint(5, 50))
            pool = [1.0, 2.0, 3.0] if ties else None
            scores = [rng.choice(pool) if pool else rng.uniform(-5, 20) for _ in docs]
            ranked = sorted(zip(scores, docs, strict=True), reverse=True)
            run[str(q)] = {d: s for s, d in ranked}
        runs.append(run)
    return runs


def as_runfile(run: dict, tag: str):
    qids = [q for q, docs in run.items() for _ in docs]
    docs = [d for docs in run.values() for d in docs]
    scores = np.array([s for docs in run.values() for s in docs.values()])
    return run_from_columns(tag, qids, docs, scores, tag)


def ranx_fused(runs, method, norm, params=None):
    fused = ranx.fuse(
        runs=[ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)],
        norm=RANX_NORM[norm],
        method=RANX_METHOD[method],
        params=params or {},
    )
    return fused.to_dict()


def ours(runs, method, norm, **kw):
    fused = fuse(
        [as_runfile(r, f"r{i}") for i, r in enumerate(runs)], Fusion(method, norm, **kw), depth=0
    )
    return {q: dict(zip(t.docnos, t.scores.tolist(), strict=True)) for q, t in fused.topics.items()}


def assert_same(a, b):
    assert a.keys() == b.keys()
    for q in a:
        assert a[q].keys() == b[q].keys(), q
        for d in a[q]:
            assert a[q][d] == pytest.approx(b[q][d], abs=1e-12), (q, d)


@pytest.mark.parametrize("method", ["combsum", "combmnz", "combmax", "combmin", "combanz"])
@pytest.mark.parametrize("norm", ["minmax", "zscore", "sum"])
def test_score_methods_equal_ranx_ties_included(method, norm):
    runs = two_runs(1, ties=True)
    assert_same(ours(runs, method, norm), ranx_fused(runs, method, norm))


@pytest.mark.parametrize("method", ["rrf", "isr", "borda"])
def test_rank_methods_equal_ranx_without_ties(method):
    runs = two_runs(2, ties=False)
    assert_same(ours(runs, method, "none"), ranx_fused(runs, method, "none"))


def test_wsum_and_rank_norm_equal_ranx():
    runs = two_runs(3, ties=False)
    assert_same(
        ours(runs, "wsum", "minmax", weights=(0.3, 0.7)),
        ranx_fused(runs, "wsum", "minmax", {"weights": [0.3, 0.7]}),
    )
    assert_same(ours(runs, "combsum", "rank"), ranx_fused(runs, "combsum", "rank"))
    assert_same(ours(runs, "rrf", "none", k=10), ranx_fused(runs, "rrf", "none", {"k": 10}))


def test_ties_rank_in_trec_eval_order():
    """Where ranx keeps its own order for tied scores, judgeapp ranks as trec_eval: docno
    descending. Two documents tied in one run: the greater docno gets rank 1."""
    run = {"1": {"a": 1.0, "b": 1.0}}
    fused = ours([run], "rrf", "none", k=0)
    assert fused["1"] == {"b": 1.0, "a": 0.5}
    assert normalise(np.array([3.0, 2.0, 1.0]), "rank").tolist() == [1.0, 1 - 1 / 3, 1 - 2 / 3]


def test_topic_of_one_run():
    a = {"1": {"x": 2.0, "y": 1.0}, "2": {"z": 5.0}}
    b = {"1": {"y": 3.0}}
    fused = ours([a, b], "combsum", "none")
    assert fused == {"1": {"y": 4.0, "x": 2.0}, "2": {"z": 5.0}}


def test_parse_topics(tmp_path):
    have = ["301", "302", "350", "401", "abc"]
    assert parse_topics("301-340,abc", have) == ["301", "302", "abc"]
    (tmp_path / "t").write_text("350\n401\n")
    assert parse_topics(f"@{tmp_path / 't'}", have) == ["350", "401"]
    with pytest.raises(ValueError, match="no run topic"):
        parse_topics("999", have)


@pytest.fixture
def robust(shared_data):
    return shared_data / "robust03"


def test_fuse_command_optimises_and_the_result_is_a_run(robust, tmp_path, capsys):
    a, b = robust / "runs" / "input.aplrob03a.gz", robust / "runs" / "input.pircRBa1.gz"
    out = tmp_path / "fused.run"
    qrels = robust / "robust03_qrels.txt"
    args = ["fuse", str(a), str(b), "--method", "wsum", "--out", str(out)]
    assert main([*args, "--optimize-on", str(qrels), "--topics", "303-450", "--step", "0.25"]) == 0
    err = capsys.readouterr().err
    assert "optimised on 50 topics (5 tried): weights" in err
    fused = read_run(out)
    assert len(fused.topics) == 100 and all(len(t.docnos) == 1000 for t in fused.topics.values())
    # the chosen weights are the best of the grid on the training topics
    import judgeapp

    train = {}
    for q, d, g in __import__("judgeapp.formats", fromlist=["read_qrels"]).read_qrels(qrels):
        if 303 <= int(q) <= 450:
            train.setdefault(q, {})[d] = g
    ev = judgeapp.evaluator(["AP"], train)
    runs = [read_run(a), read_run(b)]
    scores = {
        w: ev.calc_aggregate(fuse(runs, Fusion("wsum", "minmax", (w, 1 - w)), depth=1000))["AP"]
        for w in (0.0, 0.25, 0.5, 0.75, 1.0)
    }
    chosen = float(err.split("weights ")[1].split(",")[0])
    assert scores[chosen] == max(scores.values())
    # every tool reads it: evaluate, and simulate's pooling
    assert main(["evaluate", "-m", "map", str(qrels), str(out)]) == 0
    assert capsys.readouterr().out.startswith("map")
    sim = tmp_path / "sim"
    simulate = ["simulate", "--qrels", str(qrels), "--runs", str(out), str(a), "--depth", "5"]
    options = ["--strategy", "blind", "--topics", "601", "602", "--out", str(sim), "--no-bias"]
    assert main([*simulate, *options]) == 0
    assert "blind" in capsys.readouterr().out


def test_fuse_errors(tmp_path, capsys):
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 t\n")
    assert main(["fuse", str(run), str(run), "--weights", "1,2", "--out", str(tmp_path / "o")]) == 2
    assert "go with --method wsum" in capsys.readouterr().err
    assert (
        main(
            ["fuse", str(run), "--method", "wsum", "--weights", "1,2", "--out", str(tmp_path / "o")]
        )
        == 2
    )
    assert "one per run" in capsys.readouterr().err


@pytest.mark.parametrize(
    "method,extra",
    [
        ("wsum", ["--step", "0.25"]),
        ("probfuse", []),
        ("bayesfuse", ["--depth", "500"]),
        ("rrf", ["--ties", "ranx"]),
    ],
)
def test_training_score_is_evaluate_on_the_written_run(robust, tmp_path, capsys, method, extra):
    """The score fuse prints after training is what `evaluate` prints for the written run
    on the training topics' qrels (it was computed before --depth cut the run: 0.1893 printed,
    0.1862 evaluated for wsum here). A fused run whose ties are in ranx's order is evaluated
    in the order written with --ties file."""
    a, b = robust / "runs" / "input.aplrob03a.gz", robust / "runs" / "input.pircRBa1.gz"
    qrels = robust / "robust03_qrels.txt"
    train = tmp_path / "train.qrels"
    train.write_text("".join(line for line in qrels.open() if 601 <= int(line.split()[0]) <= 625))
    out = tmp_path / "fused.run"
    args = ["fuse", str(a), str(b), "--method", method, "--out", str(out), *extra]
    assert main([*args, "--optimize-on", str(qrels), "--topics", "601-625"]) == 0
    printed = capsys.readouterr().err.split("\n")[0].rsplit(" ", 1)[1]
    ties = ["--ties", "file"] if "--ties" in extra else []
    assert main(["evaluate", "-m", "map", *ties, str(train), str(out)]) == 0
    assert capsys.readouterr().out.split()[-1] == printed


def test_fuse_refuses_infinite_scores(tmp_path, capsys):
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 inf t\n1 Q0 b 2 1.0 t\n")
    out = tmp_path / "o"
    assert main(["fuse", str(run), str(run), "--out", str(out)]) == 2
    assert "scores must be finite" in capsys.readouterr().err
    assert not out.exists()


def test_supervised_method_needs_training(tmp_path, capsys):
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 t\n")
    assert (
        main(["fuse", str(run), str(run), "--method", "posfuse", "--out", str(tmp_path / "o")]) == 2
    )
    assert "supervised" in capsys.readouterr().err
    assert main(["fuse", str(run), str(run), "--method", "gmnz", "--out", str(tmp_path / "o")]) == 2
    assert "gamma" in capsys.readouterr().err


def test_fuse_says_how_many_documents_a_topic_it_keeps(tmp_path, capsys):
    """The fused run keeps 1,000 documents a topic unless --depth says otherwise, and says
    so in --help and in what it prints (issue 30, item 11)."""
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("".join(f"1 Q0 d{i} {i} {1200 - i} a\n" for i in range(1, 1201)))
    b.write_text("".join(f"1 Q0 e{i} {i} {1200 - i} b\n" for i in range(1, 6)))
    out = tmp_path / "fused.run"
    assert main(["fuse", str(a), str(b), "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 1000
    assert capsys.readouterr().err.endswith(
        f": 1000 lines in {out}, at most 1,000 documents a topic (--depth; 0 keeps all)\n"
    )
    assert main(["fuse", str(a), str(b), "--depth", "0", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 1205
    assert "every document of each topic (--depth 0)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fuse", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "keeps the best 1,000 documents of each topic unless --depth says otherwise" in text
    assert "(default 1,000, as TREC runs; 0: every document the runs retrieve)" in text
