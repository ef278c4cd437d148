"""Every ranx fusion method and normalisation against ranx itself, on Robust 2003 runs:
the unsupervised ones on runs without ties (judgeapp's default tie order) and on runs with
ties (``ties="ranx"``); the supervised ones trained on the same topics; ranx's own tie
order against numba's sort. ranx is the reference here; judgeapp never calls it."""

from __future__ import annotations

import copy
import functools
import itertools
import random

import numpy as np
import pytest

from judgeapp.formats.interop import read_run_any
from judgeapp.formats.ties import ranx_argsort, reorder
from judgeapp.fusion import RANK_METHODS, SCORE_METHODS, Fusion, fuse, fuse_prepared, prepared
from judgeapp.fusion_train import (
    by_fixed_segment,
    by_place,
    by_segment,
    hit_lists,
    log_odds,
    one_run,
)
from tests.conftest import require

ranx = require("ranx")
numba = require("numba")

PARAMS = {
    "gmnz": {"gamma": 0.5},
    "logn_isr": {"sigma": 0.3},
    "rbc": {"phi": 0.8},
    **{m: {"weights": (0.3, 0.7)} for m in ("wsum", "mixed", "wmnz", "w_bordafuse")},
}
RANX_NORM = {"minmax": "min-max", "max": "max", "sum": "sum", "zmuv": "zmuv", "rank": "rank"}
TOP = 20
# condorcet is checked apart (below): where majorities form cycles, ranx's result depends on
# the order of a Python set, which changes from one process to the next
UNSUPERVISED = [m for m in (*SCORE_METHODS, *RANK_METHODS) if "condorcet" not in m]


@pytest.fixture(scope="module")
def robust(shared_data):
    return shared_data / "robust03"


TOPICS = 20  # topics of each run fused (ranx is slow to start; the first 20 qids suffice)


@functools.lru_cache(maxsize=4)
def _read(robust, names):
    """The runs' lines of their first TOPICS topics, in file order, read by both."""
    import gzip
    import tempfile

    runs, rruns = [], []
    for n in names:
        with gzip.open(robust / "runs" / f"input.{n}.gz", "rt") as fh:
            lines = fh.readlines()
        keep = sorted({line.split()[0] for line in lines})[:TOPICS]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as out:
            out.writelines(line for line in lines if line.split()[0] in keep)
        runs.append(read_run_any(out.name))
        rruns.append(ranx.Run.from_file(out.name))
    return runs, rruns


def _pair(robust, names):
    """(judgeapp's runs, ranx's), read once per module."""
    runs, rruns = _read(robust, tuple(names))
    return [copy.copy(r) for r in runs], rruns


def _ranx_fused(rruns, method, norm, params):
    p = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
    return ranx.fuse(rruns, norm=RANX_NORM.get(norm), method=method, params=p)


def _assert_top(ours, theirs, top=TOP):
    """The first ``top`` documents of every topic, and their fused scores, equal."""
    assert set(ours.topics) == set(theirs.keys())
    for q in theirs.keys():
        want = list(theirs[q].items())[:top]
        t = ours.topics[q]
        got = list(zip(t.docnos[:top], t.scores[:top].tolist(), strict=True))
        assert [d for d, _ in got] == [d for d, _ in want], q
        assert np.allclose([s for _, s in got], [s for _, s in want], rtol=1e-12, atol=1e-12), q


def test_ranx_argsort_is_numbas_quicksort():
    """The tie order ranx leaves: numba's (unstable) quicksort argsort, permutation for
    permutation, on arrays full of equal keys and of every size around the switch to
    insertion sort."""

    @numba.njit
    def numba_argsort(a):
        return np.argsort(a)

    rng = random.Random(7)
    for n in [*range(1, 40), 100, 257, 1000]:
        for distinct in (1, 2, 5, 1000):
            a = np.array([float(rng.randrange(distinct)) for _ in range(n)])
            assert ranx_argsort(a.tolist()) == numba_argsort(a).tolist(), (n, distinct)


def test_ranx_tie_order_of_a_real_run(robust):
    """rutcor03100 has ~100k tied entries: judgeapp's ``ranx`` order equals the order of
    ranx.Run.from_file topic by topic; trec_eval's order differs on most topics."""
    path = robust / "runs" / "input.rutcor03100.gz"
    theirs = ranx.Run.from_file(str(path))
    run = read_run_any(path)
    ours = reorder(run, "ranx")
    assert all(ours.topics[q].docnos == list(theirs[q].keys()) for q in theirs.keys())
    differ = sum(run.topics[q].docnos != list(theirs[q].keys()) for q in theirs.keys())
    assert differ > 50


