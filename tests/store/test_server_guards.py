"""The server is the only guard of a team's project (schemas 0006 and 0007), tried the way any assessor
can: with psql, as her own database role, and with the command line given her URL.

Alice and bob are assessors judging blind (each assigned one topic), carol an evaluator; the
project has topics, documents, a run, a pool and the official qrels. Every attack of
`ATTACKS` is run through the psql binary of the tests' own PostgreSQL as alice and must be
refused by the server, or answer with nothing of anyone else's; the same for the commands
in `test_the_command_line_with_an_assessors_url_shows_her_scope_only`. The counts are in
docs/team.md ("Attacks tried")."""

from __future__ import annotations

import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgeapp.cli import main
from judgeapp.services.judging import JudgingService
from judgeapp.store import Store
from judgeapp.store.locking import PG_WRITE_LOCK

pytestmark = pytest.mark.postgres

SECRET_NOTE = "bob-secret-note"


@dataclass
class Team:
    server: object
    db: str
    owner_url: str
    urls: dict[str, str]
    roles: dict[str, str]
    passwords: dict[str, str]
    ids: dict[str, int]  # assessor ids
    folder: Path


@pytest.fixture
def team(pg_server, tmp_path) -> Team:
    tag = uuid.uuid4().hex[:8]
    owner = f"owner_{tag}"
    pg_server.execute(f"CREATE ROLE {owner} LOGIN CREATEROLE PASSWORD 'owner-pw'")
    db = pg_server.create_database(owner=owner)
    url = pg_server.url(db, user=owner, password="owner-pw")
    (tmp_path / "topics.tsv").write_text("1\tfirst\n2\tsecond\n3\tthird\n")
    (tmp_path / "docs.jsonl").write_text(
        "".join(f'{{"docno": "d{i}", "text": "text of d{i}"}}\n' for i in range(1, 7))
    )
    (tmp_path / "a.run").write_text(
        "1 Q0 d1 1 3 runA\n1 Q0 d2 2 2 runA\n2 Q0 d3 1 3 runA\n2 Q0 d4 2 2 runA\n"
        "3 Q0 d5 1 1 runA\n3 Q0 d6 2 1 runA\n"
    )
    (tmp_path / "official.qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n3 0 d5 1\n")
    for argv in (
        ["init", url],
        ["import", "topics", url, str(tmp_path / "topics.tsv")],
        ["import", "docs", url, str(tmp_path / "docs.jsonl")],
        ["import", "run", url, str(tmp_path / "a.run")],
        ["import", "qrels", url, str(tmp_path / "official.qrels"), "--name", "official"],
        ["pool", url, "--depth", "10", "--name", "pool"],
    ):
        assert main(argv) == 0, argv
    urls, roles, passwords = {}, {}, {}
    with Store.open(url) as store:
        for name in ("alice", "bob", "carol"):
            role, password = store.team.add_member(name, role=f"{name}_{tag}")
            urls[name] = pg_server.url(db, user=role, password=password)
            roles[name], passwords[name] = role, password
        store.team.set_assignments([("1", "alice", False), ("2", "bob", False)])
        store.team.set_role("carol", "evaluator")
        ids = {a.name: a.id for a in store.team.assessors()}
    with Store.open(urls["bob"]) as bob:
        JudgingService(bob, "bob").record("2", "d3", 2, note=SECRET_NOTE, time_spent=12.0)
        bob.search.log(ids["bob"], "2", "collection", SECRET_NOTE, 1)
        bob.settings.put("ui.terms.bob.2", "bob's own terms")
    with Store.open(urls["alice"]) as alice:
        JudgingService(alice, "alice").record("1", "d1", 1, note="mine")
        alice.search.log(ids["alice"], "1", "collection", "mine", 2)
    return Team(pg_server, db, url, urls, roles, passwords, ids, tmp_path)


def psql(team: Team, who: str, sql: str, timeout: float = 20) -> subprocess.CompletedProcess:
    """`psql -c SQL` as `who`'s role, as any team member could run it."""
    server = team.server
    env = {**os.environ, "PGPASSWORD": team.passwords[who], "PGCONNECT_TIMEOUT": "5"}
    return subprocess.run(
        [
            str(server.bindir / "psql"),
            "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1",
            "-h", "127.0.0.1", "-p", str(server.port), "-U", team.roles[who], "-d", team.db,
            "-c", sql,
        ],
        capture_output=True, text=True, env=env, timeout=timeout,
    )  # fmt: skip


