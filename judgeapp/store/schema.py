"""Opening a project database: engine, SQLite pragmas, and schema upgrades through Alembic.

Upgrades run from code when a project is opened. Before an existing file is upgraded it is
copied aside (``NAME.db.before-REV-YYYYmmddTHHMMSS``) so a failed or unwanted upgrade can be
undone by hand. A database written by a newer judgeapp (a revision this code does not know) is
refused rather than guessed at.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import QueuePool

from judgeapp.errors import UserError
from judgeapp.store.files import ProjectFileError, copy_project_file, file_error
from judgeapp.store.locking import (
    DEFAULT_WAIT_S,
    READ_BUSY_MS,
    SESSION_LOCK_MS,
    begin_write,
    is_write,
    lock_timeout_ms,
)

ROOT = Path(__file__).resolve().parent.parent.parent
MIGRATIONS = ROOT / "migrations"
# The newest revision this code writes. A test keeps it equal to Alembic's head, so opening
# an up-to-date project needs no Alembic import at all (it costs ~0.2 s of start-up).
SCHEMA_HEAD = "0008"
# A new SQLite project is made from this file, the schema that Alembic's migrations leave at
# SCHEMA_HEAD (its statements, as SQLite keeps them, in the order it made them), instead of
# replaying every migration: ~0.2 s less to create one, as Rails loads schema.rb. A test
# keeps the two identical; `python migrations/write_head_sqlite.py` writes it again.
HEAD_SQLITE = MIGRATIONS / "head_sqlite.sql"


class SchemaError(UserError, RuntimeError):
    """The database cannot be used by this version of judgeapp (too new, or not ours)."""


class Refused(UserError, ValueError):
    """The database refused a row its rules forbid (schema 0006), or a team member's role
    asked for what the server does not allow it; the message says which rule."""


RULE_PREFIX = "judgeapp: "  # how the schema's triggers and functions begin their messages
# what the CHECK constraints of schema 0006 say (SQLite and PostgreSQL name the constraint)
CHECKS = {
    "ck_judgments_grade": "a grade is a whole number from -1000 to 1000",
    "ck_judgments_time_spent": "time spent is a number of seconds from 0 to a year",
    "ck_judgments_score": "a score is a finite number",
    "ck_judgments_note": "a note has at most 65536 characters",
    "ck_judgments_qid": "a topic id has 1 to 4096 characters",
    "ck_judgments_times": "a judgment's times lie between 1970 and now",
    "ck_judgments_flagged": "flagged is true or false",
    "ck_judgment_history_grade": "a grade is a whole number from -1000 to 1000",
    "ck_judgment_history_previous_grade": "a grade is a whole number from -1000 to 1000",
    "ck_judgment_history_action": "an event creates, updates or deletes a judgment",
    "ck_judgment_history_time_spent": "time spent is a number of seconds within a year",
    "ck_judgment_history_score": "a score is a finite number",
    "ck_judgment_history_note": "a note has at most 65536 characters",
    "ck_judgment_history_words": "a topic id, origin or event id of a sane length",
    "ck_judgment_history_at": "an event's time lies between 1970 and now",
    "ck_assessors_name": "an assessor has a name of 1 to 1024 characters",
    "ck_topics_qid": "a topic id has 1 to 4096 characters",
    "ck_docnos_docno": "a docno has 1 to 4096 characters",
    # schema 0007
    "ck_search_log_scope": "a search is of the collection or of a pool",
    "ck_search_log_query": "a query has at most 65536 characters, a topic id 1 to 4096",
    "ck_search_log_results": "a search finds 0 or more documents",
    "ck_search_log_at": "a search's time lies between 1970 and now",
}
_CHECK_NAME = re.compile(r"\b(ck_\w+)")


def refusal(exc: BaseException, role: str | None) -> Refused | None:
    """The `Refused` for a database error that is one of the schema's own refusals (or, on
    PostgreSQL, a privilege the server does not grant `role`), else None."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if message.startswith(RULE_PREFIX):
        return Refused(f"the project refuses this: {message.removeprefix(RULE_PREFIX)}")
    named = _CHECK_NAME.search(message) if "check constraint" in message.lower() else None
    if named is not None and named.group(1) in CHECKS:
        return Refused(f"the project refuses this: {CHECKS[named.group(1)]}")
    if getattr(exc, "sqlstate", None) == "42501":  # insufficient_privilege
        who = f" to role {role}" if role else ""
        return Refused(f"the server does not allow this{who}: {message}")
    return None


