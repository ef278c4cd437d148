"""Judging orders on small hand-made pools. Every expected sequence was derived by hand from
the algorithm as documented in judgeapp/pooling/order.py (the working is in the comments)."""

from __future__ import annotations

import numpy as np
import pytest

from judgeapp.pooling.order import ORDERS, make_order
from judgeapp.pooling.pools import depth_pool
from tests.pooling.judging import judge_all


def pool_of(run_lists: dict[str, list[int]], depth: int = 100):
    lists = {run: np.array(ids) for run, ids in run_lists.items()}
    return depth_pool("1", list(lists), list(lists.values()), depth), lists


# A: R R N R, B: N R R R, C: R N N N (no overlap)
RUNS3 = {"A": [1, 2, 3, 4], "B": [5, 6, 7, 8], "C": [9, 10, 11, 12]}
REL3 = {1, 2, 4, 6, 7, 8, 9}


def test_rank_is_round_robin_depth_by_depth():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [4, 1, 5], "C": [6, 7, 2]})
    # rank 1: A1 B4 C6; rank 2: A2, (B1 seen), C7; rank 3: A3, B5, (C2 seen)
    assert judge_all(make_order("rank", topic, lists), set()) == [1, 4, 6, 2, 7, 3, 5]


def test_rank_order_ignores_judgments():
    topic, lists = pool_of(RUNS3)
    expected = [1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12]
    assert judge_all(make_order("rank", topic, lists), REL3) == expected


def test_move_to_front():
    topic, lists = pool_of(RUNS3)
    # A: 1 R, 2 R, 3 N -> A at -1;  B: 5 N -> -1;  C: 9 R, 10 N -> -1
    # all at -1, earliest first: A: 4 R, A exhausted; B: 6 R 7 R 8 R, exhausted;
    # C: 11 N -> -2, still the only run left: 12
    expected = [1, 2, 3, 5, 9, 10, 4, 6, 7, 8, 11, 12]
    assert judge_all(make_order("mtf", topic, lists), REL3) == expected


def test_move_to_front_skips_documents_already_judged_through_another_run():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [4, 1, 5], "C": [6, 7, 2]})
    # A: 1 R 2 R 3 N (A -1); B: 4 R, 1 already judged, 5 N (B -1); C: 6 N (C -1);
    # A and B exhausted; C: 7 R, 2 judged: done
    assert judge_all(make_order("mtf", topic, lists), {1, 2, 4, 7}) == [1, 2, 3, 4, 5, 6, 7]


def test_maxmean():
    topic, lists = pool_of(RUNS3)
    # means (1+rel)/(2+rel+nonrel), all 1/2 at first, ties to the earlier run
    # A: 1 R (2/3), 2 R (3/4), 3 N (3/5), 4 R (4/6), A exhausted
    # B, C tie at 1/2 -> B: 5 N (1/3);  C: 9 R (2/3), 10 N (2/4), 11 N (2/5 > 1/3), 12 N
    # B: 6, 7, 8
    expected = [1, 2, 3, 4, 5, 9, 10, 11, 12, 6, 7, 8]
    assert judge_all(make_order("maxmean", topic, lists), REL3) == expected


def test_maxmean_shared_credits_a_run_for_its_documents_judged_through_another():
    topic, lists = pool_of({"A": [1, 2, 3, 4], "B": [5, 2, 6]})
    relevant = {2, 6}
    # means (a * rate + rel_above + 0.3 rel_below) / (a + judged_above + 0.3 judged_below),
    # a = 3, rate = (1 + rel) / (2 + judged) over the topic; ties to the earlier run
    # start: A = B = 1/2 -> A: 1 N; rate 1/3: A (1 + 0) / 4 = 1/4 < B 1/3 -> B: 5 N;
    # rate 1/4: A = B = 0.75 / 4 -> A: 2 R, which is B's next document too: both heads move
    # past it; rate 2/5: A = B = (1.2 + 1) / 5 -> A: 3 N; rate 1/3: A (1 + 1) / 6 = 1/3,
    # B (1 + 1) / 5 = 2/5 -> B: 6 R, B exhausted; A: 4
    assert judge_all(make_order("maxmean-shared", topic, lists), relevant) == [1, 5, 2, 3, 6, 4]
    # MaxMean credits 2 to A alone (it pulled it) and judges A's 4 before B's 6
    assert judge_all(make_order("maxmean", topic, lists), relevant) == [1, 5, 2, 3, 4, 6]