# -- what alice's role tries -----------------------------------------------------------------
# (name, SQL with {alice}, {bob}, {bob_role} and {owner} filled in, what must come back):
# "refused" (an error from the server), "hers" (her own rows only), or the exact output;
# and never a word of bob's note, in the output or in a notice
ATTACKS = [
    # reading what a blind assessor's window does not show
    ("others' judgments", "SELECT count(*) FROM judgments WHERE assessor_id <> {alice}", "0"),
    ("others' grades and notes", "SELECT string_agg(note, ',') FROM judgments", "mine"),
    ("others' history", "SELECT count(*) FROM judgment_history WHERE assessor_id <> {alice}", "0"),
    ("the imported official qrels", "SELECT count(*) FROM judgments j JOIN assessors a ON a.id = j.assessor_id WHERE a.kind = 'source'", "0"),
    ("the runs", "SELECT count(*) FROM runs", "0"),
    ("the ranked lists", "SELECT count(*) FROM ranked_lists", "0"),
    ("the pool's runs", "SELECT count(*) FROM pool_runs", "0"),
    ("the pool's best ranks", "SELECT best_rank FROM pool_docs", "refused"),
    ("the pool's run ids and ranks", "SELECT run_ids, ranks FROM pool_docs", "refused"),
    ("every column of the pool", "SELECT * FROM pool_docs", "refused"),
    ("the pool's parameters", "SELECT params FROM pools", "refused"),
    ("ranks through the server's function", "SELECT string_agg(best_rank::text || octet_length(ranks), ',') FROM judgeapp_pool_docs((SELECT id FROM pools))", "00,00"),
    ("parameters through the server's function", "SELECT judgeapp_pool_params((SELECT id FROM pools))::text", "{}"),
    ("pooled documents of others' topics", "SELECT count(*) FROM pool_docs WHERE qid <> '1'", "0"),
    ("topics not assigned to her", "SELECT string_agg(qid, ',') FROM topics", "1"),
    ("documents of others' topics", "SELECT string_agg(d.docno, ',' ORDER BY d.docno) FROM documents x JOIN docnos d ON d.id = x.doc_id", "d1,d2"),
    ("docnos of others' topics", "SELECT count(*) FROM docnos WHERE docno IN ('d3', 'd4', 'd5', 'd6')", "0"),
    ("other assessors and sources", "SELECT string_agg(name, ',') FROM assessors", "alice"),
    ("others' assignments", "SELECT count(*) FROM assignments WHERE assessor_id <> {alice}", "0"),
    ("others' place in the work", "SELECT count(*) FROM settings WHERE key LIKE 'ui.terms.bob%' OR key LIKE 'ui.dashboard%'", "0"),
    ("others' judgments in the change log", "SELECT count(*) FROM project_changes WHERE changes::jsonb ? 'judged' AND db_role IS DISTINCT FROM current_user", "0"),
    ("the writers' lock table", "SELECT * FROM write_lock", "refused"),
    ("others' searches", "SELECT string_agg(query, ',') FROM search_log", "mine"),
    ("a table copied out whole", "COPY judgments TO STDOUT", "hers"),
    ("row-level security switched off", "SET row_security = off; SELECT count(*) FROM judgments", "refused"),
    ("the planner's statistics", "SELECT count(*) FROM pg_stats WHERE tablename IN ('judgments', 'judgment_history')", "0"),
    ("a leaky function in pg_temp", "CREATE FUNCTION pg_temp.leak(text) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'saw %', $1; RETURN true; END $$; SELECT count(*) FROM judgments WHERE pg_temp.leak(note)", "1"),
    ("another session's statement", "SELECT count(*) FROM pg_stat_activity WHERE usename <> current_user AND query IS NOT NULL AND query <> '<insufficient privilege>'", "0"),
    # writing what is not hers, or not valid
    ("insert a judgment directly", "INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, time_spent, created_at, updated_at) SELECT '1', id, {alice}, 3, '', false, 0, now(), now() FROM docnos WHERE docno = 'd2'", "refused"),
    ("update her own judgment directly", "UPDATE judgments SET grade = 3", "refused"),
    ("delete judgments", "DELETE FROM judgments", "refused"),
    ("write the history", "INSERT INTO judgment_history (qid, doc_id, assessor_id, action, origin, grade, note, flagged, time_spent, at) VALUES ('1', 1, {bob}, 'create', 'forged', 3, '', false, 0, now())", "refused"),
    ("rewrite the history", "UPDATE judgment_history SET grade = 0", "refused"),
    ("erase the history", "DELETE FROM judgment_history", "refused"),
    ("judge as bob through the server", "SELECT judgeapp_judge('2', 3, {bob}, NULL, NULL, NULL, 0, '', false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("grade 99", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 99, '', false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("grade -7", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, -7, '', false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("a topic that does not exist", "SELECT judgeapp_judge('404', 2, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("a topic assigned to bob", "SELECT judgeapp_judge('2', 3, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("NaN time spent", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 'NaN', 'judge', 'x', 'pool', NULL)", "refused"),
    ("1e308 seconds spent", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 1e308, 'judge', 'x', 'pool', NULL)", "refused"),
    ("-1e308 seconds spent", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, -1e308, 'judge', 'x', 'pool', NULL)", "refused"),
    ("infinite time spent", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 'Infinity', 'judge', 'x', 'pool', NULL)", "refused"),
    ("a note of 70,000 characters", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, repeat('x', 70000), false, 0, 'judge', 'x', 'pool', NULL)", "refused"),
    ("a forged place where it was found", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'judge', 'x', 'elsewhere', NULL)", "refused"),
    ("found by search without a query", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'search', 'x', 'search', NULL)", "refused"),
    ("a query of 70,000 characters", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'search', 'x', 'search', repeat('x', 70000))", "refused"),
    ("a search logged as bob", "SELECT judgeapp_log_search({bob}, '2', 'collection', 'x', 0)", "refused"),
    ("a search of bob's topic", "SELECT judgeapp_log_search({alice}, '2', 'collection', 'x', 0)", "refused"),
    ("a search of no known scope", "SELECT judgeapp_log_search({alice}, '1', 'everything', 'x', 0)", "refused"),
    ("a search finding -1 documents", "SELECT judgeapp_log_search({alice}, '1', 'pool', 'x', -1)", "refused"),
    ("the search log directly", "INSERT INTO search_log (assessor_id, qid, scope, query, results, at) VALUES ({alice}, '1', 'pool', 'x', 0, now())", "refused"),
    ("rewrite the search log", "UPDATE search_log SET query = 'x'", "refused"),
    ("erase the search log", "DELETE FROM search_log", "refused"),
    ("a forged origin", "SELECT judgeapp_judge('1', 2, {alice}, NULL, NULL, NULL, 1, '', false, 0, 'import', 'x', 'pool', NULL)", "refused"),
    ("a time in the year 3000", "UPDATE judgments SET updated_at = '3000-01-01'", "refused"),
    ("a time in 1900", "UPDATE judgment_history SET at = '1900-01-01'", "refused"),
    ("bob's place in the work", "SELECT judgeapp_put_setting('ui.terms.bob.2', '\"mine now\"')", "refused"),
    ("the project's blind mode", "SELECT judgeapp_put_setting('team.blind', 'false')", "refused"),
    ("the shared pool choice", "SELECT judgeapp_put_setting('ui.pool', '\"other\"')", "refused"),
    ("a setting directly", "INSERT INTO settings (key, value) VALUES ('ui.x', 'null')", "refused"),
    ("the change log directly", "INSERT INTO project_changes (at, writer, changes) VALUES (now(), 'x', '{{}}')", "refused"),
    ("docnos directly", "INSERT INTO docnos (docno) VALUES ('forged')", "refused"),
    ("2,000 docnos at once", "SELECT count(*) FROM judgeapp_intern(ARRAY(SELECT 'x' || i FROM generate_series(1, 2000) i))", "refused"),
    ("the owner's grant function", "SELECT judgeapp_admit(current_user)", "refused"),
    ("the owner's revoke function", "SELECT judgeapp_dismiss('{bob_role}')", "refused"),
    ("the scale", "UPDATE scale SET label = 'x'", "refused"),
    ("a run", "DELETE FROM runs", "refused"),
    ("the assignments", "INSERT INTO assignments (qid, assessor_id, shared, created_at) VALUES ('2', {alice}, false, now())", "refused"),
    ("her own role", "UPDATE assessors SET role = 'evaluator' WHERE id = {alice}", "refused"),
    # changing the schema or the roles
    ("drop a table", "DROP TABLE judgments", "refused"),
    ("empty a table", "TRUNCATE judgments", "refused"),
    ("alter a table", "ALTER TABLE judgments DISABLE ROW LEVEL SECURITY", "refused"),
    ("drop a trigger", "DROP TRIGGER judgments_inserted ON judgments", "refused"),
    ("create a table", "CREATE TABLE public.mine (x int)", "refused"),
    ("grant herself more", "GRANT INSERT ON judgments TO PUBLIC; SELECT has_table_privilege('judgments', 'INSERT')", "f"),
    ("bypass row-level security", "ALTER ROLE CURRENT_USER BYPASSRLS", "refused"),
    ("become the owner", "SET ROLE {owner}", "refused"),
    ("become the superuser", "SET SESSION AUTHORIZATION postgres", "refused"),
    # taking a lock the team would wait for
    ("lock a table exclusively", "BEGIN; LOCK TABLE judgments IN ACCESS EXCLUSIVE MODE", "refused"),
    ("lock a table against writers", "BEGIN; LOCK TABLE judgments IN SHARE MODE", "refused"),
    ("lock a table as a writer", "BEGIN; LOCK TABLE judgment_history IN ROW EXCLUSIVE MODE", "refused"),
    ("lock the writers' row", "SELECT * FROM write_lock FOR UPDATE", "refused"),
    ("lock her judgment rows", "SELECT * FROM judgments FOR UPDATE", "refused"),
    ("share-lock the scale", "SELECT * FROM scale FOR KEY SHARE", "refused"),
    ("end the owner's sessions", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{owner}'", "refused"),
]  # fmt: skip


def test_every_attack_through_psql_is_refused_or_sees_nothing_of_others(team):
    fill = {
        "alice": team.ids["alice"],
        "bob": team.ids["bob"],
        "bob_role": team.roles["bob"],
        "owner": team.owner_url.split("//")[1].split(":")[0],
    }
    # keep an owner's session open, so that the attack on it has a session to end
    import psycopg

    with psycopg.connect(
        team.owner_url.replace("postgresql+psycopg", "postgresql"), autocommit=True
    ) as owner_session:
        owner_session.execute("SELECT 1")
        owner_session.execute("ANALYZE")  # statistics for the planner's-statistics attack
        failed = []
        for name, sql, expected in ATTACKS:
            done = psql(team, "alice", sql.format(**fill))
            out = done.stdout.strip()
            if SECRET_NOTE in done.stdout + done.stderr:
                failed.append(f"{name}: bob's note leaked")
            elif expected == "refused":
                if done.returncode == 0 or "ERROR" not in done.stderr:
                    failed.append(f"{name}: not refused ({out!r})")
            elif expected == "hers":
                if done.returncode != 0 or "mine" not in out or len(out.splitlines()) != 1:
                    failed.append(f"{name}: {out!r} {done.stderr.strip()!r}")
            elif done.returncode != 0 or out != expected:
                failed.append(f"{name}: {out!r} {done.stderr.strip()!r}")
        assert failed == [], failed
    n_refused = sum(expected == "refused" for _name, _sql, expected in ATTACKS)
    print(
        f"\n{len(ATTACKS)} attacks through psql tried: {n_refused} refused by the server, "
        f"{len(ATTACKS) - n_refused} answered with her own rows only"
    )
    # nothing of them landed: bob's judgment, the history, the scale are as they were
    with Store.open(team.owner_url) as owner:
        assert [(j.qid, j.grade, j.note) for j in owner.judgments.all(assessors=["bob"])] == [
            ("2", 2, SECRET_NOTE)
        ]
        assert [(j.qid, j.grade) for j in owner.judgments.all(assessors=["alice"])] == [("1", 1)]
        assert len(owner.history.rows()) == 2 + 4  # two judgments and the four official ones
        assert [(e.assessor, e.query) for e in owner.search.logged()] == [
            ("bob", SECRET_NOTE),
            ("alice", "mine"),
        ]
        assert [g.grade for g in owner.settings.scale()] == [0, 1, 2, 3]
        assert owner.documents.docno_ids(["forged", "x1"]) == {}


def test_an_evaluators_role_reads_everything_and_writes_only_its_own(team):
    assert psql(team, "carol", "SELECT count(*) FROM judgments").stdout.strip() == "6"
    assert psql(team, "carol", "SELECT count(*) FROM runs").stdout.strip() == "1"
    assert (
        psql(team, "carol", "SELECT count(best_rank) FROM judgeapp_pool_docs(1)").stdout.strip()
        == "6"
    )
    assert "ERROR" in psql(team, "carol", "UPDATE judgments SET grade = 0").stderr
    refused = psql(
        team,
        "carol",
        "SELECT judgeapp_judge('2', 3, {bob}, 2, '{n}', false, 0, '', false, 0, 'judge', 'x', 'pool', NULL)".format(
            bob=team.ids["bob"], n=SECRET_NOTE
        ),
    )
    assert "judges as assessor carol only" in refused.stderr


def test_the_command_line_with_an_assessors_url_shows_her_scope_only(team, capsys):
    url = team.urls["alice"]
    capsys.readouterr()

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err

    refusals_seen: list[str] = []

    def refused(*argv: str, says: str) -> None:
        code, _out, err = run(*argv)
        lines = [line for line in err.splitlines() if line.startswith("judgeapp: error:")]
        assert code in (1, 2) and len(lines) == 1 and says in lines[0], (argv, code, err)
        refusals_seen.append(lines[0])

    tried = 0
    # what she reads: her own judgments, her topic; told what is hidden
    code, out, err = run("export", "qrels", url)
    assert code == 0 and out == "1 0 d1 1\n" and "judges blind" in err
    code, out, err = run("export", "judgments", url)
    assert code == 0 and "mine" in out and SECRET_NOTE not in out and "official" not in out
    code, out, err = run("info", url, "--topics")
    assert code == 0 and "runA" not in out and "bob" not in out and "official" not in out
    code, out, err = run("team", "list", "--db", url)
    assert code == 0 and "bob" not in out and "carol" not in out
    tried += 4
    refused(
        "export",
        "qrels",
        url,
        "--assessor",
        "bob",
        says="no assessor or judgment source named 'bob'",
    )
    code, out, err = run("export", "judgments", url, "--assessor", "bob")
    assert code == 0 and out == ""  # bob's judgments are not hers to see: none
    code, out, err = run("export", "searches", url)
    assert code == 0 and len(out.splitlines()) == 1 and '"mine"' in out and "bob" not in out
    code, out, err = run("export", "searches", url, "--assessor", "bob")
    assert code == 0 and out == ""  # bob's searches are not hers to see: none
    tried += 4
    refused("evaluate", "--db", url, "-m", "map", says="runs")
    refused(
        "evaluate", "--db", url, "--judgments", "official", "-m", "map",
        says="no assessor or judgment source named 'official'",
    )  # fmt: skip
    refused("agreement", url, says="")  # fewer than two assessors she can see
    refused("copy", url, str(team.folder / "copy.db"), says="copy reads every row of the project")
    assert not (team.folder / "copy.db").exists()
    tried += 4
    # what she may not change: one line each saying what it needs
    forged = team.folder / "forged.jsonl"  # bob's grade, a time that is not a number
    forged.write_text(
        '{"topic": "2", "docno": "d3", "assessor": "bob", "grade": 0, "time_spent": "NaN"}\n'
    )
    for argv, what in (
        (["import", "run", url, str(team.folder / "a.run"), "--name", "b"], "import run"),
        (
            ["import", "qrels", url, str(team.folder / "official.qrels"), "--name", "q"],
            "import qrels",
        ),
        (["import", "topics", url, str(team.folder / "topics.tsv")], "import topics"),
        (["import", "docs", url, str(team.folder / "docs.jsonl")], "import docs"),
        (["import", "judgments", url, str(forged)], "import judgments"),
        (["pool", url, "--depth", "3", "--name", "p2"], "pool"),
        (["assign", url, "--blind", "off"], "assign"),
        (["scale", url, "--grade", "4", "Perfect"], "scale"),
        (["team", "add", "mallory", "--db", url], "team add"),
        (["team", "remove", "bob", "--db", url], "team remove"),
        (["team", "role", "alice", "evaluator", "--db", url], "team role"),
        (["team", "wait", "1", "--db", url], "team wait"),
        (["merge", url, team.owner_url], "merge"),
    ):
        refused(*argv, says=f"{what} changes the project, which only its owner may")
        tried += 1
    # judging: only as herself, only on the scale, only her topic
    import io
    import sys

    for lines, says in (
        ("1 d2 7\n", "grade 7 is not on the project's scale"),
        ("404 d2 1\n", "topic '404' is not in the project"),
        ("2 d3 1\n", "not in the project"),
        ("1 d2 1 " + "x" * 70_000 + "\n", "a note has at most 65536 characters"),
    ):
        sys.stdin = io.StringIO(lines)
        try:
            refused("judge", url, "--assessor", "alice", says=says)
        finally:
            sys.stdin = sys.__stdin__
        tried += 1
    sys.stdin = io.StringIO("1 d2 2\n")
    try:
        refused("judge", url, "--assessor", "bob", says="can judge as 'alice' only")
    finally:
        sys.stdin = sys.__stdin__
    tried += 1
    refusals = len(refusals_seen)
    print(
        f"\n{tried} attacks through the command line tried: {refusals} refused in one line, "
        f"{tried - refusals} answered with her own scope only"
    )
    assert (tried, refusals) == (30, 23), (  # the counts docs/team.md and the README give
        tried,
        refusals,
    )
    with Store.open(team.owner_url) as owner:
        assert [r.name for r in owner.runs.all()] == ["runA"]
        assert owner.team.assignments() == [("1", "alice", False), ("2", "bob", False)]
        assert len(owner.settings.scale()) == 4


def test_team_add_refuses_roles_it_did_not_make_and_remove_always_works(team, pg_server):
    tag = uuid.uuid4().hex[:6]
    pg_server.execute(
        f"CREATE ROLE stranger_{tag} LOGIN PASSWORD 'x'", f"CREATE ROLE boss_{tag} LOGIN SUPERUSER"
    )
    owner_role = team.owner_url.split("//")[1].split(":")[0]
    with Store.open(team.owner_url) as owner:
        from judgeapp.store import StoreError

        with pytest.raises(StoreError, match="exists already and was not made by `team add`"):
            owner.team.add_member("dave", role=f"stranger_{tag}")
        with pytest.raises(StoreError, match="superuser"):
            owner.team.add_member("dave", role=f"boss_{tag}", adopt=True)
        with pytest.raises(StoreError, match="owner's own"):
            owner.team.add_member("dave", role=owner_role, adopt=True)
        assert "dave" not in [a.name for a in owner.team.assessors()]
        role, password = owner.team.add_member("dave", role=f"stranger_{tag}", adopt=True)
        assert role == f"stranger_{tag}" and password is None
        # re-adding a role `team add` made is no adoption
        owner.team.remove_member("bob")
        assert owner.team.add_member("bob", role=team.roles["bob"])[1] is None
        owner.team.remove_member("bob")
        # remove: the judgments stay, the role can no longer read the project
        assert [j.note for j in owner.judgments.all(assessors=["bob"])] == [SECRET_NOTE]
    done = psql(team, "bob", "SELECT count(*) FROM judgments")
    assert done.returncode != 0 and "permission denied" in done.stderr
    capsys_free = main(["team", "remove", "bob", "--db", team.owner_url])
    assert capsys_free == 2  # no role any more: said in one line, nothing crashes


def test_owner_only_refusal_and_bounded_waits_from_the_store(team):
    from judgeapp.store.base import OwnerOnly

    with Store.open(team.urls["alice"]) as alice:
        assert alice.scope is not None and alice.scope.blind
        assert alice.scope.topics == ("1",)
        with pytest.raises(OwnerOnly, match="only the project's owner"):
            alice.settings.set_scale(alice.settings.scale())
    with Store.open(team.urls["carol"]) as carol:
        assert carol.scope is not None and not carol.scope.blind
        assert carol.runs.ranked_lists().n_entries == 6
    assert PG_WRITE_LOCK  # the old advisory key: holding it stalls nobody (test_stall)


# -- no assessor can stall the team ----------------------------------------------------------
def _command(team: Team, *argv: str, stdin: str = "") -> tuple[subprocess.CompletedProcess, float]:
    import sys
    import time

    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parents[2] / "main.py"), *argv],
        input=stdin, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done, time.monotonic() - start


def test_an_assessor_holding_every_lock_she_can_stalls_nobody(team):
    """Alice's session takes every lock her role can get and stays idle in its transaction:
    her own judgment's row (and the share locks it takes on the grade, the topic, her
    assignment), an ACCESS SHARE lock on every table she reads, the old advisory key of the
    writers. The owner's `export qrels` and bob's `judge` finish within 5 s; the owner's
    write that needs what she holds (removing the grade she gave) says after a second whom
    it waits for and gives up at the limit the owner set; `team remove` ends her session."""
    import psycopg

    with Store.open(team.owner_url) as owner:
        owner.team.set_wait_limit(3)
    # the same commands with nobody holding anything, on this machine under its load now
    _, base_export = _command(team, "export", "qrels", team.owner_url)
    _, base_judge = _command(team, "judge", team.urls["bob"], "--assessor", "bob", stdin="2 d4 0\n")
    # "within 5 s", or as long as without her when the machine is that busy
    bound = max(5.0, 1.5 * max(base_export, base_judge))
    hostage = psycopg.connect(
        team.urls["alice"].replace("postgresql+psycopg", "postgresql"), application_name="psql"
    )
    held, refused = [], []
    try:
        cur = hostage.cursor()
        cur.execute(
            "SELECT judgeapp_judge('1', 2, %s, NULL, NULL, NULL, 3, 'held', false, 0, 'judge', 'x', 'pool', NULL)",
            (team.ids["alice"],),
        )
        held.append("her judgment's row, and share locks on grade 3, topic 1, her assignment")
        tables = [
            r[0]
            for r in cur.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
            )
        ]
        for table in tables:
            for mode in ("ACCESS EXCLUSIVE", "EXCLUSIVE", "SHARE", "ROW EXCLUSIVE", "ACCESS SHARE"):
                cur.execute("SAVEPOINT s")
                try:
                    cur.execute(f"LOCK TABLE {table} IN {mode} MODE NOWAIT")
                    held.append(f"{mode} on {table}")
                except psycopg.Error:
                    cur.execute("ROLLBACK TO SAVEPOINT s")
                    refused.append(f"{mode} on {table}")
        for sql in (
            f"SELECT pg_advisory_lock({PG_WRITE_LOCK})",
            f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})",
        ):
            cur.execute(sql)
            held.append(sql)
        for sql in ("SELECT * FROM write_lock FOR UPDATE", "SELECT * FROM scale FOR UPDATE"):
            cur.execute("SAVEPOINT s")
            try:
                cur.execute(sql)
                held.append(sql)
            except psycopg.Error:
                cur.execute("ROLLBACK TO SAVEPOINT s")
                refused.append(sql)
        # what she holds: only ACCESS SHARE of the tables she reads (which no reader or
        # writer of the app waits for), her own row and share locks
        modes = ("ACCESS EXCLUSIVE", "EXCLUSIVE", "SHARE", "ROW EXCLUSIVE")
        assert not [h for h in held if h.split(" on ")[0] in modes], held
        shared = {h.removeprefix("ACCESS SHARE on ") for h in held if h.startswith("ACCESS SHARE")}
        assert shared == set(tables) - {"write_lock", "pool_docs", "pools"}
        assert "SELECT * FROM write_lock FOR UPDATE" in refused

        exported, took_export = _command(team, "export", "qrels", team.owner_url)
        assert exported.returncode == 0, exported.stderr
        assert took_export < bound and "waiting" not in exported.stderr, (took_export, bound)
        assert "2 0 d3 2" in exported.stdout and "1 0 d1 1" in exported.stdout
        judged, took_judge = _command(
            team, "judge", team.urls["bob"], "--assessor", "bob", stdin="2 d4 1\n"
        )
        assert judged.returncode == 0 and "recorded 2 d4 1" in judged.stdout, judged.stderr
        assert took_judge < bound and "waiting" not in judged.stderr, (took_judge, bound)
        owner_import, took_import = _command(
            team, "import", "qrels", team.owner_url, str(team.folder / "official.qrels"),
            "--name", "second",
        )  # fmt: skip
        assert owner_import.returncode == 0 and took_import < bound, (
            owner_import.stderr,
            took_import,
        )

        # the one write that needs what she holds: told whom it waits for, then gives up
        removed, took_remove = _command(team, "scale", team.owner_url, "--remove", "3")
        lines = removed.stderr.splitlines()
        waiting = [line for line in lines if "waiting for role " + team.roles["alice"] in line]
        assert (
            waiting
            and "(assessor alice)" in waiting[0]
            and "idle in a transaction since" in waiting[0]
        ), lines
        assert removed.returncode == 2 and lines[-1].startswith(
            "judgeapp: error: gave up after waiting 3 s"
        ), lines
        assert 3 <= took_remove < 10
        print(
            f"\nexport qrels {took_export:.2f} s (alone {base_export:.2f} s), bob's judge "
            f"{took_judge:.2f} s (alone {base_judge:.2f} s), owner's import {took_import:.2f} s; "
            f"the write on her grade gave up after {took_remove:.1f} s:"
            f"\n  {waiting[0]}\n  {lines[-1]}"
        )
        # the owner takes her off the team: her session ends, and the grade can go
        off, _ = _command(team, "team", "remove", "alice", "--db", team.owner_url)
        assert off.returncode == 0, off.stderr
        again, _ = _command(team, "scale", team.owner_url, "--remove", "3")
        assert again.returncode == 0, again.stderr
        with pytest.raises(psycopg.OperationalError):
            cur.execute("SELECT 1")
    finally:
        hostage.close()
    with Store.open(team.owner_url) as owner:  # her uncommitted judgment never landed
        assert [(j.qid, j.grade) for j in owner.judgments.all(assessors=["alice"])] == [("1", 1)]