def session_options(wait: float) -> str:
    """A PostgreSQL session's bounds: a lock is waited for at most `wait` seconds, a
    statement runs at most an hour longer, and a transaction left idle is ended."""
    lock_ms = lock_timeout_ms(wait)
    statement_ms = lock_ms + 3_600_000
    return (
        f"-c lock_timeout={lock_ms} -c statement_timeout={statement_ms} "
        f"-c idle_in_transaction_session_timeout={statement_ms}"
    )


def application_name() -> str:
    """What other sessions see of this one (`pg_stat_activity`): judgeapp and the command."""
    words = [a for a in sys.argv[1:3] if not a.startswith("-") and "://" not in a]
    return " ".join(["judgeapp", *words])[:60] or f"judgeapp {os.getpid()}"


def database_url(db: str | Path) -> str:
    """A file path or an SQLAlchemy URL -> an SQLAlchemy URL."""
    text_db = str(db)
    if "://" in text_db:
        return text_db
    return f"sqlite:///{Path(text_db).expanduser().resolve()}"


def url_without_password(url: str) -> str:
    """`url` as it may be shown (a window's title and status bar, a screenshot): a server's
    URL with its password, the role's only credential, written `***`."""
    parsed = make_url(url)
    return parsed.render_as_string(hide_password=True) if parsed.password else url


