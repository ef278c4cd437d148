"""Bounds on the measures while a pool is partly judged (judgeapp.services.bounds): a worked
example, the exact extremes over every completion of small generated pools (brute force
through the engine), and, on Robust 2003, that the bounds hold the final value and narrow as
each judging order judges the pool one document at a time."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run, parse_measures
from judgeapp.pooling import ORDERS, make_order
from judgeapp.services.bounds import evaluation_bounds

# one measure or more of every PROVEN family: the bounds are the exact extremes over every
# completion; R-precision and bpref are not (their range can miss the final value)
EXACT = (
    "AP AP@3 AP_11pt ERR@5 IPrec@0.5 Judged@5 NumRel NumRelRet@5 P@3 P@10 R@3 R@10 RBP RR "
    "SetF SetP SetR Success@2 infAP nDCG nDCG@3"
).split()
OTHERS = ["Bpref", "Rprec"]
MEASURES = parse_measures(EXACT + OTHERS)
OPTIONS = EvalOptions(complete=True)


def _judgments(topics: dict[str, dict[int, int]]) -> Judgments:
    return Judgments.from_arrays(
        {
            q: (np.array(list(d), np.int64), np.array(list(d.values()), np.int64))
            for q, d in topics.items()
        }
    )


def test_worked_example():
    # run ranks a (judged relevant), b, c (unjudged); d is pooled (by another run), unjudged
    a, b, c, d = 1, 2, 3, 4
    run = Run("r", {"1": np.array([a, b, c], np.int64)})
    other = Run("s", {"1": np.array([d], np.int64)})
    measures = parse_measures(["AP", "P@3", "R@3", "RR"])
    bounds = evaluation_bounds(
        _judgments({"1": {a: 1}}), [run, other], measures, OPTIONS, {"1": np.array([a, b, c, d])}, 1
    )
    # AP: best b and c relevant, d not: (1 + 1 + 1) / 3; worst d relevant, b and c not: 1/2
    assert bounds.mean("AP", "r") == (0.5, 1.0)
    assert bounds.mean("P@3", "r") == pytest.approx((1 / 3, 1.0))
    # R@3: all three retrieved relevant and d not (1), only a relevant... and d (1/2)
    assert bounds.mean("R@3", "r") == (0.5, 1.0)
    assert bounds.mean("RR", "r") == (1.0, 1.0)
    # run s ranks d alone: relevant or not
    assert bounds.mean("AP", "s") == (0.0, 1.0 / 2)
    assert bounds.unjudged == 3
    # once everything is judged, low = high = the value
    done = _judgments({"1": {a: 1, b: 0, c: 1, d: 0}})
    bounds = evaluation_bounds(
        done, [run, other], measures, OPTIONS, {"1": np.array([a, b, c, d])}, 1
    )
    final = Evaluator(done, [run, other], measures, OPTIONS).evaluate().summary()
    np.testing.assert_array_equal(bounds.low_mean, final)
    np.testing.assert_array_equal(bounds.high_mean, final)
    assert bounds.unjudged == 0


def small_pool(rng: np.random.Generator):
    """One or two topics over documents 1-7: three runs (maybe empty), some judgments, a
    pool of what the runs rank and maybe one document none of them ranks."""
    topics = ["1", "2"][: int(rng.integers(1, 3))]
    runs = [
        Run(f"r{i}", {q: rng.permutation(np.arange(1, 8))[: rng.integers(0, 6)] for q in topics})
        for i in range(3)
    ]
    judged, pooled = {}, {}
    for q in topics:
        in_pool = sorted({int(x) for r in runs for x in r.topics[q]})
        in_pool += [10] if rng.random() < 0.5 else []
        judged[q] = {x: int(rng.integers(0, 2)) for x in in_pool if rng.random() < 0.4}
        judged[q] = judged[q] or {12: 0}  # a judged topic, as trec_eval needs one
        pooled[q] = np.array(in_pool, np.int64)
    return runs, judged, pooled


@pytest.mark.parametrize("seed", range(40))
def test_bounds_are_the_extremes_over_every_completion(seed):
    runs, judged, pooled = small_pool(np.random.default_rng(seed))
    bounds = evaluation_bounds(_judgments(judged), runs, MEASURES, OPTIONS, pooled, 1)
    open_docs = [
        (q, int(x)) for q in sorted(pooled) for x in pooled[q].tolist() if x not in judged[q]
    ]
    assert bounds.unjudged == len(open_docs)
    assert len(open_docs) <= 16
    seen_low = np.full(bounds.low.shape, np.inf)
    seen_high = np.full(bounds.low.shape, -np.inf)
    for grades in itertools.product((0, 1), repeat=len(open_docs)):
        full = {q: dict(j) for q, j in judged.items()}
        for (q, x), g in zip(open_docs, grades, strict=True):
            full[q][x] = g
        values = Evaluator(_judgments(full), runs, MEASURES, OPTIONS).evaluate().values
        seen_low, seen_high = np.fmin(seen_low, values), np.fmax(seen_high, values)
    for i, m in enumerate(MEASURES):
        if bounds.proven(m):
            np.testing.assert_allclose(bounds.low[i], seen_low[i], atol=1e-12, err_msg=str(m))
            np.testing.assert_allclose(bounds.high[i], seen_high[i], atol=1e-12, err_msg=str(m))
    assert {str(m) for m in MEASURES if not bounds.proven(m)} == set(OTHERS)


ROBUST_QIDS = ["601", "602"]


@pytest.fixture(scope="module")
def robust_pool(shared_data):
    """Five Robust 2003 runs, topics 601-602 pooled to depth 6, the official grades made
    binary (relevant at the lowest relevant grade, as the bounds assume)."""
    from judgeapp.formats import read_qrels, read_run
    from judgeapp.measures import Vocabulary
    from judgeapp.pooling.pools import build_pool

    vocab = Vocabulary()
    qrels = Judgments.from_qrels(read_qrels(shared_data / "robust03" / "robust03_qrels.txt"), vocab)
    lists = {}
    for path in sorted((shared_data / "robust03" / "runs").glob("input.*.gz"))[:5]:
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(run.topics[q].docnos) for q in ROBUST_QIDS}
    pool = build_pool(lists, "depth", {"depth": 6}, ROBUST_QIDS)
    truth = {}
    for q in ROBUST_QIDS:
        tj = qrels.topics[q]
        grade = dict(zip(tj.docids.tolist(), tj.grades.tolist(), strict=True))
        truth[q] = {d: min(max(grade.get(d, 0), 0), 1) for d in pool[q].doc_ids.tolist()}
    return lists, pool, truth


@pytest.mark.parametrize("order_name", list(ORDERS))
def test_bounds_hold_the_final_value_and_narrow_in_every_order(robust_pool, order_name):
    lists, pool, truth = robust_pool
    runs = [Run(name, topics) for name, topics in lists.items()]
    pooled = {q: pool[q].doc_ids for q in ROBUST_QIDS}
    final = Evaluator(_judgments(truth), runs, MEASURES, OPTIONS).evaluate()
    orders = {
        q: make_order(order_name, pool[q], {n: t[q] for n, t in lists.items()}, seed=7)
        for q in ROBUST_QIDS
    }
    judged: dict[str, dict[int, int]] = {q: {} for q in ROBUST_QIDS}
    proven = [i for i, m in enumerate(MEASURES) if str(m) in EXACT]
    previous = None
    steps = 0
    while True:
        moved = False
        for q in ROBUST_QIDS:
            doc = orders[q].next_doc()
            if doc is None:
                continue
            grade = truth[q][doc]
            orders[q].record(doc, grade, grade >= 1)
            judged[q][doc] = grade
            moved = True
            steps += 1
            bounds = evaluation_bounds(
                _judgments({k: v for k, v in judged.items() if v}),
                runs,
                MEASURES,
                OPTIONS,
                pooled,
                1,
            )
            # the topic not judged yet is pooled, so it is in the bounds from the start
            assert bounds.qids == final.qids
            tol = 1e-12
            low, high = bounds.low[proven], bounds.high[proven]
            assert np.all(low <= final.values[proven] + tol), f"{order_name}, step {steps}"
            assert np.all(final.values[proven] <= high + tol), f"{order_name}, step {steps}"
            assert np.all(bounds.low_mean[proven] <= final.summary()[proven] + tol)
            assert np.all(final.summary()[proven] <= bounds.high_mean[proven] + tol)
            if previous is not None:
                # each judgment removes completions: exact bounds never widen
                assert np.all(low >= previous.low[proven] - tol), steps
                assert np.all(high <= previous.high[proven] + tol), steps
            previous = bounds
        if not moved:
            break
    assert steps == sum(len(pooled[q]) for q in ROBUST_QIDS)
    # judged to the end: every measure's bounds are the final value
    np.testing.assert_allclose(previous.low, final.values, atol=1e-12)
    np.testing.assert_allclose(previous.high, final.values, atol=1e-12)
    assert not math.isnan(float(previous.low_mean.sum()))
