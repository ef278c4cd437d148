"""Round trips through the store: topics, runs, judgments with history, effective judgments."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy.exc import DBAPIError

from judgeapp.formats.errors import FormatError
from judgeapp.records import Document, QrelsFile, RankedTopic, RunFile, Topic
from judgeapp.services.overview import project_info
from judgeapp.services.policy import effective_judgments, qrels_rows
from judgeapp.store import JudgmentState, RunImport, Store, StoreError
from judgeapp.store.documents import DOC_BATCH
from judgeapp.store.topics import TopicExists


def make_run(tag: str, topics: dict[str, list[tuple[str, float]]]) -> RunFile:
    ranked = {}
    line = 0
    for qid, entries in topics.items():
        ordered = sorted(((s, d) for d, s in entries), reverse=True)
        ranked[qid] = RankedTopic(
            [d for _, d in ordered],
            np.array([s for s, _ in ordered]),
            np.arange(line + 1, line + 1 + len(entries)),
        )
        line += len(entries)
    return RunFile(f"{tag}.run", tag, ranked, line)


def qrels(rows: list[tuple[str, str, int]]) -> QrelsFile:
    return QrelsFile(
        "x.qrels",
        [r[0] for r in rows],
        [r[1] for r in rows],
        np.array([r[2] for r in rows], dtype=np.int64),
        np.arange(1, len(rows) + 1),
    )


def topics(store: Store, *qids: str) -> None:
    """Topics for people to judge (the project refuses a person's judgment of a topic it
    lacks)."""
    store.topics.put([(Topic(q, f"topic {q}"), "test") for q in qids])


@pytest.fixture
def store(project_db):
    s = Store.open(project_db)
    yield s
    s.close()


def test_ranked_lists_round_trip_in_stored_order(store):
    a = make_run("A", {"1": [("d1", 1.0), ("d2", 3.0), ("d3", 2.0)], "2": [("d9", 0.5)]})
    b = make_run("B", {"1": [("d3", 5.0), ("d4", 4.0)]})
    store.runs.add([RunImport(a, sha256="x"), RunImport(b, name="bee")])
    lists = store.runs.ranked_lists()
    assert list(lists.runs) == ["A", "bee"]
    names = store.documents.docnos_of(np.concatenate([ids for ids, _ in lists.runs["A"].values()]))
    ids, scores = lists.runs["A"]["1"]
    assert [names[i] for i in ids] == ["d2", "d3", "d1"]
    assert scores.tolist() == [3.0, 2.0, 1.0]
    # the same docno has the same id in every run
    assert lists.runs["bee"]["1"][0][0] == ids[1]
    assert lists.n_entries == 6
    only = store.runs.ranked_lists(runs=["bee"], qids=["1"])
    assert list(only.runs) == ["bee"] and list(only.runs["bee"]) == ["1"]
    info = {r.name: r for r in store.runs.all()}
    assert info["A"].n_entries == 4 and info["A"].n_topics == 2 and info["A"].source_sha256 == "x"


def test_run_name_clash_is_refused_whole(store):
    store.runs.add([RunImport(make_run("A", {"1": [("d1", 1.0)]}))])
    with pytest.raises(StoreError, match="already has a run named 'A'"):
        store.runs.add(
            [RunImport(make_run("B", {"1": [("x", 1.0)]})), RunImport(make_run("A", {}))]
        )
    assert [r.name for r in store.runs.all()] == ["A"]  # B did not land either
    assert store.documents.docno_ids(["x"]) == {}
    store.runs.add([RunImport(make_run("A", {"1": [("d7", 1.0)]}))], replace=True)
    ids, _ = store.runs.ranked_lists().runs["A"]["1"]
    assert store.documents.docnos_of(ids) == {int(ids[0]): "d7"}


def test_judgment_changes_are_durable_and_recorded_in_history(tmp_path):
    path = tmp_path / "p.db"
    store = Store.open(path)
    topics(store, "7")
    alice = store.team.assessor("alice")
    doc = store.documents.intern(["d1"])["d1"]
    first = store.judgments.record("7", doc, alice.id, JudgmentState(2, "ok"), time_spent=3.0)
    assert first.before.grade is None and first.after.grade == 2
    assert first.changes.topics == {"7"} and first.changes.judged == (("7", doc),)
    second = store.judgments.record("7", doc, alice.id, JudgmentState(0, "no"), time_spent=2.0)
    assert second.before == JudgmentState(2, "ok", False)
    store.close()
    # a new process sees exactly what was committed
    reopened = Store.open(path)
    [rec] = reopened.judgments.all()
    assert (rec.qid, rec.docno, rec.assessor, rec.grade, rec.note) == ("7", "d1", "alice", 0, "no")
    assert rec.time_spent == pytest.approx(5.0)
    gone = reopened.judgments.record("7", doc, alice.id, JudgmentState(None), origin="undo")
    assert gone.before.grade == 0
    assert reopened.judgments.all() == []
    events = reopened.history.rows(qid="7")
    assert [(e["action"], e["origin"], e["grade"], e["previous_grade"]) for e in events] == [
        ("create", "judge", 2, None),
        ("update", "judge", 0, 2),
        ("delete", "undo", None, 0),
    ]
    reopened.close()


def test_a_judgment_the_database_refuses_says_why_every_time(store):
    """A trigger refusing judgments (as a team's lock would): each write fails with the
    server's own reason and leaves nothing. On PostgreSQL the write is pipelined with its
    COMMIT; the rollback used to go into the aborted pipeline and replace the reason with
    psycopg's "pipeline aborted" (about one write in five)."""
    topics(store, "7")
    alice = store.team.assessor("alice")
    docs = store.documents.intern([f"d{i}" for i in range(30)])
    with store.db.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE TRIGGER refuse BEFORE INSERT ON judgments BEGIN "
                "SELECT RAISE(ABORT, 'judging is closed for this topic'); END"
            )
        else:
            conn.exec_driver_sql(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'judging is closed for this topic'; END $$"
            )
            conn.exec_driver_sql(
                "CREATE TRIGGER refuse BEFORE INSERT ON judgments "
                "FOR EACH ROW EXECUTE FUNCTION refuse()"
            )
    for doc in docs.values():
        with pytest.raises(DBAPIError, match="judging is closed for this topic"):
            store.judgments.record("7", doc, alice.id, JudgmentState(2))
    assert store.judgments.all() == [] and store.history.rows(qid="7") == []
    # the sessions are whole again: a judgment the trigger allows lands
    with store.db.begin() as conn:
        conn.exec_driver_sql(
            "DROP TRIGGER refuse" + ("" if conn.dialect.name == "sqlite" else " ON judgments")
        )
    store.judgments.record("7", docs["d0"], alice.id, JudgmentState(1))
    assert [(r.docno, r.grade) for r in store.judgments.all()] == [("d0", 1)]