def sqlite_path(url: str) -> Path | None:
    """The file behind an SQLite URL, or None (memory databases, other back ends)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


PAGE_BYTES = 16384


def _set_sqlite_pragmas(dbapi_connection: sqlite3.Connection, *, building: bool) -> None:
    cursor = dbapi_connection.cursor()
    # a new project's pages (an existing file keeps its own; this must come before WAL):
    # 16 KiB holds a ranked list of 1,000 entries (12 KB) on one page instead of a chain of
    # four, and a bulk import writes and checkpoints a quarter of the frames
    cursor.execute(f"PRAGMA page_size={PAGE_BYTES}")
    if building:
        # a new project built in a file no other process knows (`Store.build`), synced
        # once when it is put in place: no WAL (each page is written once, not to the WAL
        # and again at the checkpoint) and no sync per commit. The rollback journal stays
        # in memory: pages beyond a file's size when its transaction began need none.
        cursor.execute("PRAGMA journal_mode=MEMORY")
        cursor.execute("PRAGMA synchronous=OFF")
    else:
        # WAL: readers never block the writer (the GUI reads while a worker imports).
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed judgment survives power loss, not only a crash of the program.
        cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # readers rarely wait in WAL mode (only while a crashed writer's WAL is recovered); a
    # writer waits for the write lock in steps of its own (judgeapp.store.locking)
    cursor.execute(f"PRAGMA busy_timeout={READ_BUSY_MS}")
    # only a writer holding judgeapp's write lock checkpoints (judgeapp.store.locking)
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    # the WAL file cut back to nothing when a writer starts the log again after a
    # checkpoint (otherwise it stays as large as the log ever grew, SQLite writing the new
    # log over the old from its start): its size is then what is not yet checkpointed,
    # which decides the next checkpoint (judgeapp.store.locking), and a truncation
    # happens once per checkpoint, not per commit
    cursor.execute("PRAGMA journal_size_limit=0")
    cursor.close()


def create_project_engine(
    url: str,
    *,
    read_only: bool = False,
    built_for: Path | None = None,
    limits: dict[str, float] | None = None,
) -> Engine:
    """The engine of a project. `read_only` (an SQLite file that this user cannot write, or
    in a folder this user cannot write): opened with `mode=ro&immutable=1`, since SQLite
    needs to write beside a WAL project even to read it; any write then fails with "the
    project is read-only here". `built_for`: `url` is the file where a new project for
    that path is built (`Store.build`), and errors name that path. `limits["wait"]`
    (PostgreSQL): how long each new session waits for a lock, read when it connects (the
    store sets it from the owner's choice)."""
    path = sqlite_path(url)
    shown = built_for or path
    if read_only and path is not None:
        uri = f"file:{quote(str(path))}?mode=ro&immutable=1"
        engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False),
            poolclass=QueuePool,
        )
    else:
        # no pre-ping on PostgreSQL: it costs a round trip per transaction (a grade key
        # makes two); a connection the server closed fails once and SQLAlchemy then
        # replaces the pool's
        engine = create_engine(url)
    if engine.dialect.name == "postgresql":
        bounds = limits if limits is not None else {"wait": DEFAULT_WAIT_S}

        @event.listens_for(engine, "do_connect")
        def _bounded(_dialect: Any, record: Any, _args: Any, params: dict[str, Any]) -> None:
            # set as the session starts, no round trip of its own; the URL's own options last
            given, wait = params.get("options"), bounds["wait"]
            ours = session_options(wait)
            params["options"] = f"{ours} {given}" if given else ours
            # a write then sets its lock_timeout only if it differs (locking.begin_write)
            record.info.pop(SESSION_LOCK_MS, None)
            if "lock_timeout" not in (given or ""):
                record.info[SESSION_LOCK_MS] = lock_timeout_ms(wait)
            params.setdefault("application_name", application_name())

    role = engine.url.username

    @event.listens_for(engine, "handle_error")
    def _refused(context: Any) -> None:
        # a row the schema's rules refuse, a privilege the server withholds: one line
        error = refusal(context.original_exception, role)
        if error is not None:
            raise error from None

    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
            try:
                _set_sqlite_pragmas(dbapi_connection, building=built_for is not None)
            except (sqlite3.Error, UnicodeDecodeError) as exc:  # the first statements
                error = None if shown is None else file_error(str(shown), exc)  # a file sees
                if error is None:
                    raise
                raise error from None

        # Let SQLAlchemy, not pysqlite, decide where transactions start and end, so a failed
        # import rolls back everything it did (pysqlite's legacy mode commits on its own).
        @event.listens_for(engine, "connect")
        def _no_pysqlite_transactions(dbapi_connection: Any, _record: object) -> None:
            dbapi_connection.isolation_level = None

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if is_write(conn) else "BEGIN")

        if path is not None:
            # a damaged page, a full disk, a read-only file: one message naming the file,
            # wherever the statement ran (judgeapp.store.files)
            @event.listens_for(engine, "handle_error")
            def _file_failed(context: Any) -> None:
                error = file_error(str(shown), context.original_exception)
                if error is not None:
                    raise error from None

    return engine


