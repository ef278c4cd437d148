"""Which judgment counts: the one rule, its vectorised form and its replay agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgeapp.records import JudgmentRows, Topic
from judgeapp.services.policy import NEWEST, JudgmentPolicy, effective_judgments, qrels_rows
from judgeapp.store import JudgmentState, Store

# a judgment: (topic, document, assessor, grade), listed in the order they were changed
judgments = st.lists(
    st.tuples(
        st.sampled_from(["1", "10", "2"]),
        st.integers(1, 6),
        st.integers(1, 3),
        st.integers(-1, 3),
    ),
    max_size=40,
)


def rows_of(changes: list[tuple[str, int, int, int]]) -> JudgmentRows:
    """What the store hands a policy: the current judgment of each (topic, doc, assessor),
    grouped by topic and document, the least recently changed first."""
    current: dict[tuple[str, int, int], tuple[int, int]] = {}
    for seq, (q, d, a, g) in enumerate(changes):
        current[(q, d, a)] = (g, seq)
    ordered = sorted(current.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[1][1]))
    qids = [k[0] for k, _ in ordered]
    starts = [i for i in range(len(qids)) if i == 0 or qids[i] != qids[i - 1]]
    return JudgmentRows(
        qids=[qids[i] for i in starts],
        bounds=np.array([*starts, len(qids)], dtype=np.int64),
        doc_ids=np.array([k[1] for k, _ in ordered], dtype=np.int64),
        assessor_ids=np.array([k[2] for k, _ in ordered], dtype=np.int64),
        grades=np.array([v[0] for _, v in ordered], dtype=np.int64),
    )


class Generic(JudgmentPolicy):
    """NEWEST's rule through the base class's generic path (`choose` per document)."""

    choose = NEWEST.choose


@settings(max_examples=200, deadline=None)
@given(judgments)
def test_newest_vectorised_equals_its_rule_and_its_replay(changes):
    rows = rows_of(changes)
    fast, slow = NEWEST.select(rows), Generic().select(rows)
    assert fast.qids == slow.qids and fast.bounds.tolist() == slow.bounds.tolist()
    assert fast.doc_ids.tolist() == slow.doc_ids.tolist()
    assert fast.grades.tolist() == slow.grades.tolist()
    # the replay of the same history ends where the current judgments are
    final: dict[tuple[str, int], int | None] = {}
    events = (((q, d), a, g) for q, d, a, g in changes)
    for key, _a, _before, after in NEWEST.replay(events):
        final[key] = after
    expected = {
        (q, d): g
        for q, (ids, grades) in fast.arrays().topics.items()
        for d, g in zip(ids.tolist(), grades.tolist(), strict=True)
    }
    assert {k: v for k, v in final.items() if v is not None} == expected


def test_the_most_recently_changed_judgment_counts_in_evaluation_and_export(project_db):
    with Store.open(project_db) as store:
        store.topics.put([(Topic("1", "one"), "test")])
        ids = store.documents.intern(["a", "b"])
        alice, bob = store.team.assessor("alice").id, store.team.assessor("bob").id
        store.judgments.record("1", ids["a"], alice, JudgmentState(2))
        store.judgments.record("1", ids["a"], bob, JudgmentState(0))  # newer: counts
        store.judgments.record("1", ids["b"], bob, JudgmentState(1))
        store.judgments.record("1", ids["b"], alice, JudgmentState(3))  # newer: counts
        assert qrels_rows(store) == [("1", "a", 0), ("1", "b", 3)]
        store.judgments.record("1", ids["a"], alice, JudgmentState(1, note="changed my mind"))
        assert qrels_rows(store) == [("1", "a", 1), ("1", "b", 3)]
        docs, grades = effective_judgments(store).topics["1"]
        assert dict(zip(docs.tolist(), grades.tolist(), strict=True)) == {
            ids["a"]: 1,
            ids["b"]: 3,
        }
        # bob's judgments alone
        assert qrels_rows(store, ["bob"]) == [("1", "a", 0), ("1", "b", 1)]
        # removing alice's judgment of a brings bob's back
        store.judgments.record("1", ids["a"], alice, JudgmentState(None))
        assert qrels_rows(store) == [("1", "a", 0), ("1", "b", 3)]


def test_each_policy_chooses_as_defined(project_db):
    """Three people, an imported qrels source, an automatic judge and an adjudicator judge
    a few documents; each policy's grade per document, worked out by hand."""
    from judgeapp.commands import POLICY_HELP
    from judgeapp.services.policy import POLICIES, PolicyError, parse_policy

    with Store.open(project_db) as store:
        store.topics.put([(Topic("1", "one"), "test")])
        ids = store.documents.intern(["a", "b", "c", "d"])
        people = {n: store.team.assessor(n).id for n in ("ann", "bob", "cid")}
        qrels = store.team.assessor("qrels", kind="source").id
        robot = store.team.assessor("robot", kind="automatic").id
        judge = store.team.assessor("adj", kind="adjudicator").id

        def put(doc: str, who: int, grade: int) -> None:
            store.judgments.record("1", ids[doc], who, JudgmentState(grade))

        # a: 0, 2, 2 by people (robot says 3): majority 2, max 2, min 0, median 2
        for who, g in (("ann", 0), ("bob", 2), ("cid", 2)):
            put("a", people[who], g)
        put("a", robot, 3)
        # b: 1 and 3 (a tie), the source says 0: majority 0 (ties to the lower), median 1
        put("b", people["ann"], 1)
        put("b", people["bob"], 3)
        put("b", qrels, 0)
        # c: only the robot: it votes, having no one else
        put("c", robot, 2)
        # d: 0 and 1, then the adjudicator decides 1
        put("d", people["ann"], 0)
        put("d", people["cid"], 1)
        put("d", judge, 1)
        expected = {
            "newest": {"a": 3, "b": 0, "c": 2, "d": 1},
            "majority": {"a": 2, "b": 0, "c": 2, "d": 0},
            "max": {"a": 2, "b": 3, "c": 2, "d": 1},
            "min": {"a": 0, "b": 0, "c": 2, "d": 0},
            "median": {"a": 2, "b": 1, "c": 2, "d": 0},
            "adjudicated": {"a": 2, "b": 0, "c": 2, "d": 1},
            "assessor:bob": {"a": 2, "b": 3},
            "qrels": {"b": 0},
        }
        for name, grades in expected.items():
            got = {d: g for _q, d, g in qrels_rows(store, policy=parse_policy(name))}
            assert got == grades, name
        # the vectorised rules agree with the replay of the same history, for every policy
        for name in expected:
            policy = parse_policy(name).bind(store)
            events = (((q, d), a, g) for q, d, a, g in store.history.events())
            final = {}
            for key, _a, _b, after in policy.replay(events):
                final[key] = after
            docnos = store.documents.docnos_of([d for _q, d in final])
            replayed = {docnos[d]: g for (_q, d), g in final.items() if g is not None}
            assert replayed == expected[name], name
        with pytest.raises(PolicyError, match="no assessor or judgment source named 'zed'"):
            qrels_rows(store, policy=parse_policy("assessor:zed"))
    assert all(name in POLICY_HELP for name in POLICIES)