def test_team_list_prints_names_escaped(team, capsys):
    """A name holding a terminal escape (one that would clear the screen) is listed escaped,
    by `team add` and `team list` alike, never sent to the terminal as it is."""
    name = "eve\x1b[2J\x1b[31m"
    role = f"eve_{uuid.uuid4().hex[:6]}"
    capsys.readouterr()
    assert main(["team", "add", name, "--role", role, "--db", team.owner_url]) == 0
    assert main(["team", "list", "--db", team.owner_url]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert out.count("eve\\x1b[2J\\x1b[31m") == 2 and f"eve\\x1b[2J\\x1b[31m\t{role}" in out


def test_members_search_the_collection_as_they_may_read_it(team):
    """An evaluator reads the search statistics (schema 0008) and ranks the collection by
    BM25 as the owner does; a blind assessor reads none of them (row-level security) and
    finds, ranked by ts_rank, only the documents she may read: her topic's pool and what
    she judged."""
    from judgeapp.services.search import parse_query

    query = parse_query("text")
    with Store.open(team.owner_url) as owner:
        everything = [(h.docno, h.score) for h in owner.search.find(query)]
    assert sorted(d for d, _ in everything) == [f"d{i}" for i in range(1, 7)]
    with Store.open(team.urls["carol"]) as carol:
        assert [(h.docno, h.score) for h in carol.search.find(query)] == everything
    assert psql(team, "alice", "SELECT count(*) FROM search_postings").stdout.strip() == "0"
    assert psql(team, "carol", "SELECT count(*) FROM search_segments").stdout.strip() == "1"
    with Store.open(team.urls["alice"]) as alice:
        assert alice.db.scope is not None and alice.db.scope.blind
        assert sorted(h.docno for h in alice.search.find(query)) == ["d1", "d2"]
