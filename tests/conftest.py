"""Test settings shared by every layer.

Qt must never look for a screen: the platform is set before any QApplication exists.
Tests that read the real data in ../shared (every test using the `shared_data` fixture)
carry the `shared` marker and skip cleanly when it is absent, except under CI (the CI
environment variable set), where a missing ../shared stops the run with an error: a CI run
that skipped them could pass without checking trec_eval parity at all. The same holds for
the reference packages of the `test` extras (pytrec_eval, ir_measures, ranx, statsmodels,
pyndeval, pandas, ...): tests import them with :func:`require`, a skip on a developer's
machine without them, a failure under CI. Under CI, Hypothesis's examples are fixed (the
`ci` profile), so a run judges the commit alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
TEST_DATA = Path(__file__).resolve().parent / "data"


def under_ci() -> bool:
    """CI services set CI (GitHub: "true", others "1" or "True")."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


def require(module: str) -> ModuleType:
    """Import a package of the `test` extras, most of them the independent references tests
    compare with: a skip when it is missing, except under CI, where a missing reference must
    fail (a run that skipped the comparison would pass without making it)."""
    if not under_ci():
        return pytest.importorskip(module)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(
            f"CI needs {module!r}, a reference of the tests ({exc}); install the test "
            "extras: python3 -m pip install -e '.[test]'",
            pytrace=False,
        )


# Hypothesis draws new examples on every run: on a developer's machine that keeps finding
# new bugs, but a CI run must judge the commit, not the luck of the draw. Under CI the
# examples are derived from each test's name (the same on every run); bugs found locally
# are pinned by direct tests (tests/hostile/test_regressions.py).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if under_ci():
    settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.shared)


# The suite runs in one process per core (pytest-xdist, `-n auto` in pyproject.toml). Tests
# marked `alone` measure the GUI thread's timing (the watchdog scenarios), which another
# test's work on the other core would disturb: each test holds a shared lock on a file of
# this test run while it runs (set-up and tear-down included), an `alone` test the
# exclusive one. A turnstile lock in front keeps waiting `alone` tests from being starved
# by the other process's stream of shared holders.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not hasattr(item.config, "workerinput"):  # not an xdist worker: nothing runs beside
        yield
        return
    # each process's temporary folder is in the test run's, which pytest clears later on
    run = item.config._tmp_path_factory.getbasetemp().parent  # type: ignore[attr-defined]
    with _room(run, alone=item.get_closest_marker("alone") is not None):
        yield


@contextlib.contextmanager
def _room(run: Path, *, alone: bool) -> Iterator[None]:
    with open(run / "turnstile.lock", "a") as turnstile, open(run / "room.lock", "a") as room:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)


def pytest_collection_finish(session: pytest.Session) -> None:
    if SHARED_DATA.is_dir() or not under_ci():
        return
    needing = sum(1 for item in session.items if item.get_closest_marker("shared"))
    if needing:
        pytest.exit(
            f"{SHARED_DATA} is missing: {needing} selected tests need it and CI must not skip "
            "them. Place the shared data folder beside the checkout (../shared/data).",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ../shared/data folder, or a skip when this checkout has none beside it."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


@pytest.fixture(scope="session")
def test_data() -> Path:
    return TEST_DATA


@pytest.fixture(params=["compiled", "numpy"])
def run_reader(request, monkeypatch) -> str:
    """`evaluate` reads its run files by the compiled reader (judgeapp/formats/_runread.c),
    then again by numpy alone (as where no C compiler built it): a test using this fixture
    holds both roads to the same output. Without the compiled module the first is a skip,
    except under CI, where it fails (`pip install -e .` builds it)."""
    from judgeapp.formats import judged_runs

    if request.param == "numpy":
        monkeypatch.setattr(judged_runs, "compiled", None)
    elif judged_runs.compiled is None:
        if under_ci():
            pytest.fail("the compiled run reader is not built (python3 -m pip install -e .)")
        pytest.skip("the compiled run reader is not built (python3 -m pip install -e .)")
    return request.param


# -- PostgreSQL: one throwaway server per test session (tests/pgserver.py) ---------------------
@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server on 127.0.0.1 for this test session (stopped at its end), or a
    skip saying how to get one; under CI a missing server fails the test instead."""
    from tests.pgserver import HOW_TO_GET, PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        if under_ci():
            pytest.fail(f"CI needs PostgreSQL for the shared-project tests: {HOW_TO_GET}")
        pytest.skip(HOW_TO_GET)
    server = PgServer(bindir).start()
    try:
        # a migrated template: each test's project is a copy, so tests do not pay for
        # migrations
        server.execute("CREATE DATABASE judgeapp_template")
        from judgeapp.store.schema import create_project_engine, upgrade

        engine = create_project_engine(server.url("judgeapp_template"))
        upgrade(engine, server.url("judgeapp_template"))  # the schema only: `init` may still run
        engine.dispose()
        yield server
    finally:  # a set-up that failed stops it too: no server outlives the session
        server.stop()


def new_pg_project(server) -> str:
    """A fresh, migrated, empty project database on `server`; returns its URL."""
    import uuid

    name = "p_" + uuid.uuid4().hex[:16]
    server.execute(f'CREATE DATABASE "{name}" TEMPLATE judgeapp_template')
    return server.url(name)


def pg_project_at(server, revision: str, statements: list[str]) -> str:
    """A new project database on `server` at schema `revision` (an old one, to test the
    upgrades from it), holding what `statements` write; returns its URL."""
    from alembic import command

    from judgeapp.store.locking import begin_write
    from judgeapp.store.schema import _alembic_config, create_project_engine

    url = server.url(server.create_database())
    engine = create_project_engine(url)
    try:
        with begin_write(engine, lock="advisory") as conn:
            command.upgrade(_alembic_config(conn), revision)
            for sql in statements:
                conn.exec_driver_sql(sql)
    finally:
        engine.dispose()
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def project_db(request, tmp_path) -> str:
    """Where a test's new project lives: a file (SQLite), or a database on the session's
    PostgreSQL server; tests using it run against both back ends."""
    if request.param == "sqlite":
        return str(tmp_path / "project.db")
    return new_pg_project(request.getfixturevalue("pg_server"))