def test_maxmean_shared_learns_from_a_judgment_below_a_run_head():
    topic, lists = pool_of({"A": [1, 2], "B": [3, 4, 5]})
    shared, plain = make_order("maxmean-shared", topic, lists), make_order("maxmean", topic, lists)
    for order in (shared, plain):
        order.record(5, 1, True)  # B's third document, judged out of band
    # rate 2/3: A 3 (2/3) / 3 = 0.667 < B (2 + 0.3) / (3 + 0.3) = 0.697
    assert shared.next_doc() == 3
    assert plain.next_doc() == 1  # MaxMean learns only from its own pulls


def test_maxmean_shared_parameters():
    topic, lists = pool_of({"A": [1, 2], "B": [3, 4, 5]})
    order = make_order("maxmean-shared", topic, lists, below=0.0)
    order.record(5, 1, True)  # with below 0 the judgment says nothing of B
    assert order.next_doc() == 1
    with pytest.raises(ValueError):
        make_order("maxmean-shared", topic, lists, below=1.5)
    with pytest.raises(ValueError):
        make_order("maxmean-shared", topic, lists, prior_strength=0)


def test_ridge_fusion_starts_from_the_summed_rank_values():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [2, 3, 4], "C": [3, 1, 5]})
    # N = 4: rank 1 is worth 1, rank 2 ln 2 / ln 4 = 0.5, rank 3 ln(4/3) / ln 4 = 0.21;
    # every run weighs 0.5 / 3 at first, so the order is the sum: 3 (0.21 + 0.5 + 1),
    # 1 (1 + 0.5) and 2 (0.5 + 1) tied (lower doc id first), then 4 and 5 (0.21 each)
    assert make_order("ridge-fusion", topic, lists).upcoming(5) == [3, 1, 2, 4, 5]


def test_ridge_fusion_learns_the_run_weights_from_every_judgment():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [4, 2, 5]})
    # values (A, B): 1 (1, 0), 2 (0.5, 0.5), 3 (0.21, 0), 4 (0, 1), 5 (0, 0.21);
    # w = (3 I + sum x x^T)^-1 (3 w0 + sum y x) with w0 = (0.25, 0.25): 1, 2, 4 tie at 0.25
    # 1 N: A = diag(4, 3), b = (0.75, 0.75), w = (0.1875, 0.25): 2 0.219 < 4 0.25
    # 4 R: A = diag(4, 4), b = (0.75, 1.75), w = (0.1875, 0.4375): 2 0.31, 5 0.09, 3 0.04
    # 2 N: A = [[4.25, 0.25], [0.25, 4.25]], w = (2.75, 7.25) / 18: 5 0.084 > 3 0.032
    assert judge_all(make_order("ridge-fusion", topic, lists), {4}) == [1, 4, 2, 5, 3]
    order = make_order("ridge-fusion", topic, lists).replay([(1, 0, False), (4, 1, True)])
    assert np.allclose(order._weights(), [0.1875, 0.4375])
    order.record(2, 0, False)
    assert np.allclose(order._weights(), [2.75 / 18, 7.25 / 18])
    order.forget(2)  # rebuilt from the log
    assert np.allclose(order._weights(), [0.1875, 0.4375])


def test_ridge_fusion_learns_from_a_judgment_it_did_not_propose():
    topic, lists = pool_of({"A": [1, 2], "B": [3, 4]})
    order = make_order("ridge-fusion", topic, lists)
    assert order.next_doc() == 1  # 1 and 3 tie
    order.record(4, 1, True)  # B's second document, judged out of band
    assert order.next_doc() == 3


def test_ridge_fusion_parameters():
    topic, lists = pool_of({"A": [1, 2], "B": [3, 4]})
    # with no prior weight every document scores 0 until something relevant is judged
    order = make_order("ridge-fusion", topic, lists, prior_weight=0.0)
    assert order.next_doc() == 1
    order.record(3, 1, True)
    assert order.next_doc() == 4
    with pytest.raises(ValueError):
        make_order("ridge-fusion", topic, lists, ridge=0)
    with pytest.raises(ValueError):
        make_order("ridge-fusion", topic, lists, prior_weight=-1)
    with pytest.raises(ValueError):
        make_order("ridge-fusion", topic, lists, dry=2.5)


# runs A and B rank the relevant documents 1-10 high; C ranks the relevant 999 first and then
# only documents nobody judges relevant, which D ranks too: the fusion learns to weigh C
# down, and 999 with it
SAFETY_RUNS = {
    "A": list(range(1, 61)),
    "B": list(range(1, 11)) + list(range(200, 250)),
    "C": [999, *range(100, 160)],
    "D": [*range(100, 160), 1, 2, 3],
}
SAFETY_RELEVANT = {*range(1, 11), 999}


