"""Searching the collection and the pool through the full-text index (FTS5 with bm25() on
SQLite, tsvector with ts_rank on PostgreSQL), on both back ends; judgments of documents
found by search: recorded with their query, counted, exported, kept apart where judging
from the pool alone is assumed; the search log."""

from __future__ import annotations

import itertools
import json

import pytest

from judgeapp.cli import main
from judgeapp.records import TextQuery
from judgeapp.services.judging import JudgingService
from judgeapp.services.pools import PoolService
from judgeapp.services.search import PoolIndex, SearchService, parse_query
from judgeapp.store import Store

# eight documents: d1-d4 are what the run retrieves (and the depth-3 pool holds d1-d3);
# d5-d8 are only in the collection
DOCS = [
    ("d1", "Shock waves", "A shock wave ahead of a blunt body at supersonic speed."),
    ("d2", "Heat transfer", "Heat transfer in a laminar boundary layer on a flat plate."),
    ("d3", "Buckling", "Buckling of thin cylindrical shells under axial compression."),
    ("d4", "Wings", "Lift and drag of swept wings at low speed."),
    ("d5", "Shock tubes", "Shock tubes make strong shock waves; the shock speed is measured."),
    ("d6", "Turbulence", "Turbulent boundary layers and their skin friction."),
    ("d7", "Nozzles", "Flow in a supersonic nozzle with a shock inside it."),
    ("d8", "Notes", 'A "quoted" word, an apostrophe\'s and a back\\slash: none break a query.'),
]


@pytest.fixture
def project(tmp_path, project_db):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"docno": d, "title": t, "text": x}) + "\n" for d, t, x in DOCS)
    )
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\tshock waves\n2\tboundary layers\n")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n1 Q0 d4 4 0 a\n")
    for args in (
        ["init", project_db],
        ["import", "topics", project_db, str(topics)],
        ["import", "docs", project_db, str(docs)],
        ["import", "run", project_db, str(run)],
        ["pool", project_db, "--depth", "3", "--name", "p"],
    ):
        assert main(args) == 0
    return project_db


def docnos(hits) -> list[str]:
    return [h.docno for h in hits]


def test_what_a_user_types_becomes_words_and_phrases():
    assert parse_query("Shock  waves") == TextQuery((("shock",), ("waves",)))
    assert parse_query('"boundary layer" skin') == TextQuery((("boundary", "layer"), ("skin",)))
    assert parse_query("shock-wave, U.S.") == TextQuery((("shock",), ("wave",), ("u",), ("s",)))
    assert parse_query('"unclosed phrase') == TextQuery((("unclosed", "phrase"),))
    assert parse_query("turb", typing=True).prefix_last
    assert not parse_query("turb ", typing=True).prefix_last
    assert not parse_query('"turb"', typing=True).prefix_last
    assert parse_query("  ,;  ").phrases == ()
    assert parse_query("a", require_all=True).require_all


def test_the_collection_is_searched_ranked_on_both_back_ends(project):
    with Store.open(project) as store:
        hits = store.search.find(parse_query("shock"))
        # d5 says shock four times in a short text, d1 and d7 once
        assert docnos(hits)[0] == "d5" and set(docnos(hits)) == {"d1", "d5", "d7"}
        assert all(a.score >= b.score > 0 for a, b in itertools.pairwise(hits))
        assert hits[0].title == "Shock tubes"
        # any word ranks; a phrase holds its words together; stems meet (waves, wave)
        assert set(docnos(store.search.find(parse_query("nozzle friction")))) == {"d6", "d7"}
        assert docnos(store.search.find(parse_query('"boundary layer" laminar')))[0] == "d2"
        assert set(docnos(store.search.find(parse_query("wave")))) == {"d1", "d5"}
        assert docnos(store.search.find(parse_query("supersonic"), limit=1)) != []
        assert set(docnos(store.search.find(parse_query("turbul", typing=True)))) == {"d6"}
        within = parse_query("shock supersonic", require_all=True)
        assert set(docnos(store.search.find(within))) == {"d1", "d7"}
        # English function words are left out of a ranked search, unless nothing is left
        assert parse_query("the shock of it", stop_words=True).phrases == (("shock",),)
        assert parse_query("the", stop_words=True).phrases == (("the",),)
        assert parse_query('"the shock"', stop_words=True).phrases == (("the", "shock"),)
        # nothing a user types breaks the query language
        for text in ['"quoted', "apostrophe's", "back\\slash", "a OR b", "NEAR(x y)", "*", "'"]:
            store.search.find(parse_query(text, typing=True))
        assert docnos(store.search.find(parse_query("apostrophe's"))) == ["d8"]


