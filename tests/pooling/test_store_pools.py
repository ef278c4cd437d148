"""Pools in the store: round trips, growth that keeps judgments, progress, resuming orders."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from sqlalchemy import select

from judgeapp.pooling import depth_pool, make_order
from judgeapp.records import RankedTopic, RunFile, Topic
from judgeapp.services.policy import effective_judgments, qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.store import JudgmentState, RunImport, Store, StoreError
from judgeapp.store import models as m

RUNS = {
    "A": {"1": ["a", "b", "c", "d"], "2": ["x", "y"]},
    "B": {"1": ["c", "e", "a", "f"]},
    "C": {"1": ["g", "a", "h"], "2": ["y", "z"]},
}


def run_file(tag: str, topics: dict[str, list[str]]) -> RunFile:
    ranked = {
        qid: RankedTopic(docs, np.arange(len(docs), 0, -1, dtype=float), np.arange(len(docs)))
        for qid, docs in topics.items()
    }
    return RunFile(f"{tag}.run", tag, ranked, sum(map(len, topics.values())))


@pytest.fixture
def store(project_db):
    s = Store.open(project_db)
    s.runs.add([RunImport(run_file(tag, topics)) for tag, topics in RUNS.items()])
    # the runs' topics: people judge topics of the project (schema 0006 refuses others)
    qids = sorted({q for topics in RUNS.values() for q in topics})
    s.topics.put([(Topic(q, f"topic {q}"), "test") for q in qids])
    yield s
    s.close()


def docnos(store: Store, ids) -> list[str]:
    names = store.documents.docnos_of(ids)
    return [names[int(i)] for i in ids]


def contributors(store: Store, topic) -> dict[str, list[tuple[str, int]]]:
    names = store.documents.docnos_of(topic.doc_ids)
    return {names[int(d)]: topic.contributors(d) for d in topic.doc_ids}


def test_pool_round_trip_equals_pooling_the_stored_lists(store):
    info = PoolService(store).create_pool(
        "p", runs=["A", "B"], params={"depth": 2}, judging_order="mtf", seed=4
    )
    assert (info.name, info.strategy, info.params, info.judging_order, info.seed) == (
        "p",
        "depth",
        {"depth": 2},
        "mtf",
        4,
    )
    assert info.runs == ("A", "B") and info.n_topics == 2 and info.n_docs == 6
    topic = PoolService(store).pool_topic("p", "1")
    lists = store.runs.ranked_lists(runs=["A", "B"], qids=["1"])
    expected = depth_pool("1", ["A", "B"], [lists.runs[r]["1"][0] for r in ("A", "B")], 2)
    for field in ("doc_ids", "best_rank", "offsets", "run_idx", "ranks", "inclusion_prob"):
        assert getattr(topic, field).tolist() == getattr(expected, field).tolist(), field
    assert contributors(store, topic) == {
        "a": [("A", 1)],
        "b": [("A", 2)],
        "c": [("B", 1)],
        "e": [("B", 2)],
    }
    assert store.pools.sizes("p") == {"1": 4, "2": 2}
    assert [p.name for p in store.pools.all()] == ["p"]
    assert len(PoolService(store).pool_topic("p", "3")) == 0  # a topic without pooled documents


def test_pool_rows_carry_a_readable_timestamp(store):
    PoolService(store).create_pool("p", params={"depth": 1})
    with store.db.read() as conn:
        stamps = conn.execute(select(m.PoolDoc.c.added_at)).scalars().all()
    assert stamps and all(s.year >= 2024 for s in stamps)


def test_take_pool_and_topic_subset(store):
    PoolService(store).create_pool("t", strategy="rrf", params={"budget": 2}, qids=["1"])
    assert store.pools.sizes("t") == {"1": 2}
    topic = PoolService(store).pool_topic("t", "1")
    # rrf k=60: a = 1/61 + 1/63 + 1/62, c = 1/63 + 1/61 -> a, c
    assert docnos(store, topic.doc_ids) == ["a", "c"]
    assert contributors(store, topic)["a"] == [("A", 1), ("B", 3), ("C", 2)]


def judge(store: Store, qid: str, docno: str, grade: int, assessor: str = "ann") -> None:
    who = store.team.assessor(assessor)
    doc_id = store.documents.intern([docno])[docno]
    store.judgments.record(qid, doc_id, who.id, JudgmentState(grade))


def test_extending_a_pool_adds_runs_and_depth_and_keeps_judgments(store):
    PoolService(store).create_pool("p", runs=["A", "B"], params={"depth": 2})
    judge(store, "1", "a", 2)
    judge(store, "1", "e", 0)
    before = effective_judgments(store)
    info = PoolService(store).extend_pool("p", runs=["C"])
    assert info.runs == ("A", "B", "C")
    assert info.params["extensions"][0]["runs"] == ["C"]
    topic = PoolService(store).pool_topic("p", "1")
    assert contributors(store, topic) == {
        "a": [("A", 1), ("C", 2)],
        "b": [("A", 2)],
        "c": [("B", 1)],
        "e": [("B", 2)],
        "g": [("C", 1)],
    }
    assert docnos(store, PoolService(store).pool_topic("p", "2").doc_ids) == ["x", "y", "z"]
    info = PoolService(store).extend_pool("p", params={"depth": 3})
    assert info.params["depth"] == 3
    assert "h" in docnos(store, PoolService(store).pool_topic("p", "1").doc_ids)
    after = effective_judgments(store)
    for qid, (ids, grades) in before.topics.items():
        assert after.topics[qid][0].tolist() == ids.tolist()
        assert after.topics[qid][1].tolist() == grades.tolist()
    progress = {p.qid: p for p in PoolService(store).pool_progress("p")}
    assert (progress["1"].size, progress["1"].judged, progress["1"].relevant) == (6, 2, 1)
    with pytest.raises(StoreError, match="cannot get shallower"):
        PoolService(store).extend_pool("p", params={"depth": 2})


def test_extending_a_take_pool_adds_its_budget_of_new_documents(store):
    PoolService(store).create_pool("t", runs=["A"], strategy="take", params={"budget": 2})
    assert docnos(store, PoolService(store).pool_topic("t", "1").doc_ids) == ["a", "b"]
    PoolService(store).extend_pool(
        "t", runs=["B"]
    )  # two more: c (rank 1 in B), then e (rank 2, 1 run)
    assert sorted(docnos(store, PoolService(store).pool_topic("t", "1").doc_ids)) == [
        "a",
        "b",
        "c",
        "e",
    ]


def test_deleting_a_pool_keeps_judgments(store):
    PoolService(store).create_pool("p", params={"depth": 2})
    judge(store, "1", "a", 1)
    store.pools.delete("p")
    assert store.pools.all() == []
    assert len(effective_judgments(store)) == 1
    with pytest.raises(StoreError, match="no pool named 'p'"):
        store.pools.get("p")


def test_errors(store):
    PoolService(store).create_pool("p", params={"depth": 1})
    with pytest.raises(StoreError, match="already has a pool named 'p'"):
        PoolService(store).create_pool("p", params={"depth": 1})
    with pytest.raises(StoreError, match="no run named 'Z'"):
        PoolService(store).create_pool("q", runs=["Z"], params={"depth": 1})
    with pytest.raises(StoreError, match="needs a budget"):
        PoolService(store).create_pool("q", strategy="take")
    with pytest.raises(StoreError, match="unknown judging order"):
        PoolService(store).create_pool("q", params={"depth": 1}, judging_order="alphabetical")


def test_progress_counts_only_the_chosen_assessors(store):
    PoolService(store).create_pool("p", params={"depth": 2})
    judge(store, "1", "a", 2, "ann")
    judge(store, "1", "b", 0, "bob")
    judge(store, "1", "zz", 3, "bob")  # not pooled: not counted
    both = {p.qid: (p.size, p.judged, p.relevant) for p in PoolService(store).pool_progress("p")}
    ann = {
        p.qid: (p.size, p.judged, p.relevant)
        for p in PoolService(store).pool_progress("p", ["ann"])
    }
    assert both["1"][1:] == (2, 1) and ann["1"][1:] == (1, 1)
    strict = PoolService(store).pool_progress("p", min_grade=3)
    assert [(p.qid, p.relevant) for p in strict] == [("1", 0), ("2", 0)]


def test_judging_events_follow_the_effective_grade(store):
    judge(store, "1", "a", 1, "ann")
    judge(store, "1", "a", 0, "bob")
    judge(store, "1", "b", 2, "ann")
    who = store.team.assessor("bob")
    a = store.documents.docno_ids(["a"])["a"]
    store.judgments.record("1", a, who.id, JudgmentState(None))  # bob's undo: ann's 1 again
    ids = store.documents.docno_ids(["a", "b"])
    assert PoolService(store).judging_events("1") == [
        (ids["a"], 1),
        (ids["a"], 0),
        (ids["b"], 2),
        (ids["a"], 1),
    ]
    assert PoolService(store).judging_events("1", ["bob"]) == [(ids["a"], 0), (ids["a"], None)]


def test_open_judging_order_resumes_from_the_history(store):
    PoolService(store).create_pool("p", params={"depth": 4}, judging_order="mtf")
    info = store.pools.get("p")
    lists = store.runs.ranked_lists(runs=list(info.runs), qids=["1"])
    run_lists = {r: lists.runs[r]["1"][0] for r in info.runs}
    live = make_order("mtf", PoolService(store).pool_topic("p", "1"), run_lists)
    ann = store.team.assessor("ann")
    relevant = set(store.documents.docno_ids(["a", "b", "e", "g"]).values())
    for _ in range(5):
        doc = live.next_doc()
        grade = 1 if doc in relevant else 0
        live.record(doc, grade, grade >= 1)
        store.judgments.record("1", doc, ann.id, JudgmentState(grade))
    resumed = PoolService(store).open_judging_order("p", "1")
    assert resumed.judged == live.judged
    assert resumed.next_doc() == live.next_doc()
    assert resumed.upcoming(20) == live.upcoming(20)
    other = PoolService(store).open_judging_order("p", "1", order="blind")
    assert not other.exposes_runs and other.remaining == resumed.remaining


def test_sample_pool_keeps_judged_documents_certain_and_records_strata(store):
    judge(store, "1", "a", 1)
    judge(store, "1", "e", 0)
    info = PoolService(store).create_pool(
        "s", strategy="sample", params={"budget": 2, "depth": 4, "edges": [2]}, seed=1
    )
    assert info.params == {"budget": 2, "depth": 4, "edges": [2]}
    topic = PoolService(store).pool_topic("s", "1")
    names = store.documents.docnos_of(topic.doc_ids)
    strata = {
        names[int(d)]: (int(h), float(p))
        for d, h, p in zip(topic.doc_ids, topic.stratum, topic.inclusion_prob, strict=True)
    }
    assert strata["a"] == (0, 1.0) and strata["e"] == (0, 1.0)
    # left at depth 4 over A, B, C: best rank <= 2: b, c, g; deeper: d, f, h
    top = [d for d, (h, _) in strata.items() if h == 1]
    deep = [d for d, (h, _) in strata.items() if h == 2]
    assert len(top) == 1 and top[0] in "bcg" and strata[top[0]][1] == pytest.approx(1 / 3)
    assert len(deep) == 1 and deep[0] in "dfh" and strata[deep[0]][1] == pytest.approx(1 / 3)
    assert PoolService(store).pool_topic("s", "2").stratum is not None
    with pytest.raises(StoreError, match="a sample cannot grow"):
        PoolService(store).extend_pool("s", runs=["C"])
    # the estimate waits until both strata have a judged document, then it is Horvitz-Thompson
    assert PoolService(store).estimate_relevant("s", "1") is None
    judge(store, "1", top[0], 2)
    judge(store, "1", deep[0], 0)
    est = PoolService(store).estimate_relevant("s", "1")
    assert est.method == "sample"
    assert est.point == pytest.approx(1 + 3 * 1 + 3 * 0)  # a, plus 3 x 1/1 and 3 x 0/1


def test_curve_estimate_of_a_judged_pool(store):
    PoolService(store).create_pool("p", params={"depth": 4}, judging_order="mtf")
    assert PoolService(store).estimate_relevant("p", "1") is None
    for docno, grade in (("a", 1), ("b", 0), ("c", 2)):
        judge(store, "1", docno, grade)
    judge(store, "1", "b", 1)  # a re-grade keeps its place in the curve
    assert PoolService(store).judging_curve("p", "1").tolist() == [True, True, True]
    est = PoolService(store).estimate_relevant("p", "1")
    size = store.pools.sizes("p")["1"]
    assert est.method == "curve" and est.found == 3 and est.judged == 3
    assert 3 <= est.low <= est.point <= est.high <= size


def test_a_schema_0001_project_with_a_pool_upgrades_and_keeps_it(tmp_path):
    import shutil
    import sqlite3
    from pathlib import Path

    sample = Path(__file__).resolve().parent.parent / "store" / "fixtures" / "schema_0001.db"
    path = tmp_path / "old.db"
    shutil.copy(sample, path)
    with sqlite3.connect(path) as con:  # a pool as judgeapp with schema 0001 wrote it
        con.execute(
            "INSERT INTO pools (id, name, strategy, params, judging_order, seed, created_at, "
            "updated_at) VALUES (7, 'old', 'depth', '{\"depth\": 2}', 'mtf', 3, "
            "'2026-01-01 00:00:00.000000', '2026-01-01 00:00:00.000000')"
        )
        run_id, doc_id = con.execute("SELECT r.id, d.id FROM runs r, docnos d LIMIT 1").fetchone()
        con.execute("INSERT INTO pool_runs VALUES (7, ?)", (run_id,))
        con.execute(
            "INSERT INTO pool_docs (pool_id, qid, doc_id, best_rank, n_runs, run_ids, ranks, "
            "inclusion_prob, added_at) VALUES (7, '1', ?, 2, 1, ?, ?, 1.0, "
            "'2026-01-01 00:00:00.000000')",
            (doc_id, np.array([run_id], "<i4").tobytes(), np.array([2], "<i4").tobytes()),
        )
    store = Store.open(path)
    try:
        assert store.backup is not None
        info = store.pools.get("old")
        assert (info.judging_order, info.seed, info.params, info.n_docs) == (
            "mtf",
            3,
            {"depth": 2},
            1,
        )
        topic = PoolService(store).pool_topic("old", "1")
        assert topic.doc_ids.tolist() == [doc_id] and topic.stratum is None
        assert topic.contributors(doc_id) == [(info.runs[0], 2)]
        assert len(qrels_rows(store)) == 3  # the sample's judgments are still there
    finally:
        store.close()


def test_curve_estimate_carries_the_stopping_advice_and_info_prints_it(store, project_db, capsys):
    """The stopping advice of a pool's topic is the estimator's at the judgments made (the
    rule's checkpoints are every judgment in a pool this small), and `info --estimates`
    prints it with the estimate, marking an interval the estimator cannot vouch for."""
    from judgeapp.cli import main
    from judgeapp.pooling.estimate import fit_curve
    from judgeapp.pooling.simulate import case_seed

    service = PoolService(store)
    service.create_pool("p", params={"depth": 4}, judging_order="mtf")
    for docno, grade in (("a", 1), ("b", 0), ("c", 2)):
        judge(store, "1", docno, grade)
    est = service.estimate_relevant("p", "1", stop=(0.8, 0.95))
    size = store.pools.sizes("p")["1"]
    fit = fit_curve([True, False, True], size, order="mtf", qid="1", seed=case_seed(0, "1", 3))
    assert est.advice == fit.stop_advice(0.8, 0.95)
    assert (est.low, est.high) == (fit.estimate().low, fit.estimate().high)
    assert not est.calibrated and f"a pool of {size} documents" in est.note
    assert service.estimate_relevant("p", "1").advice is None  # only when asked
    store.close()
    assert main(["info", project_db, "--estimates", "p", "--stop-at", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "estimates    pool p: relevant left, 95% interval; stop advice for 80% recall" in out
    low, high = est.missing_interval
    line = next(x for x in out.splitlines() if x.split()[:2] == ["1", str(size)])
    assert line.split()[:6] == [
        "1",
        str(size),
        "3",
        "2",
        f"{est.missing:.0f}",
        f"{low:.0f}-{high:.0f}*",
    ]
    assert line.endswith(est.advice.text())
    assert f"* uncalibrated: a pool of {size} documents" in out
    assert main(["info", project_db, "--estimates", "nope"]) == 2
    assert "no pool named 'nope'" in capsys.readouterr().err


def test_topics_judged_whole_calibrate_the_project_s_estimates(project_db):
    """Once five topics of a pool are judged whole, the estimates of the others are read at
    levels fitted on them (each replayed in the pool's order with the project's grades as
    the assessor), the built-in calibration as the prior: what `simulate --fit-topics`
    does with qrels, here computed apart from the service."""
    from judgeapp.pooling.calibration import builtin_calibration, fit_calibration
    from judgeapp.pooling.estimate import fit_curve
    from judgeapp.pooling.simulate import calibration_cases, case_seed, replay_topic

    rng = np.random.default_rng(4)
    runs = {tag: {} for tag in "ABCD"}
    for q in range(1, 8):
        docs = [f"q{q}d{i}" for i in range(200)]
        for tag in runs:
            runs[tag][str(q)] = [docs[i] for i in rng.permutation(200)[:60]]
    store = Store.open(project_db)
    try:
        store.runs.add([RunImport(run_file(tag, topics)) for tag, topics in runs.items()])
        # people judge topics of the project (schema 0006 refuses others)
        store.topics.put([(Topic(str(q), f"topic {q}"), "test") for q in range(1, 8)])
        service = PoolService(store)
        service.create_pool("p", params={"depth": 40}, judging_order="mtf", seed=2)
        grade = {}
        for q in range(1, 8):
            topic = service.pool_topic("p", str(q))
            for docno in store.documents.docnos_of(topic.doc_ids).values():
                grade[str(q), docno] = int(rng.random() < 0.15)
        for q in ("1", "2", "3", "4"):
            for (qid, docno), g in grade.items():
                if qid == q:
                    judge(store, qid, docno, g)
        assert service.project_calibration("p") is None  # four topics judged whole: too few
        order = service.open_judging_order("p", "7")
        for _ in range(20):  # topic 7 judged in the pool's order, 20 documents
            doc = order.next_doc()
            docno = store.documents.docnos_of([doc])[doc]
            judge(store, "7", docno, grade["7", docno])
            order.record(doc, grade["7", docno], grade["7", docno] >= 1)
        before = service.estimate_relevant("p", "7")
        assert before.note.startswith("built in")
        for (qid, docno), g in grade.items():
            if qid == "5":
                judge(store, qid, docno, g)
        calibration = service.project_calibration("p")
        assert calibration is not None and "5 topics of this project" in calibration.source
        # apart: the five topics replayed in mtf order with the grades given
        info = store.pools.get("p")
        lists = store.runs.ranked_lists(qids=[str(q) for q in range(1, 6)])
        replays = []
        for q in range(1, 6):
            ids = store.documents.intern([d for (qid, d) in grade if qid == str(q)])
            qrels = {
                str(q): (np.array(list(ids.values())), np.array([grade[str(q), d] for d in ids]))
            }
            run_lists = {
                r: lists.runs[r].get(str(q), (np.empty(0, np.int64),))[0] for r in info.runs
            }
            replays.append(
                replay_topic("mtf", service.pool_topic("p", str(q)), run_lists, qrels, 2)
            )
        expected = fit_calibration(
            calibration_cases({"mtf": replays}), "apart", prior=builtin_calibration()
        )
        assert calibration.low == expected.low and calibration.high == expected.high
        after = service.estimate_relevant("p", "7")
        curve = service.judging_curve("p", "7")
        fit = fit_curve(
            curve, store.pools.sizes("p")["7"], order="mtf", qid="7",
            seed=case_seed(0, "7", len(curve)), calibration=expected,
        )  # fmt: skip
        assert (after.low, after.high) == (fit.estimate().low, fit.estimate().high)
        assert after.note == calibration.source
        # the stopping advice is the rule's at its last check: after every fiftieth of the
        # pool, rounded up (every third judgment here: the 18th, not the 20th)
        size = store.pools.sizes("p")["7"]
        assert math.ceil(size / 50) == 3 and len(curve) == 20
        advised = service.estimate_relevant("p", "7", stop=(0.8, 0.95)).advice
        checked = fit_curve(
            curve[:18], size, order="mtf", qid="7", seed=case_seed(0, "7", 18),
            calibration=expected,
        ).stop_advice(0.8, 0.95)  # fmt: skip
        assert not checked.stop
        assert advised == replace(checked, more=max(checked.more - 2, 1))
    finally:
        store.close()
