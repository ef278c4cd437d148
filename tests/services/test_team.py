"""Assignments with overlap, balanced by pool size; roles and blind mode."""

from __future__ import annotations

from collections import Counter

import pytest

from judgeapp.cli import main
from judgeapp.services import team
from judgeapp.services.judging import JudgingService
from judgeapp.store import Store
from tests.load_driver import prepare, write_inputs


def test_plan_deals_every_topic_with_overlap_and_balances_pool_sizes():
    sizes = {str(q): 50 + 13 * q for q in range(1, 21)}
    plan = team.plan_assignments(sizes, ["a", "b", "c"], per_topic=1, overlap=0.2, seed=4)
    per_topic = Counter(p.qid for p in plan)
    assert set(per_topic) == set(sizes)
    assert sorted(per_topic.values()) == [1] * 16 + [2] * 4  # 20% of 20 topics shared
    assert {p.qid for p in plan if p.shared} == {q for q, n in per_topic.items() if n == 2}
    load = Counter()
    for p in plan:
        load[p.assessor] += sizes[p.qid]
    # dealt largest first to the least loaded: no two assessors differ by more than the
    # largest topic
    assert max(load.values()) - min(load.values()) <= max(sizes.values())
    # seeded: the same seed, the same plan; another seed, other shared topics
    assert plan == team.plan_assignments(sizes, ["a", "b", "c"], per_topic=1, overlap=0.2, seed=4)
    other = team.plan_assignments(sizes, ["a", "b", "c"], per_topic=1, overlap=0.2, seed=5)
    assert {p.qid for p in other if p.shared} != {p.qid for p in plan if p.shared}
    with pytest.raises(team.TeamError, match="need at least that many assessors"):
        team.plan_assignments(sizes, ["a"], per_topic=1, overlap=0.1)


def test_assign_keeps_judged_topics_roles_and_blind_mode(tmp_path, project_db, capsys):
    inputs = write_inputs(tmp_path / "in", topics=10, docs=20, run_topics=1)
    prepare(project_db, inputs, docs=20)
    assert (
        main(["assign", project_db, "--topics", "1-10", "--assessors", "ann,bob", "--seed", "1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "ann: 5 topics (0 shared), 100 pooled documents" in out
    assert "blind mode on for assessors" in out
    with Store.open(project_db) as store:
        first = store.team.assignments()
        anns = [q for q, a, _s in first if a == "ann"]
        JudgingService(store, "ann").record(anns[0], f"T{anns[0]}-D0", 1)
        assert team.role_of(store, "ann") == "assessor" and team.is_blind(store, "ann")
        assert team.role_of(store, "nobody") == "evaluator"
    # a third assessor arrives, with overlap: ann keeps the topic she judged
    assert (
        main(
            [
                "assign",
                project_db,
                "--topics",
                "1-10",
                "--assessors",
                "ann,bob,cid",
                "--overlap",
                "0.3",
                "--seed",
                "2",
            ]
        )
        == 0
    )
    with Store.open(project_db) as store:
        again = store.team.assignments()
        assert (anns[0], "ann") in {(q, a) for q, a, _s in again}
        assert Counter(q for q, _a, _s in again).most_common(1)[0][1] == 2
        assert sum(1 for q, _a, s in again if s) == 3 * 2  # three shared topics, two each
        assert {a for _q, a, _s in again} == {"ann", "bob", "cid"}
    capsys.readouterr()
    assert main(["team", "role", "ann", "evaluator", "--db", project_db]) == 0
    assert "ann: evaluator" in capsys.readouterr().out
    assert main(["assign", project_db, "--blind", "off"]) == 0
    with Store.open(project_db) as store:
        assert not team.is_blind(store, "bob") and team.role_of(store, "ann") == "evaluator"


def test_automatic_scores_order_the_pool_likely_relevant_first(tmp_path, project_db):
    from judgeapp.services.pools import PoolService

    inputs = write_inputs(tmp_path / "in", topics=2, docs=8, run_topics=1)
    prepare(project_db, inputs, docs=8)
    llm = tmp_path / "llm.qrels"
    # an LLM scored four of topic 1's eight pooled documents
    llm.write_text("1 0 T1-D5 2 0.95\n1 0 T1-D2 1 0.60\n1 0 T1-D7 0 0.05\n1 0 T1-D0 1 0.60\n")
    assert (
        main(
            [
                "import",
                "judgments",
                project_db,
                str(llm),
                "--assessor",
                "llm",
                "--judge-kind",
                "automatic",
            ]
        )
        == 0
    )
    with Store.open(project_db) as store:
        pools = PoolService(store)
        pool = store.pools.names()[-1]
        store.team.assessor("ann")  # judges the pool; has judged nothing yet
        order = pools.open_judging_order(pool, "1", order="suggested", assessors=["ann"])
        docnos = store.documents.docnos_of(order.upcoming(8))
        seen = [docnos[d] for d in order.upcoming(8)]
    # scored highest first (ties in rank order: D0 before D2), then the rest by rank,
    # the one scored lowest (0.05) still before the unscored
    assert seen == ["T1-D5", "T1-D0", "T1-D2", "T1-D7", "T1-D1", "T1-D3", "T1-D4", "T1-D6"]
