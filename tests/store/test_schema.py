"""Schema creation and upgrades: head revision, model/migration agreement, refusals."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from judgeapp.services.policy import qrels_rows
from judgeapp.services.search import parse_query
from judgeapp.store import SchemaError, Store
from judgeapp.store.files import ProjectFileError
from judgeapp.store.locking import begin_write
from judgeapp.store.models import metadata, modelled
from judgeapp.store.schema import (
    MIGRATIONS,
    SCHEMA_HEAD,
    create_project_engine,
    migrate,
    schema_rows,
)

FIXTURES = Path(__file__).parent / "fixtures"


def test_schema_head_constant_is_alembic_head():
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == SCHEMA_HEAD


def test_migrations_create_exactly_the_models(tmp_path):
    Store.open(tmp_path / "p.db").close()
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_object": modelled})
        diff = compare_metadata(context, metadata)
    assert diff == []


def test_new_sqlite_project_is_the_schema_the_migrations_make(tmp_path):
    """A new SQLite project is made from migrations/head_sqlite.sql, not by replaying the
    migrations: the two give the same tables, indexes and triggers, statement for statement,
    in the same order. When this fails after a migration is added, run
    `python migrations/write_head_sqlite.py`."""
    Store.open(tmp_path / "new.db").close()
    migrated = create_project_engine(f"sqlite:///{tmp_path / 'migrated.db'}")
    made = create_project_engine(f"sqlite:///{tmp_path / 'new.db'}")
    try:
        with begin_write(migrated) as conn:
            migrate(conn)
        with migrated.connect() as a, made.connect() as b:
            assert schema_rows(a) == schema_rows(b)
            assert len(schema_rows(a)) > 20
            assert [r[0] for r in schema_rows(b)].count("trigger") == 9
            version = "SELECT version_num FROM alembic_version"
            assert a.exec_driver_sql(version).all() == b.exec_driver_sql(version).all()
    finally:
        migrated.dispose()
        made.dispose()


def test_new_project_has_pragmas_and_head(tmp_path):
    store = Store.open(tmp_path / "p.db")
    with store.db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10000
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA page_size").scalar() == 16384
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
            SCHEMA_HEAD
        )
    store.close()


def test_database_newer_than_the_code_is_refused(tmp_path):
    path = tmp_path / "p.db"
    Store.open(path).close()
    with sqlite3.connect(path) as con:
        con.execute("UPDATE alembic_version SET version_num = '9999_future'")
    before = path.read_bytes()
    with pytest.raises(SchemaError, match=r"newer judgeapp.*9999_future"):
        Store.open(path)
    assert path.read_bytes() == before


def test_foreign_database_is_refused_and_left_as_it_was(tmp_path):
    """Another program's database, and an empty one a command would not make a project of,
    are refused before judgeapp's connection would switch them to WAL: byte for byte as
    they were (the hostile probe found both changed)."""
    path = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.execute("CREATE TABLE notes (x)")
        con.commit()
    empty = tmp_path / "empty.db"
    with contextlib.closing(sqlite3.connect(empty)) as con:
        con.execute("CREATE TABLE t (x)")
        con.execute("DROP TABLE t")
        con.commit()
    before = {p: p.read_bytes() for p in (path, empty)}
    with pytest.raises(ProjectFileError, match=r"not a judgeapp project .an SQLite database of"):
        Store.open(path)
    with pytest.raises(ProjectFileError, match=r"not a judgeapp project \(an empty database\)"):
        Store.open(empty, create=False)
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["empty.db", "other.db"]


@pytest.mark.parametrize("sample", sorted(FIXTURES.glob("schema_*.db")), ids=lambda p: p.stem)
def test_released_schema_samples_open_with_their_data(tmp_path, sample):
    """Every released schema's sample project opens with the current code (upgraded after a
    backup copy when older) and keeps its topics, runs and judgments."""
    path = tmp_path / sample.name
    shutil.copy(sample, path)
    revision = sample.stem.removeprefix("schema_")
    with contextlib.closing(sqlite3.connect(sample)) as released:
        (page_size,) = released.execute("PRAGMA page_size").fetchone()
    store = Store.open(path)
    with store.db.read() as conn:  # an existing file keeps its pages (16 KiB is for new ones)
        assert conn.exec_driver_sql("PRAGMA page_size").scalar() == page_size
    assert [t.qid for t in store.topics.all()] == ["1", "2"]
    assert [r.name for r in store.runs.all()] == ["sample-run"]
    lists = store.runs.ranked_lists()
    assert lists.n_entries == 5
    searched = revision >= "0007"  # a judgment found by search, documents, the search log
    extra = [("1", "d9", 2)] if searched else []
    assert qrels_rows(store) == [("1", "d1", 2), ("1", "d3", 0), *extra, ("2", "d2", 1)]
    assert len(store.history.rows()) == 4 + len(extra)
    # the full-text index holds the documents of every sample (built by the upgrade)
    assert [h.docno for h in store.search.find(parse_query("nozzle"))] == (
        ["d9"] if searched else []
    )
    assert {(r.docno, r.found_by, r.query) for r in store.judgments.export()} >= (
        {("d9", "search", "supersonic nozzle")} if searched else {("d1", "pool", None)}
    )
    assert [(e.assessor, e.query) for e in store.search.logged()] == (
        [("alice", "supersonic nozzle")] if searched else []
    )
    if revision != SCHEMA_HEAD:
        assert store.backup is not None and Path(store.backup).exists()
        # the copy kept is the project as it was: its revision and its rows
        with contextlib.closing(sqlite3.connect(store.backup)) as kept:
            assert kept.execute("SELECT version_num FROM alembic_version").fetchall() == [
                (revision,)
            ]
            assert kept.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert kept.execute("SELECT count(*) FROM topics").fetchall() == [(2,)]
    else:
        assert store.backup is None
    store.close()


BAD_ROWS_0005 = [
    # alice judged topic 2's d2 (schema_0005.db): her judgment's time and times broken
    "UPDATE judgments SET time_spent = -5, updated_at = '3000-01-01 00:00:00.000000' "
    "WHERE qid = '2'",
    # bob: a grade off the scale, on a topic the project lacks, no history at all
    "INSERT INTO assessors (name, kind, created_at) VALUES ('bob', 'person', '2026-01-01')",
    "INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, time_spent, "
    "created_at, updated_at, score) SELECT '404', id, (SELECT id FROM assessors WHERE "
    "name = 'bob'), 99, '', 0, 1e999, '1900-01-01 00:00:00.000000', "
    "'1900-01-01 00:00:00.000000', 1e999 FROM docnos WHERE docno = 'd1'",
]


def test_the_upgrade_to_0006_repairs_what_it_can_and_reports_the_rest(tmp_path, capsys):
    """A project of the released schema 0005 holding rows the new rules refuse (written
    there by a script): the upgrade sets right what loses nothing, keeps and reports the
    rest (`info` lists it), and from then on the project refuses such rows."""
    from judgeapp.cli import main

    db = tmp_path / "p.db"
    shutil.copy(FIXTURES / "schema_0005.db", db)
    with contextlib.closing(sqlite3.connect(db)) as con:
        for sql in BAD_ROWS_0005:
            con.execute(sql)
        con.commit()
    with Store.open(db) as store:
        report = store.settings.get("checks.0006")
        rows = {j.assessor: j for j in store.judgments.all()}
        history = store.history.rows()
    assert report == {
        "repaired": {
            "time spent set to 0 (not a number, negative or over a year)": 2,
            "scores dropped (not finite)": 1,
            "judgment times set to the upgrade's (before 1970 or in the future)": 3,
            "history events added where the history did not end in the judgment": 1,
        },
        "kept": {
            "people's judgments with a grade off the project's scale": 1,
            "people's judgments of a topic the project lacks": 1,
        },
    }
    assert rows["alice"].time_spent == 0 and rows["bob"].time_spent == 0
    assert rows["bob"].grade == 99  # kept: no grade is made up for it
    assert rows["alice"].updated_at.year < 3000
    assert [(e["origin"], e["grade"]) for e in history if e["origin"] == "repair"] == [
        ("repair", 99)
    ]
    assert main(["info", str(db)]) == 0
    out = capsys.readouterr().out
    assert (
        "kept as they were, breaking the project's rules: 1 people's judgments with a grade off"
        in out
    )
    # the rules hold from now on, whoever writes
    with contextlib.closing(sqlite3.connect(db)) as con:
        for sql, says in (
            ("UPDATE judgments SET grade = 7 WHERE qid = '2'", "on the project's scale"),
            ("UPDATE judgments SET time_spent = -1 WHERE qid = '2'", "ck_judgments_time_spent"),
            ("UPDATE judgments SET updated_at = '3000-01-01' WHERE qid = '2'", "between 1970"),
            ("DELETE FROM judgments WHERE qid = '2'", "only with the history event"),
        ):
            with pytest.raises(sqlite3.IntegrityError, match=says):
                con.execute(sql)


@pytest.mark.postgres
def test_the_upgrade_to_0006_on_postgresql_repairs_and_validates(pg_server):
    """The same on PostgreSQL, with what only it can hold (a NaN time spent): rules whose
    rows are all valid become validated constraints; the others bind new rows only."""
    from tests.conftest import pg_project_at

    url = pg_project_at(
        pg_server,
        "0005",
        [
            "INSERT INTO topics (qid, title, description, narrative, fields, imported_at) "
            "VALUES ('1', 't', '', '', '{}', now())",
            "INSERT INTO scale (grade, label, key, definition) VALUES (1, 'r', '1', '')",
            "INSERT INTO docnos (docno) VALUES ('d1')",
            "INSERT INTO assessors (name, kind, created_at) VALUES ('eve', 'person', now())",
            "INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, "
            "time_spent, created_at, updated_at) VALUES ('1', 1, 1, 1, '', false, "
            "'NaN', now(), '3000-01-01')",
        ],
    )
    with Store.open(url) as store:
        report = store.settings.get("checks.0006")
        [row] = store.judgments.all()
        with store.db.read() as conn:
            valid = dict(
                conn.exec_driver_sql(
                    "SELECT conname, convalidated FROM pg_constraint WHERE starts_with(conname, 'ck_')"
                ).all()
            )
    assert report["repaired"]["time spent set to 0 (not a number, negative or over a year)"] == 1
    assert (
        report["repaired"]["history events added where the history did not end in the judgment"]
        == 1
    )
    assert row.time_spent == 0 and row.updated_at.year < 3000
    assert valid["ck_judgments_time_spent"] and valid["ck_judgments_grade"]