def _alembic_config(connection: Connection | None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


def known_revisions() -> list[str]:
    from alembic.script import ScriptDirectory

    cfg = _alembic_config(None)
    return [rev.revision for rev in ScriptDirectory.from_config(cfg).walk_revisions()]


def current_revision(engine: Engine) -> str | None:
    """The schema revision stored in the database, or None for an empty database.

    Raises SchemaError for a database that has tables but is not a judgeapp project."""
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        if "alembic_version" in tables:
            return _revision(conn)
    if tables:
        raise SchemaError(
            "this database is not a judgeapp project (it has tables but no schema version)"
        )
    return None


def _revision(conn: Connection) -> str | None:
    if "alembic_version" not in set(inspect(conn).get_table_names()):
        return None
    value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if value is None else str(value)


def upgrade(engine: Engine, url: str) -> str | None:
    """Bring the schema to SCHEMA_HEAD. Returns the path of the backup copy, if one was made.

    Two processes opening a new project at once: the upgrade runs under the write lock and
    looks at the revision again there, so only the first creates the schema. An upgrade is
    one transaction: when it fails the project is as it was, and the copy made for it is
    removed (a copy identical to the project, left by a try that was killed, is used again),
    so tries that fail leave at most one copy behind."""
    rev = current_revision(engine)
    if rev == SCHEMA_HEAD:
        return None
    if rev is not None and rev not in known_revisions():
        raise SchemaError(
            f"this project was written by a newer judgeapp (schema revision {rev!r}); "
            f"this version knows revisions up to {SCHEMA_HEAD!r}. Update judgeapp to open it."
        )
    if rev is not None and engine.dialect.name == "postgresql" and not _owns_schema(engine):
        raise SchemaError(
            f"this project's schema is at revision {rev!r} and this judgeapp needs "
            f"{SCHEMA_HEAD!r}: its owner must open it once with this judgeapp to upgrade it"
        )
    backup: Path | None = None
    made = False
    path = sqlite_path(url)
    if rev is not None and path is not None and path.exists():
        engine.dispose()
        backup = _kept_copy(path, rev)
        if backup is None:
            stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
            backup = path.with_name(f"{path.name}.before-{rev}-{stamp}")
            try:
                copy_project_file(path, backup)
            except (OSError, sqlite3.Error) as exc:
                raise ProjectFileError(
                    f"{path}: cannot upgrade the project: the copy kept before an upgrade "
                    f"cannot be written ({getattr(exc, 'strerror', None) or exc}: {backup})"
                ) from None
            made = True
    # PostgreSQL: before revision 0006 there is no write_lock row to queue on
    lock = "row" if rev is not None and rev >= "0006" else "advisory"
    try:
        with begin_write(engine, lock=lock) as conn:
            found = _revision(conn)
            if found == SCHEMA_HEAD:
                pass  # another process was first
            elif found is None and conn.dialect.name == "sqlite":
                create_sqlite_head(conn)
            else:
                migrate(conn)
    except BaseException:
        if made and backup is not None:
            backup.unlink(missing_ok=True)
        raise
    return None if backup is None else str(backup)


def _owns_schema(engine: Engine) -> bool:
    """Whether this PostgreSQL session may change the project's tables (their owner, or a
    superuser): a team member's role may not, and cannot upgrade it."""
    sql = (
        "SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c "
        "WHERE c.oid = to_regclass('alembic_version')"
    )
    with engine.connect() as conn:
        return bool(conn.exec_driver_sql(sql).scalar())


def _kept_copy(path: Path, rev: str) -> Path | None:
    """A copy kept before an earlier try of this upgrade that is still the project byte for
    byte (that try was killed before it could remove it), or None."""
    size = path.stat().st_size
    for other in sorted(path.parent.glob(f"{path.name}.before-{rev}-*")):
        try:
            if other.stat().st_size == size and _same_bytes(path, other):
                return other
        except OSError:
            continue
    return None


def _same_bytes(a: Path, b: Path) -> bool:
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def migrate(conn: Connection) -> None:
    """Alembic's upgrade to head, inside `conn`'s transaction."""
    from alembic import command

    command.upgrade(_alembic_config(conn), "head")


def head_statements() -> list[str]:
    """The statements of HEAD_SQLITE, one each (a trigger's body holds semicolons too)."""
    statements, current = [], ""
    for line in HEAD_SQLITE.read_text(encoding="utf-8").splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip().removesuffix(";"))
            current = ""
    return statements


def create_sqlite_head(conn: Connection) -> None:
    """An empty SQLite database made the schema of SCHEMA_HEAD, stamped with it."""
    for statement in head_statements():
        conn.exec_driver_sql(statement)
    conn.exec_driver_sql("INSERT INTO alembic_version (version_num) VALUES (?)", (SCHEMA_HEAD,))


def schema_rows(conn: Connection) -> list[tuple[str, str, str, str | None]]:
    """What SQLite holds of a schema: (type, name, table, statement), in creation order."""
    sql = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
    return [tuple(row) for row in conn.exec_driver_sql(sql).fetchall()]
