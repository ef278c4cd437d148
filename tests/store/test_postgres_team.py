"""A project on PostgreSQL shared by a team: each assessor connects as a role of their own, and
the server (row-level security, grants) lets that role write only its own judgments."""

from __future__ import annotations

import tempfile
import uuid
from functools import partial

import psycopg
import pytest

from judgeapp.cli import main
from judgeapp.records import JudgmentState
from judgeapp.services.judging import JudgingError, JudgingService
from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store, StoreError
from judgeapp.store.base import OwnerOnly
from judgeapp.store.schema import Refused

pytestmark = pytest.mark.postgres


@pytest.fixture
def team_project(pg_server, tmp_path):
    """A project owned by a plain (non-superuser) role, with topics, a run, a pool, and
    assessors alice and bob who connect as themselves. Yields (owner URL, {name: URL})."""
    tag = uuid.uuid4().hex[:8]
    owner = f"owner_{tag}"
    pg_server.execute(f"CREATE ROLE {owner} LOGIN CREATEROLE PASSWORD 'owner-pw'")
    db = pg_server.create_database(owner=owner)
    url = pg_server.url(db, user=owner, password="owner-pw")
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\tfirst\n2\tsecond\n")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n2 Q0 d3 1 1 a\n")
    assert main(["init", url]) == 0
    assert main(["import", "topics", url, str(topics)]) == 0
    assert main(["import", "run", url, str(run)]) == 0
    assert main(["pool", url, "--depth", "10"]) == 0
    urls = {}
    with Store.open(url) as store:
        for name in ("alice", "bob"):
            role, password = store.team.add_member(name, role=f"{name}_{tag}")
            assert password
            urls[name] = pg_server.url(db, user=role, password=password)
    yield url, urls


def raw_connect(url: str) -> psycopg.Connection:
    from sqlalchemy.engine import make_url

    return psycopg.connect(
        make_url(url).set(drivername="postgresql").render_as_string(hide_password=False),
        autocommit=True,
    )


def doc(store: Store, docno: str) -> int:
    return store.documents.docno_ids([docno])[docno]