@pytest.mark.parametrize("method", UNSUPERVISED)
def test_unsupervised_equal_ranx_on_runs_without_ties(robust, method):
    """humR03dc and uic0301 have no tied scores: judgeapp's default (trec_eval) tie order
    gives ranx's top 20, scores included (ties among fused scores are ranked as ranx does
    them only with ties='ranx', which is used for both here)."""
    runs, rruns = _pair(robust, ["humR03dc", "uic0301"])
    for norm in ("minmax", "zmuv") if method in SCORE_METHODS else ("minmax",):
        f = Fusion(method, norm, ties="ranx", **PARAMS.get(method, {}))
        theirs = _ranx_fused(rruns, method, norm, PARAMS.get(method, {}))
        if "borda" in method:  # tied points: see test_methods_equal_ranx_on_runs_with_ties
            _assert_scores(fuse(runs, f), theirs)
        else:
            _assert_top(fuse(runs, f), theirs)


def test_norms_equal_ranx_on_runs_with_ties(robust):
    """Three runs with thousands of tied scores, every normalisation, CombMNZ and RRF over
    it, with ties='ranx'."""
    runs, rruns = _pair(robust, ["pircRBa1", "aplrob03a", "SABIR03BASE"])
    for method, norm in itertools.product(("mnz", "rrf"), RANX_NORM):
        _assert_top(
            fuse(runs, Fusion(method, norm, ties="ranx")), _ranx_fused(rruns, method, norm, {})
        )


@pytest.mark.parametrize("method", ["sum", "med", "gmnz", "isr", "log_isr", "rbc", "bordafuse"])
def test_methods_equal_ranx_on_runs_with_ties(robust, method):
    runs, rruns = _pair(robust, ["pircRBa1", "aplrob03a", "SABIR03BASE"])
    params = {**PARAMS.get(method, {})}
    f = Fusion(method, "minmax", ties="ranx", **params)
    # bordafuse: documents the first run misses enter ranx's fused run in the order of a
    # Python set, so their tied points cannot be ordered as ranx does; compare the scores
    top = 0 if method == "bordafuse" else TOP
    theirs = _ranx_fused(rruns, method, "minmax", params)
    ours = fuse(runs, f)
    if top:
        _assert_top(ours, theirs)
    _assert_scores(ours, theirs)


def _assert_scores(ours, theirs):
    """Every document of every topic, with its fused score."""
    for q in theirs.keys():
        got = dict(zip(ours.topics[q].docnos, ours.topics[q].scores.tolist(), strict=True))
        want = dict(theirs[q])
        assert got.keys() == want.keys()
        assert np.allclose([got[d] for d in want], list(want.values()), rtol=1e-12)


def test_condorcet_equals_ranx_where_majorities_have_no_cycle():
    rng = random.Random(3)
    for _ in range(20):
        docs = [f"d{i}" for i in range(30)]
        base = {d: rng.uniform(0, 10) for d in docs}
        raw = [{"1": {d: base[d] + rng.gauss(0, 0.01) for d in docs}} for _ in range(3)]
        from judgeapp.formats.interop import run_from_columns

        runs = [
            run_from_columns("r", ["1"] * 30, list(r["1"]), np.array(list(r["1"].values())), "r")
            for r in raw
        ]
        for method, params in (("condorcet", {}), ("w_condorcet", {"weights": (0.5, 0.3, 0.15)})):
            theirs = ranx.fuse(
                [ranx.Run(r) for r in raw],
                norm=None,
                method=method,
                params={k: list(v) for k, v in params.items()},
            )
            ours = fuse(runs, Fusion(method, **params))  # type: ignore[arg-type]
            assert ours.topics["1"].docnos == list(theirs["1"].keys())


# -- supervised ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def training(robust):
    """Two runs without ties on the first TOPICS topics, and those topics' qrels."""
    from judgeapp.formats import read_qrels

    runs, _ = _pair(robust, ["humR03dc", "uic0301"])
    keep = set(runs[0].topics)
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in read_qrels(robust / "robust03_qrels.txt"):
        if q in keep:
            qrels.setdefault(q, {})[d] = g
    rruns = [
        ranx.Run(
            {q: dict(zip(t.docnos, t.scores.tolist(), strict=True)) for q, t in r.topics.items()}
        )
        for r in runs
    ]
    return runs, rruns, qrels, ranx.Qrels(qrels)