def test_the_index_follows_documents_replaced(project, tmp_path):
    again = tmp_path / "again.jsonl"
    again.write_text(json.dumps({"docno": "d6", "title": "Now", "text": "shock everywhere"}) + "\n")
    assert main(["import", "docs", project, str(again)]) == 0
    with Store.open(project) as store:
        assert "d6" in docnos(store.search.find(parse_query("shock")))
        assert store.search.find(parse_query("friction")) == []


def test_a_document_found_by_search_is_judged_counted_and_exported(project, tmp_path, capsys):
    with Store.open(project) as store:
        alice = JudgingService(store, "alice")
        search = SearchService(store, alice.assessor.id, "alice")
        found = search.search_collection("shock tube", "1", "p")
        first = found.hits[0]
        assert (first.docno, first.rank, first.pooled, first.grade) == ("d5", 1, False, None)
        assert [(h.docno, h.pooled) for h in found.hits if h.docno == "d1"] == [("d1", True)]
        change = alice.record("1", first.doc_id, 2, query="shock tube")
        assert (change.found_by, change.query) == ("search", "shock tube")
        alice.record("1", "d1", 1)
        # judged again from the pool's side: still found by that search
        alice.record("1", first.doc_id, 3)
        again = search.search_collection("shock tube", "1", "p")
        assert [h.grade for h in again.hits if h.docno == "d5"] == [3]
        assert store.judgments.found_by_search("1") == {"1": {first.doc_id}}
        # the judgment undone (removed) and redone: made again as found by that search
        alice.restore(change, undo=True)
        assert store.judgments.found_by_search("1") == {}
        redo = alice.restore(change, undo=False)
        assert (redo.found_by, redo.query) == ("search", "shock tube")
        assert store.judgments.found_by_search("1") == {"1": {first.doc_id}}
        log = store.search.logged()
        assert [(e.assessor, e.qid, e.scope, e.query, e.results) for e in log] == [
            ("alice", "1", "collection", "shock tube", len(found.hits)),
            ("alice", "1", "collection", "shock tube", len(found.hits)),
        ]
    capsys.readouterr()
    assert main(["export", "qrels", project]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["1 0 d1 1", "1 0 d5 2"]  # redone: 2
    assert main(["export", "judgments", project]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    by_doc = {r["docno"]: r for r in lines}
    assert (by_doc["d5"]["found_by"], by_doc["d5"]["query"]) == ("search", "shock tube")
    assert (by_doc["d1"]["found_by"], by_doc["d1"]["query"]) == ("pool", None)
    assert by_doc["d1"]["origin"] == "judge"
    out = tmp_path / "j.csv"
    assert main(["export", "judgments", project, "--format", "csv", "--out", str(out)]) == 0
    header = out.read_text().splitlines()[0].split(",")
    assert header[-3:] == ["origin", "found_by", "query"]
    assert main(["export", "searches", project]) == 0
    [entry, _] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {k: entry[k] for k in ("assessor", "topic", "scope", "query")} == {
        "assessor": "alice",
        "topic": "1",
        "scope": "collection",
        "query": "shock tube",
    }


def test_judgments_found_by_search_travel_in_files_and_merges(project, tmp_path, capsys):
    with Store.open(project) as store:
        alice = JudgingService(store, "alice")
        alice.record("1", "d7", 1, query="supersonic nozzle")
        alice.record("1", "d2", 0)
    out = tmp_path / "j.jsonl"
    assert main(["export", "judgments", project, "--out", str(out)]) == 0
    # (people judge topics of the project, schema 0006: both get the topics first)
    other, merged = str(tmp_path / "other.db"), str(tmp_path / "merged.db")
    for db in (other, merged):
        assert main(["init", db]) == 0
        assert main(["import", "topics", db, str(tmp_path / "topics.tsv")]) == 0
    assert main(["import", "judgments", other, str(out)]) == 0
    assert main(["merge", merged, project]) == 0
    for db in (other, merged):
        with Store.open(db) as store:
            rows = {(r.docno, r.found_by, r.query) for r in store.judgments.export()}
        assert rows == {("d7", "search", "supersonic nozzle"), ("d2", "pool", None)}, db


def test_the_recall_curve_leaves_out_documents_found_by_search(project):
    with Store.open(project) as store:
        alice = JudgingService(store, "alice")
        pools = PoolService(store)
        alice.record("1", "d1", 1)
        alice.record("1", "d2", 0, query="laminar")  # pooled, but found by a search
        alice.record("1", "d5", 2, query="shock tube")  # not pooled
        assert pools.judging_curve("p", "1", ["alice"]).tolist() == [True]
        # the progress of the pool and the qrels count it as judged all the same
        [progress] = pools.pool_progress("p", ["alice"], qids=["1"])
        assert (progress.judged, progress.relevant) == (2, 1)


def test_the_estimate_counts_pooled_documents_found_by_search_as_judged_and_found(project):
    """Kept apart from the curve, a pooled document judged from a search is still judged:
    the estimate counts it among the judged and (relevant here) the found, and extrapolates
    the order's curve over the rest of the pool only."""
    with Store.open(project) as store:
        alice = JudgingService(store, "alice")
        pools = PoolService(store)
        alice.record("1", "d1", 1)
        alice.record("1", "d2", 2, query="laminar")  # pooled, found by a search
        estimate = pools.estimate_relevant("p", "1", assessors=["alice"])
        assert estimate is not None and estimate.method == "curve"
        assert (estimate.found, estimate.judged) == (2, 2)
        # of the pool of three, one document is left to the order's curve: at most one more
        assert 2 <= estimate.low <= estimate.point <= estimate.high <= 3


def test_simulate_leaves_out_what_was_found_by_search(project, tmp_path, capsys):
    with Store.open(project) as store:
        alice = JudgingService(store, "alice")
        alice.record("1", "d1", 1)
        alice.record("1", "d3", 1, query="buckling")
    judgments = tmp_path / "j.jsonl"
    assert main(["export", "judgments", project, "--out", str(judgments)]) == 0
    run = tmp_path / "a.run"
    capsys.readouterr()
    argv = ["simulate", "--runs", str(run), "--depth", "3", "--strategy", "rank", "--no-bias"]
    assert main([*argv, "--qrels", str(judgments), "--out", str(tmp_path / "s")]) == 0
    err = capsys.readouterr().err
    assert "1 judgments of documents found by searching the collection are left out" in err
    assert "3 pooled documents, 1 relevant" in err


def test_the_pool_has_an_index_of_its_own():
    """The judging view's search box: every word, the last one as a word's beginning while
    it is typed; docnos too."""
    index = PoolIndex((i, d, t, x) for i, (d, t, x) in enumerate(DOCS[:4], 1))
    assert len(index) == 4
    assert index.matches("shock supersonic") == {1}
    assert index.matches("boundary lam") == {2}  # "lam" is being typed: laminar
    assert index.matches("boundary lam ") == set()  # a whole word now
    assert index.matches("wing") == {4}  # stemmed: wings
    assert index.matches("D3") == {3} and index.matches("d") == {1, 2, 3, 4}
    assert index.matches('"flat plate"') == {2} and index.matches('"plate flat"') == set()
    for text in ['"', "'", "*", "a OR", "NEAR(", "^"]:
        index.matches(text)
    index.close()