def test_history_is_append_only(store):
    topics(store, "1")
    alice = store.team.assessor("alice")
    doc = store.documents.intern(["d1"])["d1"]
    store.judgments.record("1", doc, alice.id, JudgmentState(1))
    with pytest.raises(DBAPIError, match="append-only"), store.db.begin() as conn:
        conn.exec_driver_sql("UPDATE judgment_history SET grade = 3")
    with pytest.raises(DBAPIError, match="append-only"), store.db.begin() as conn:
        conn.exec_driver_sql("DELETE FROM judgment_history")
    assert [e["grade"] for e in store.history.rows()] == [1]


def test_effective_judgments_take_the_newest_per_document(store):
    store.judgments.import_qrels(
        [(qrels([("1", "a", 1), ("1", "b", 0), ("2", "a", 2)]), "official")]
    )
    topics(store, "1")
    bob = store.team.assessor("bob")
    ids = store.documents.docno_ids(["a", "b"])
    store.judgments.record("1", ids["b"], bob.id, JudgmentState(3))
    assert qrels_rows(store) == [("1", "a", 1), ("1", "b", 3), ("2", "a", 2)]
    assert qrels_rows(store, ["official"]) == [("1", "a", 1), ("1", "b", 0), ("2", "a", 2)]
    assert qrels_rows(store, ["bob"]) == [("1", "b", 3)]
    arrays = effective_judgments(store)
    assert sorted(arrays.topics) == ["1", "2"]
    doc_ids, grades = arrays.topics["1"]
    assert dict(zip(doc_ids.tolist(), grades.tolist(), strict=True)) == {ids["a"]: 1, ids["b"]: 3}
    with pytest.raises(StoreError, match="no assessor"):
        qrels_rows(store, ["nobody"])


