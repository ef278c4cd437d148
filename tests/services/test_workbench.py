"""The workbench services without Qt: topic rows, the judging queue, resuming."""

from __future__ import annotations

import numpy as np
import pytest

from judgeapp.records import Document, RankedTopic, RunFile, Topic
from judgeapp.services.workbench import Workbench
from judgeapp.store import RunImport, Store


def run(tag: str, topics: dict[str, list[str]]) -> RunImport:
    ranked = {
        qid: RankedTopic(docs, np.arange(len(docs), 0, -1, dtype=np.float64), np.arange(len(docs)))
        for qid, docs in topics.items()
    }
    return RunImport(RunFile(f"{tag}.run", tag, ranked, sum(map(len, topics.values()))))


@pytest.fixture
def workbench(project_db):
    store = Store.open(project_db)
    store.topics.put(
        [(Topic("1", "shock waves", "effects of shock waves"), None), (Topic("2", "heat"), None)]
    )
    store.documents.put(
        (Document(f"d{i}", f"title {i}", f"text {i} shock" if i % 2 else f"text {i}"), None)
        for i in range(12)
    )
    store.runs.add(
        [
            run("A", {"1": ["d1", "d2", "d3", "d4"], "2": ["d5", "d6"]}),
            run("B", {"1": ["d3", "d7", "d8", "d1"], "2": ["d6", "d9"]}),
        ]
    )
    wb = Workbench(store, "alice")
    yield wb
    store.close()


def test_topic_rows_count_pool_and_this_assessors_judgments(workbench):
    wb = workbench
    assert [(r.qid, r.pool_size, r.judged) for r in wb.topic_rows()] == [("1", 0, 0), ("2", 0, 0)]
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 3}, "rank")
    assert wb.pool_name() == "p"
    queue = wb.queue("1")
    ids = wb.store.documents.docno_ids(["d1", "d3", "d8"])
    queue.record(ids["d1"], 2)
    queue.record(ids["d3"], 0)
    other = Workbench(wb.store, "bob")  # another assessor's judgments do not count for alice
    other.queue("1").record(ids["d8"], 3)
    rows = {r.qid: r for r in wb.topic_rows()}
    # pool of topic 1 at depth 3: d1 d2 d3 (A) and d3 d7 d8 (B)
    assert (rows["1"].pool_size, rows["1"].judged, rows["1"].relevant) == (5, 2, 1)
    assert rows["1"].progress == pytest.approx(2 / 5)
    assert (rows["2"].pool_size, rows["2"].judged) == (3, 0)
    assert wb.topic_row("1") == rows["1"]


def test_has_judged_asks_the_store_whether_one_judgment_exists(workbench, monkeypatch):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 3}, "rank")
    ids = wb.store.documents.docno_ids(["d1", "d3"])
    mine, bobs = wb.queue("1"), Workbench(wb.store, "bob").queue("1")

    def judged(*who: str) -> tuple[bool, ...]:
        with monkeypatch.context() as m:  # one EXISTS query: no judgment read
            m.setattr(wb.store.judgments, "all", None)
            return tuple(wb.has_judged(a) for a in who)

    assert judged("alice", "bob") == (False, False)
    bobs.record(ids["d3"], 0)
    assert judged("alice", "bob") == (False, True)
    change = mine.record(ids["d1"], 2)
    assert judged("alice", "bob") == (True, True)
    mine.restore(change, undo=True)  # taken back: alice has none left
    assert judged("alice", "bob") == (False, True)


def test_queue_in_rank_order_resumes_with_judged_documents_first(workbench):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 3}, "rank")
    queue = wb.queue("1")
    docnos = [item.docno for item in queue.items]
    # round robin by rank: A1 B1 A2 B2 A3 B3 (d3 appears once, at its first place)
    assert docnos == ["d1", "d3", "d2", "d7", "d8"]
    assert all(item.runs for item in queue.items)  # rank order may show the runs
    assert queue.items[1].runs == ("A", "B") and queue.items[1].best_rank == 1
    first = queue.first_unjudged()
    assert queue.item(first).docno == "d1"
    queue.record(first, 1)
    second = queue.next_unjudged(first)
    assert queue.item(second).docno == "d3"
    queue.record(queue.store.documents.docno_ids(["d7"])["d7"], 0)  # judged out of order
    again = wb.queue("1")  # reopening: judged first, in judging order, then the rest
    assert [i.docno for i in again.items] == ["d1", "d7", "d3", "d2", "d8"]
    assert again.item(again.first_unjudged()).docno == "d3"
    assert again.counts() == (5, 2, 1)