def test_what_supervised_methods_learn_equals_ranx(training):
    from ranx.fusion import (
        bayesfuse_train,
        mapfuse_train,
        posfuse_train,
        probfuse_train,
        segfuse_train,
        slidefuse_train,
    )

    runs, rruns, qrels, rqrels = training
    layout = prepared(runs, Fusion("sum", "none"), sorted(qrels))
    hits = hit_lists(layout, qrels)
    for ours, theirs in (
        ([by_place(h) for h in hits], posfuse_train(rqrels, rruns)),
        ([by_place(h) for h in hits], slidefuse_train(rqrels, rruns)),
        ([by_segment(h, 7) for h in hits], probfuse_train(rqrels, rruns, 7)),
        ([by_fixed_segment(h) for h in hits], segfuse_train(rqrels, rruns)),
        ([log_odds(h) for h in hits], bayesfuse_train(rqrels, rruns)),
    ):
        for a, b in zip(ours, theirs, strict=True):
            assert np.allclose(a, np.asarray(b), rtol=1e-12, atol=1e-15)
    import judgeapp

    ev = judgeapp.evaluator(["AP"], qrels)
    maps = [float(ev.calc_aggregate(one_run(layout, r))["AP"]) for r in range(2)]
    assert np.allclose(maps, mapfuse_train(rqrels, rruns), rtol=1e-12)


@pytest.mark.parametrize(
    "method,learnt,extra",
    [
        ("probfuse", "probs", {}),
        ("segfuse", "probs", {}),
        ("slidefuse", "probs", {"w": 3}),
        ("posfuse", "probs", {}),
        ("bayesfuse", "log_odds", {}),
        ("mapfuse", "map_scores", {}),
    ],
)
def test_supervised_fusion_equals_ranx_with_the_same_training(training, method, learnt, extra):
    from ranx import fusion as rf

    runs, rruns, _, rqrels = training
    trainer = getattr(rf, f"{method}_train")
    params = trainer(rqrels, rruns, 9) if method == "probfuse" else trainer(rqrels, rruns)
    theirs = ranx.fuse(rruns, norm="min-max", method=method, params={learnt: params, **extra})
    trained = tuple(
        (float(p),) if method == "mapfuse" else tuple(np.asarray(p, dtype=float).tolist())
        for p in params
    )
    f = Fusion(method, "minmax", trained=trained, window=extra.get("w"), ties="ranx")
    _assert_top(fuse(runs, f), theirs)


@pytest.mark.parametrize("method,param", [("rrf", "k"), ("wsum", "weights"), ("rbc", "phi")])
def test_chosen_parameters_equal_ranx_optimize_fusion(training, method, param):
    """ranx chooses by its MAP; judgeapp by AP (trec_eval's) on the fused run ranked in
    ranx's order: the same candidates, scores and choice (the last of equal bests)."""
    import judgeapp
    from judgeapp.formats.ties import reorder as reordered
    from judgeapp.fusion_train import bare, train

    runs, rruns, qrels, rqrels = training
    theirs = ranx.optimize_fusion(
        rqrels,
        rruns,
        norm="min-max",
        method=method,
        metric="map",
        show_progress=False,
        **({"step": 0.25} if method == "wsum" else {}),
    )
    ev = judgeapp.evaluator(["AP"], qrels)

    def score(run):
        return float(ev.calc_aggregate(reordered(run, "file", rescore=True))["AP"])

    base = bare({"method": method, "norm": "minmax", "ties": "ranx"})
    choice = train(runs, base, qrels, sorted(qrels), score, score, step=0.25)
    got = getattr(choice.fusion, param)
    want = theirs[param]
    assert np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float))


def test_written_order_survives_evaluation_with_ties_file(training, tmp_path):
    """A fused run with tied scores in ranx's order, written and evaluated with --ties
    file, scores what training printed."""
    from judgeapp.fusion import write_run

    runs = training[0]
    f = Fusion("rrf", ties="ranx")
    fused = fuse_prepared(prepared(runs, f), f)
    path = tmp_path / "fused"
    write_run(fused, path)
    ranked = reorder(read_run_any(path), "file")
    assert any(len(set(t.scores.tolist())) < len(t.docnos) for t in fused.topics.values())
    assert all(ranked.topics[q].docnos == t.docnos for q, t in fused.topics.items())