def test_judgment_arrays_agree_with_the_exported_qrels_for_any_assessors(store):
    # two readings of "effective": the arrays the evaluation reads (a sort) and the rows
    # `export qrels` writes (a window function); many changes by three assessors
    rng = np.random.default_rng(3)
    topics(store, "1", "2", "3")
    names = ["ann", "bob", "cy"]
    people = {n: store.team.assessor(n).id for n in names}
    ids = list(store.documents.intern([f"d{i}" for i in range(12)]).values())
    for _ in range(300):
        store.judgments.record(
            str(rng.integers(1, 4)),
            int(rng.choice(ids)),
            people[str(rng.choice(names))],
            JudgmentState(int(rng.integers(0, 4))),
        )
    names_of = store.documents.docnos_of(ids)
    for chosen in (None, ["ann"], ["bob", "cy"]):
        expected = qrels_rows(store, chosen)
        arrays = effective_judgments(store, chosen).topics
        got = [
            (qid, names_of[int(d)], int(g))
            for qid, (docs, grades) in arrays.items()
            for d, g in zip(docs, grades, strict=True)
        ]
        assert sorted(got) == sorted(expected)
        for qid in ("1", "2", "3"):
            one = effective_judgments(store, chosen, qid=qid).topics
            assert [str(q) for q in one] == ([qid] if qid in arrays else [])
            if qid in arrays:
                assert np.array_equal(one[qid][0], arrays[qid][0])
                assert np.array_equal(one[qid][1], arrays[qid][1])


def test_reimporting_a_qrels_source_needs_replace_and_records_updates(store):
    store.judgments.import_qrels([(qrels([("1", "a", 1), ("1", "b", 0)]), "src")])
    with pytest.raises(StoreError, match="has 2 judgments already"):
        store.judgments.import_qrels([(qrels([("1", "a", 0)]), "src")])
    changes = store.judgments.import_qrels(
        [(qrels([("1", "a", 0), ("1", "b", 0)]), "src")], replace=True
    )
    assert changes.topics == {"1"}
    assert qrels_rows(store) == [("1", "a", 0), ("1", "b", 0)]
    assert [(e["action"], e["grade"], e["previous_grade"]) for e in store.history.rows()] == [
        ("create", 1, None),
        ("create", 0, None),
        ("update", 0, 1),
    ]


def test_documents_stream_lands_whole_or_not_at_all(tmp_path):
    path = tmp_path / "p.db"
    Store.open(path).close()
    before = path.read_bytes()

    def docs():
        for i in range(5000):
            yield Document(f"D{i}", f"title {i}", "text", {}, i + 1), "c.txt"
        raise FormatError("c.txt", 5001, "unterminated <DOC>")

    store = Store.open(path)
    with pytest.raises(FormatError, match=r"c\.txt:5001: unterminated"):
        store.documents.put(docs())
    assert store.documents.count() == 0
    store.close()
    assert path.read_bytes() == before

    store = Store.open(path)
    n = store.documents.put((Document(f"D{i}", "t", "x"), "c.txt") for i in range(10))
    assert n == 10 and store.documents.get("D3").title == "t"
    with pytest.raises(FormatError, match="duplicate docno D1"):
        store.documents.put(
            [(Document("D1", "new"), "a.txt"), (Document("D1", "again", line=9), "b.txt")]
        )
    assert store.documents.get("D1").title == "t"
    store.close()


def test_a_duplicate_docno_is_reported_where_it_stands_in_the_stream(project_db):
    """The store checks docnos a batch at a time (in memory that does not grow with the
    stream; the lines wait in a temporary table), yet reports the first duplicate as if it
    checked each document on arrival: before a later failure of the stream, with the
    readers' message within one file. On both back ends."""
    store = Store.open(project_db)

    def docs(failure_after: int):
        for i in range(3 * DOC_BATCH):
            yield Document(f"D{i % (2 * DOC_BATCH + 7)}", "t", "x", {}, i + 1), "c.sgml"
            if i == failure_after:
                raise FormatError("c.sgml", i + 2, "document has no <DOCNO>")

    second = 2 * DOC_BATCH + 7  # where D0 comes again, in the second batch
    duplicate = f"c.sgml:{second + 1}: duplicate docno D0 at lines 1 and {second + 1}"
    with pytest.raises(FormatError) as caught:
        store.documents.put(docs(failure_after=3 * DOC_BATCH))  # no failure
    assert str(caught.value) == duplicate
    with pytest.raises(FormatError) as caught:
        store.documents.put(docs(failure_after=second + 3))  # fails after the duplicate
    assert str(caught.value) == duplicate
    with pytest.raises(FormatError) as caught:
        store.documents.put(docs(failure_after=second - 1))  # fails before it
    assert str(caught.value) == f"c.sgml:{second + 1}: document has no <DOCNO>"
    assert store.documents.count() == 0
    with pytest.raises(FormatError) as caught:  # within one batch, across two files
        store.documents.put([(Document("a", line=4), "x.sgml"), (Document("a", line=2), "y")])
    assert str(caught.value) == "y:2: duplicate docno a (also in x.sgml)"
    store.documents.put([(Document("a", "first"), None)])
    store.documents.put([(Document("a", "again"), None)])  # a later import replaces it
    assert store.documents.get("a").title == "again"
    store.close()