def test_ridge_fusion_hands_every_other_turn_to_maxmean_once_it_has_gone_dry():
    """Until `dry` judgments in a row find nothing relevant the fusion proposes; from then
    on MaxMean (fed every judgment, as a MaxMean replaying the same history is) proposes
    every other document, until one is relevant."""
    topic, lists = pool_of(SAFETY_RUNS, depth=60)
    safe = make_order("ridge-fusion", topic, lists, dry=5)
    events: list[tuple[int, int, bool]] = []
    turns = []
    while (doc := safe.next_doc()) is not None and len(events) < 120:
        pure = make_order("ridge-fusion", topic, lists, dry=0).replay(events)
        maxmean = make_order("maxmean", topic, lists).replay(events)
        since = next((i for i, (_d, _g, rel) in enumerate(reversed(events)) if rel), len(events))
        if since >= 5 and (since - 5) % 2 == 0:
            assert doc == maxmean.next_doc()
            turns.append("maxmean")
        else:
            assert doc == pure.next_doc()
            turns.append("fusion")
        relevant = doc in SAFETY_RELEVANT
        safe.record(doc, int(relevant), relevant)
        events.append((doc, int(relevant), relevant))
    assert turns[:5] == ["fusion"] * 5 and "maxmean" in turns
    assert safe.upcoming(3)[0] == safe.next_doc()


def test_ridge_fusion_finds_what_only_a_run_it_weighs_down_holds_near_maxmean():
    """999 comes at judgment 80 of 171 from the fusion alone (dry=0), at 23 from MaxMean,
    and at 35 from the fusion with MaxMean's turns (the default, dry=10)."""

    def position(name, **params):
        topic, lists = pool_of(SAFETY_RUNS, depth=60)
        seen = judge_all(make_order(name, topic, lists, **params), SAFETY_RELEVANT)
        return seen.index(999) + 1

    assert position("ridge-fusion", dry=0) == 80
    assert position("maxmean") == 23
    assert position("ridge-fusion") == 35


# A: R R R N N N N N; B: N R
RUNS_NS = {"A": [1, 2, 3, 4, 5, 6, 7, 8], "B": [9, 10]}
REL_NS = {1, 2, 3, 10}


def test_maxmean_stationary_keeps_faith_in_an_early_streak():
    topic, lists = pool_of(RUNS_NS)
    # A after R R R N N N: (1+3)/(2+6) = 1/2 ties B's prior 1/2 -> A again: 7 N (4/9);
    # then B: 9 N (1/3); A: 8 N; B: 10
    expected = [1, 2, 3, 4, 5, 6, 7, 9, 8, 10]
    assert judge_all(make_order("maxmean", topic, lists), REL_NS) == expected


def test_maxmean_non_stationary_forgets_an_early_streak():
    topic, lists = pool_of(RUNS_NS)
    # gamma 0.9, counts discounted before each pull of the arm:
    # A: R (rel 1) R (1.9) R (2.71): mean 3.71/4.71; 4 N: rel 2.439 non 1 -> 0.632
    # 5 N: rel 2.195 non 1.9 -> 0.524 > 1/2; 6 N: rel 1.976 non 2.71 -> 0.445 < 1/2
    # B: 9 N -> 1/3; A (0.445): 7 N -> rel 1.778 non 3.439 -> 0.385 > 1/3; 8 N; B: 10
    order = make_order("maxmean-ns", topic, lists)
    assert judge_all(order, REL_NS) == [1, 2, 3, 4, 5, 6, 9, 7, 8, 10]


def test_maxmean_non_stationary_gamma_one_is_maxmean():
    topic, lists = pool_of(RUNS_NS)
    order = make_order("maxmean-ns", topic, lists, gamma=1.0)
    assert judge_all(order, REL_NS) == [1, 2, 3, 4, 5, 6, 7, 9, 8, 10]


def test_hedge():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [2, 4, 5]})
    # N = 4: u(rank 1) = 1, u(2) = ln2/ln4 = 0.5, u(3) = ln(4/3)/ln4 = 0.2075
    # scores with equal weights: 1: 1, 2: 0.5 + 1 = 1.5, 3: 0.21, 4: 0.5, 5: 0.21 -> 2
    # 2 relevant: loss A = 1 - 0.5, B = 1 - 1 -> wA = 0.1**0.5 = 0.316, wB = 1
    #   scores: 1: 0.316, 3: 0.066, 4: 0.5, 5: 0.21 -> 4
    # 4 non-relevant: loss A 0, B 0.5 -> wB = 0.316
    #   scores: 1: 0.316, 3: 0.066, 5: 0.066 -> 1
    # 1 non-relevant: loss A 1 -> wA = 0.0316; scores 3: 0.0066, 5: 0.066 -> 5, then 3
    assert judge_all(make_order("hedge", topic, lists), {2, 3}) == [2, 4, 1, 5, 3]