def test_an_assessor_writes_only_their_own_judgments(team_project):
    owner_url, urls = team_project
    with Store.open(urls["bob"]) as bob:
        JudgingService(bob, "bob").record("1", doc(bob, "d1"), 2)
    with Store.open(urls["alice"]) as alice:
        service = JudgingService(alice, "alice")
        service.record("1", doc(alice, "d1"), 1, note="mine")  # her own: fine
        with Store.open(owner_url) as owner:
            bob_id = owner.team.assessor("bob", create=False).id
        d1 = doc(alice, "d1")
        # through the store: writing as bob is refused by the server
        with pytest.raises(Refused, match="judges as assessor alice only"):
            alice.judgments.record("1", doc(alice, "d2"), bob_id, JudgmentState(3))
        # and judging under another name is refused before anything is tried
        with pytest.raises(JudgingError, match="can judge as 'alice' only"):
            JudgingService(alice, "bob")
    with raw_connect(urls["alice"]) as conn:
        # no table may be written directly: not even her own rows
        for statement in (
            "UPDATE judgments SET grade = 0",
            "DELETE FROM judgments",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # bob's history cannot be written, nobody's history rewritten
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO judgment_history (qid, doc_id, assessor_id, action, origin, grade, "
                "note, flagged, time_spent, at) VALUES ('1', %s, %s, 'create', 'forged', 3, '', "
                "false, 0, now())",
                (d1, bob_id),
            )
        for statement in ("UPDATE judgment_history SET grade = 0", "DELETE FROM judgment_history"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # runs, pools and the scale are read-only; a table cannot be dropped
        for statement in (
            "DELETE FROM runs",
            "DELETE FROM pool_docs",
            "UPDATE scale SET label = 'x'",
            "DROP TABLE runs",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with (
        Store.open(urls["alice"]) as alice,
        pytest.raises(OwnerOnly, match="only the project's owner"),
    ):
        alice.runs.remove("a")
    with Store.open(owner_url) as owner:
        assert qrels_rows(owner, ["bob"]) == [("1", "d1", 2)]
        assert qrels_rows(owner, ["alice"]) == [("1", "d1", 1)]
        # the owner can do what the assessors cannot
        owner.judgments.record("1", doc(owner, "d2"), bob_id, JudgmentState(3))
        assert qrels_rows(owner, ["bob"]) == [("1", "d1", 2), ("1", "d2", 3)]
        owner.runs.remove("a")
        assert owner.runs.all() == []
        assert {name for name, _ in owner.team.members()} == {"alice", "bob"}


def test_team_commands_on_postgres_and_their_refusal_on_sqlite(team_project, tmp_path, capsys):
    owner_url, urls = team_project
    capsys.readouterr()
    assert main(["team", "list", "--db", owner_url]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == [
        "alice",
        "bob",
    ]
    assert main(["team", "remove", "alice", "--db", owner_url]) == 0
    capsys.readouterr()
    with pytest.raises(StoreError, match=r"cannot open the project: .*permission denied"):
        Store.open(urls["alice"])
    db = str(tmp_path / "p.db")
    main(["init", db])
    assert main(["team", "add", "carol", "--db", db]) == 2
    assert "has no users" in capsys.readouterr().err
    with Store.open(db) as store, pytest.raises(StoreError, match="has no users"):
        store.team.add_member("carol")


def test_an_assessor_searches_judges_what_it_finds_and_logs_only_their_own(team_project):
    """Schema 0007 on a team project: an assessor's role judges a document found by
    searching (the judgment carries found_by and the query) and logs its own searches,
    never another assessor's."""
    from judgeapp.services.search import SearchService

    owner_url, urls = team_project
    with Store.open(owner_url) as owner:
        bob_id = owner.team.assessor("bob", create=False).id
    with Store.open(urls["alice"]) as alice:
        service = JudgingService(alice, "alice")
        search = SearchService(alice, service.assessor.id, "alice")
        search.search_collection("anything", "1", None)  # logged, nothing found
        change = service.record("1", "d9", 2, query="anything else")
        assert (change.found_by, change.query) == ("search", "anything else")
        with pytest.raises(Refused, match="logs searches as assessor alice only"):
            alice.search.log(bob_id, "1", "collection", "as bob", 0)
    with Store.open(owner_url) as owner:
        owner.search.log(bob_id, "2", "collection", "bob's own words", 3)
        assert [(e.assessor, e.query) for e in owner.search.logged()] == [
            ("alice", "anything"),
            ("bob", "bob's own words"),
        ]
    with Store.open(urls["alice"]) as alice:  # the server shows her her own searches only
        assert [(e.assessor, e.query) for e in alice.search.logged()] == [("alice", "anything")]
    with Store.open(owner_url) as owner:
        [line] = [r for r in owner.judgments.export() if r.docno == "d9"]
        assert (line.assessor, line.found_by, line.query) == ("alice", "search", "anything else")


def test_judge_defaults_to_the_assessor_of_the_connected_role(team_project, monkeypatch, capsys):
    """`judge` with an assessor's own URL needs no --assessor: the role says who judges
    (issue 30, item 11); with the owner's URL, which is nobody's role, it must be given."""
    import io
    import sys

    owner_url, urls = team_project
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 d1 2 hers\n"))
    assert main(["judge", urls["alice"]]) == 0
    assert capsys.readouterr().out.splitlines() == ["recorded 1 d1 2"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 d2 1\n"))
    assert main(["judge", owner_url]) != 0
    err = capsys.readouterr().err
    assert "--assessor NAME says who is judging" in err and "Traceback" not in err
    with Store.open(owner_url) as owner:
        assert [(j.qid, j.docno, j.grade, j.note, j.assessor) for j in owner.judgments.all()] == [
            ("1", "d1", 2, "hers", "alice")
        ]


def round_trips(store: Store, write) -> int:
    """How often `write` waits for the server: the Sync and simple Query messages its
    connections send (libpq's protocol trace), each answered before the next step."""
    from sqlalchemy import event

    traces = []

    def checkout(dbapi_conn, _record, _proxy):
        trace = tempfile.TemporaryFile("w+")
        traces.append(trace)
        dbapi_conn.pgconn.trace(trace.fileno())

    def checkin(dbapi_conn, _record):
        dbapi_conn.pgconn.untrace()

    event.listen(store.db.engine, "checkout", checkout)
    event.listen(store.db.engine, "checkin", checkin)
    try:
        write()
    finally:
        event.remove(store.db.engine, "checkout", checkout)
        event.remove(store.db.engine, "checkin", checkin)
    waits = 0
    for trace in traces:
        trace.seek(0)
        for line in trace:
            fields = line.split("\t")
            waits += len(fields) > 3 and fields[1] == "F" and fields[3].strip() in ("Sync", "Query")
        trace.close()
    return waits


def test_a_judgment_takes_few_round_trips_to_the_server(team_project):
    """One grade key's write: the owner's was 9 round trips (BEGIN, the session's lock
    timeout again, the write lock, the state, the newest event's time, the event, the
    judgment, the change log, COMMIT), now 5 (the writes go with the COMMIT); a member's
    was 7 (the state read in a transaction of its own), now 4."""
    owner_url, urls = team_project
    with Store.open(owner_url) as owner:
        carol = owner.team.assessor("carol")
        d1 = doc(owner, "d1")
        for grade in (2, 1, None):  # a new judgment, a change, a removal
            record = partial(owner.judgments.record, "1", d1, carol.id, JudgmentState(grade))
            assert round_trips(owner, record) <= 5
            assert owner.judgments.state("1", d1, carol.id) == JudgmentState(grade)
        owner.judgments.record("1", d1, carol.id, JudgmentState(3, "kept"))
    with Store.open(urls["alice"]) as alice:
        alice_id = alice.team.assessor("alice", create=False).id
        for grade in (2, 0):
            record = partial(alice.judgments.record, "1", d1, alice_id, JudgmentState(grade))
            assert round_trips(alice, record) <= 4
    with Store.open(owner_url) as owner:  # committed: another connection sees both
        assert owner.judgments.state("1", d1, carol.id) == JudgmentState(3, "kept")
        assert owner.judgments.state("1", d1, alice_id) == JudgmentState(0)
        events = [(e["assessor_id"], e["action"], e["grade"]) for e in owner.history.rows("1", d1)]
    assert events == [
        (carol.id, "create", 2),
        (carol.id, "update", 1),
        (carol.id, "delete", None),
        (carol.id, "create", 3),
        (alice_id, "create", 2),
        (alice_id, "update", 0),
    ]


def test_a_refused_judgment_says_why_and_writes_nothing(team_project):
    """The writes of a judgment go to the server with its COMMIT: the schema's refusal of
    one of them still reaches the user as one clear line, and nothing of it is stored."""
    owner_url, _urls = team_project
    with Store.open(owner_url) as owner:
        carol = owner.team.assessor("carol")
        d1 = doc(owner, "d1")

        def logged() -> tuple[int, int]:  # events in the history, entries in the change log
            with owner.db.read() as conn:
                changes = conn.exec_driver_sql("SELECT count(*) FROM project_changes").scalar()
            return len(owner.history.rows()), changes

        before = logged()
        with pytest.raises(Refused, match="refuses this: topic 9 is not in the project"):
            owner.judgments.record("9", d1, carol.id, JudgmentState(1))  # no topic 9
        assert owner.judgments.state("9", d1, carol.id) == JudgmentState(None)
        assert logged() == before
        # the connection is sound after it: the next judgment lands
        owner.judgments.record("1", d1, carol.id, JudgmentState(2))
        assert owner.judgments.state("1", d1, carol.id) == JudgmentState(2)