def test_undo_through_restore_puts_the_document_back_in_the_order(workbench):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 2}, "rank")
    queue = wb.queue("1")
    doc = queue.first_unjudged()
    change = queue.record(doc, 2, note="n")
    assert queue.next_unjudged() != doc
    queue.restore(change, undo=True)
    assert queue.item(doc).grade is None and queue.item(doc).note == ""
    assert queue.next_unjudged() == doc
    queue.restore(change, undo=False)
    assert queue.item(doc).grade == 2 and queue.item(doc).note == "n"
    assert wb.judging.state("1", doc).grade == 2


def test_blind_queue_carries_no_runs_or_ranks(workbench):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 4}, "blind", seed=3)
    queue = wb.queue("1")
    assert queue.blind
    assert all(item.best_rank is None and item.runs == () for item in queue.items)
    assert sorted(i.docno for i in queue.items) == ["d1", "d2", "d3", "d4", "d7", "d8"]


def test_skip_search_and_neighbours(workbench):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 3}, "rank")
    queue = wb.queue("1")
    first = queue.first_unjudged()
    shown = queue.skip(first)
    assert shown != first and queue.item(first).grade is None
    assert queue.next_unjudged(shown) not in (first, shown)
    for item in list(queue.items):
        if item.doc_id != first:
            queue.record(item.doc_id, 0)
    assert queue.next_unjudged() == first  # only the skipped one is left: it comes back
    queue.record(first, 1)
    assert queue.next_unjudged() is None
    # the search box: the pool's texts and their own index, read together; docno, title
    # or text, every word, case-insensitive
    records, index = wb.pool_texts(queue)
    assert set(records) <= {i.doc_id for i in queue.items}
    assert sorted(queue.item(d).docno for d in index.matches("SHOCK")) == ["d1", "d3", "d7"]
    assert [queue.item(d).docno for d in index.matches("text 3")] == ["d3"]
    index.close()
    assert queue.neighbour(queue.items[0].doc_id, -1) == queue.items[0].doc_id
    assert queue.neighbour(queue.items[0].doc_id, +1) == queue.items[1].doc_id


def test_last_topic_and_terms_are_kept_per_assessor(workbench):
    wb = workbench
    assert wb.last_topic() is None
    wb.remember_topic("2")
    wb.set_user_terms("2", "boundary layer, heat")
    assert Workbench(wb.store, "alice").last_topic() == "2"
    assert Workbench(wb.store, "bob").last_topic() is None
    assert wb.user_terms("2") == "boundary layer, heat"


def test_export_writes_trec_qrels(workbench, tmp_path):
    wb = workbench
    wb.build_pool("p", ["A", "B"], "depth", {"depth": 1}, "rank")
    queue = wb.queue("1")
    for item in queue.items:
        queue.record(item.doc_id, 1 if item.docno == "d1" else 0)
    out = tmp_path / "q.txt"
    assert wb.export_qrels(out, ["alice"]) == 2
    assert out.read_text().splitlines() == ["1 0 d1 1", "1 0 d3 0"]


def test_state_is_read_through_one_connection_counting_the_pool_once(workbench):
    """What the window shows of a project is read in one transaction of one connection
    (on PostgreSQL each read of its own costs a transaction's round trips), and the pools'
    documents are counted once, for the topic rows: with two pools and nothing judged, no
    pool is counted to find the one being worked through (five counts over the pool table
    made half of a PostgreSQL open at TREC size). With judgments that pool is still found."""
    from sqlalchemy import event

    wb = workbench
    for name, depth in (("shallow", 2), ("deep", 4)):
        wb.pooling.create_pool(
            name, runs=["A", "B"], strategy="depth", params={"depth": depth}, judging_order="rank"
        )
    engine = wb.store.db.engine
    checkouts: list[int] = []
    counts: list[str] = []

    def checkout(*_args) -> None:
        checkouts.append(1)

    def statement(_conn, _cursor, sql, *_args) -> None:
        if "pool_docs" in sql and "count(" in sql.lower():
            counts.append(sql)

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "before_cursor_execute", statement)
    try:
        state = wb.state()
    finally:
        event.remove(engine, "checkout", checkout)
        event.remove(engine, "before_cursor_execute", statement)
    assert state.pool is not None and state.pool.name == "deep"  # nothing judged: the newest
    assert {r.qid: r.pool_size for r in state.topic_rows} == {"1": 6, "2": 3}
    assert len(checkouts) == 1
    assert len(counts) == 1
    # alice judged in both: the shallow pool holds the larger share of its documents judged
    wb.judging.record("1", "d1", 2)
    again = Workbench(wb.store, "alice").state()
    assert again.pool is not None and again.pool.name == "shallow"
    assert {r.qid: (r.pool_size, r.judged) for r in again.topic_rows} == {"1": (4, 1), "2": (3, 0)}