def test_topics_replace_by_qid_and_sort_in_byte_order(store):
    store.topics.put([(Topic("10", "ten"), "a"), (Topic("9", "nine"), "a"), (Topic("01"), "a")])
    # the same statement again changes nothing; another one needs replacing
    assert store.topics.put([(Topic("9", "nine"), "c")]).empty
    with pytest.raises(TopicExists, match="topic 9 is in the project already"):
        store.topics.put([(Topic("9", "NINE", fields={"k": [1, 2]}), "b")])
    assert store.topics.get("9").title == "nine"
    store.topics.put([(Topic("9", "NINE", fields={"k": [1, 2]}), "b")], replace=True)
    topics = store.topics.all()
    assert [t.qid for t in topics] == ["01", "10", "9"]
    assert store.topics.get("9").title == "NINE" and store.topics.get("9").fields == {"k": [1, 2]}
    assert store.topics.get("9").source == "b"


def test_info_reports_gaps(store):
    store.topics.put([(Topic("1", "one"), "t"), (Topic("3", "three"), "t")])
    store.runs.add([RunImport(make_run("A", {"1": [("a", 2.0), ("b", 1.0)], "2": [("c", 1)]}))])
    store.judgments.import_qrels([(qrels([("1", "a", 1), ("4", "z", 0)]), "q")])
    store.documents.put([(Document("a", "A"), "docs")])
    info = project_info(store)
    assert (info.topics, info.runs, info.ranked_entries, info.judgments) == (2, 1, 3, 2)
    assert info.run_topics_missing == ["2"]
    assert info.judged_topics_missing == ["4"]
    assert info.topics_without_runs == ["3"]
    assert info.topics_without_judgments == ["3"]
    assert info.retrieved_docs_without_text == 2  # b and c
    assert info.judged_docs_without_text == 1  # z
    by_qid = {t.qid: t for t in info.per_topic}
    assert (by_qid["1"].runs, by_qid["1"].retrieved, by_qid["1"].judged) == (1, 2, 1)
    assert by_qid["1"].relevant == 1 and by_qid["2"].title is None


def test_interning_gives_each_docno_one_id_whether_new_or_known(store):
    first = store.documents.intern(["b", "a", "c"])  # all new: ids in docno order
    assert first == {"a": 1, "b": 2, "c": 3}
    mixed = store.documents.intern(["z", "a", "y", "b"])  # some known, some new
    assert mixed["a"] == first["a"] and mixed["b"] == first["b"]
    assert len({*first.values(), mixed["z"], mixed["y"]}) == 5
    assert store.documents.docno_ids(["a", "b", "c", "y", "z", "nope"]) == {**first, **mixed}
    assert store.documents.docnos_of(mixed.values()) == {v: k for k, v in mixed.items()}


def test_reads_inside_reading_share_one_connection_of_their_thread(store):
    """`Store.reading`: every read of this thread inside the block goes through one
    connection (and transaction), another thread's reads through their own; the connection
    is given back when the block ends, also when it fails."""
    import threading

    store.topics.put([(Topic("1", "shock waves"), None)])
    elsewhere: dict[str, object] = {}

    def read_elsewhere() -> None:
        with store.db.read() as conn:
            elsewhere["conn"] = conn
        elsewhere["topics"] = [t.qid for t in store.topics.all()]

    with store.reading():
        with store.db.read() as first:
            pass
        with store.db.read() as second:
            assert second is first
        assert [t.qid for t in store.topics.all()] == ["1"]
        thread = threading.Thread(target=read_elsewhere)
        thread.start()
        thread.join()
        assert elsewhere["conn"] is not first and elsewhere["topics"] == ["1"]
        assert not first.closed
    assert first.closed  # given back to the pool
    with pytest.raises(ValueError), store.reading():
        with store.db.read() as failed:
            raise ValueError("a read that fails")
    assert failed.closed
    with store.db.read() as after:
        assert after is not failed and not after.closed