def test_hedge_beta_is_a_parameter():
    topic, lists = pool_of({"A": [1, 2, 3], "B": [2, 4, 5]})
    with pytest.raises(ValueError, match="beta"):
        make_order("hedge", topic, lists, beta=1.5)


def test_blind_is_a_seeded_shuffle_that_hides_runs():
    topic, lists = pool_of(RUNS3)
    first = judge_all(make_order("blind", topic, lists, seed=7), REL3)
    again = judge_all(make_order("blind", topic, lists, seed=7), set())
    other = judge_all(make_order("blind", topic, lists, seed=8), set())
    assert sorted(first) == list(range(1, 13))
    assert first == again  # judgments do not steer it
    assert first != other
    # a stored pool's blind order is shuffled again from its seed each time the project
    # opens: it must stay the order the assessor saw, whatever the process or numpy version.
    # No hand derivation exists for a PCG64 permutation; this is the order of seed 7 as
    # first recorded (numpy 2.4), a permutation of 1..12 as asserted above.
    assert first == [5, 7, 11, 1, 2, 4, 9, 8, 3, 6, 10, 12]
    assert not make_order("blind", topic, lists).exposes_runs
    assert make_order("mtf", topic, lists).exposes_runs


def test_unknown_order():
    topic, lists = pool_of(RUNS3)
    with pytest.raises(ValueError, match="unknown judging order 'random'"):
        make_order("random", topic, lists)


def test_documents_outside_every_list_come_last():
    lists = {"A": np.array([3, 1])}
    topic = depth_pool("1", ["B"], [np.array([2, 1, 3])], 3)  # pool {1, 2, 3}; A lacks 2
    for name in ("rank", "mtf", "maxmean"):
        assert judge_all(make_order(name, topic, lists), set()) == [3, 1, 2], name


@pytest.mark.parametrize("name", list(ORDERS))
def test_judging_outside_the_proposal_only_removes_that_document(name):
    topic, lists = pool_of(RUNS3)
    order = make_order(name, topic, lists, seed=3)
    order.record(999, 1, True)  # not pooled: ignored
    first = order.next_doc()
    other = next(d for d in topic.doc_ids.tolist() if d != first)
    order.record(other, 0, False)
    assert order.next_doc() != other
    assert order.remaining == len(topic) - 1


def test_out_of_band_judgment_does_not_penalise_a_run():
    topic, lists = pool_of(RUNS3)
    order = make_order("mtf", topic, lists)
    order.record(5, 0, False)  # B's first document, judged before MTF proposed it
    # MTF proposes A's documents; B keeps its priority, so after A fails B is next
    assert judge_all(order, REL3) == [1, 2, 3, 6, 7, 8, 9, 10, 4, 11, 12]


@pytest.mark.parametrize("name", list(ORDERS))
def test_state_after_undo_and_regrade_equals_a_replay_of_the_log(name):
    rng = np.random.default_rng(11)
    runs = {r: rng.permutation(40)[:15].tolist() for r in "ABCDE"}
    topic, lists = pool_of(runs)
    relevant = set(rng.choice(40, 12, replace=False).tolist())
    live = make_order(name, topic, lists, seed=5)
    events = []
    for step in range(60):
        doc = live.next_doc()
        if doc is None:
            break
        if step % 7 == 3 and live.judged:  # undo the last judgment
            last = list(live.judged)[-1]
            live.forget(last)
            events.append((last, None, False))
            continue
        if step % 11 == 5 and live.judged:  # re-grade an earlier judgment
            earlier = next(iter(live.judged))
            flipped = not live.judged[earlier][1]
            live.record(earlier, int(flipped), flipped)
            events.append((earlier, int(flipped), flipped))
            continue
        live.record(doc, int(doc in relevant), doc in relevant)
        events.append((doc, int(doc in relevant), doc in relevant))
    resumed = make_order(name, topic, lists, seed=5).replay(events)
    assert resumed.judged == live.judged
    assert judge_all(resumed, relevant) == judge_all(live, relevant)


@pytest.mark.parametrize("name", list(ORDERS))
def test_upcoming_starts_with_next_doc_and_leaves_the_order_alone(name):
    topic, lists = pool_of(RUNS3)
    order = make_order(name, topic, lists, seed=2)
    order.record(order.next_doc(), 1, True)
    upcoming = order.upcoming(5)
    assert upcoming[0] == order.next_doc()
    assert len(set(upcoming)) == 5
    assert order.remaining == 11
    assert len(order.upcoming(100)) == 11


def test_everything_judged():
    topic, lists = pool_of({"A": [1]})
    order = make_order("hedge", topic, lists)
    order.record(1, 0, False)
    assert order.next_doc() is None
    assert order.upcoming(3) == []
