"""Fixtures for the GUI tests: an isolated QSettings, the real main window, its inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"
FIXTURE_RUNS = Path(__file__).resolve().parents[1] / "data" / "workbench"


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def demo_inputs() -> dict[str, list[str]]:
    """The demo project's input files by kind (its runs once they are in the repository,
    the small Cranfield runs under tests/data/workbench until then)."""
    runs = sorted((DEMO / "runs").glob("*.run.gz")) or sorted(FIXTURE_RUNS.glob("*.run.gz"))
    return {
        "topics": [str(DEMO / "cran.qry.gz")],
        "documents": [str(DEMO / "cran.all.1400.gz")],
        "runs": [str(p) for p in runs],
        "qrels": [str(DEMO / "cranqrel.gz")],
    }


@pytest.fixture
def paint_comes(monkeypatch):
    """For tests of the order of paints and the work that follows them: the work waiting
    for a paint (judgeapp.ui.ops.after_paint) waits 10 s for it, not PAINT_WAIT_MS (on a
    loaded machine the paint itself may come later than that, and the work then runs
    before it)."""
    monkeypatch.setattr("judgeapp.ui.ops.PAINT_WAIT_MS", 10_000)


@pytest.fixture
def make_window(qtbot, settings):
    """Build the real main window and controller (as `run_gui` does), shown and active."""
    from judgeapp.app import build_main_window, ensure_app

    ensure_app()
    made = []

    def make():
        window, controller = build_main_window(settings)
        qtbot.addWidget(window)
        window.resize(1200, 760)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        made.append(window)
        return window, controller

    yield make
    for window in made:
        window.close()


# -- the TREC-sized project of the watchdog scenarios ----------------------------------------
# benchmarks/trec_scale.py builds it: in the tests 50,000 documents (the benchmark: 500,000),
# 5 topics (50) and, as in the benchmark, 115 runs of 1,000 documents a topic and a depth-100
# pool of about 1,700 documents a topic, so that what grows with a topic (its pool, the runs
# a judgment changes) is at full size. Built once and kept in pytest's cache folder, keyed by
# the generator's source and the schema; a test works on a copy.
TREC_TEST_SIZE = {"docs": 50_000, "runs": 115, "topics": 5, "depth": 100}


@pytest.fixture(scope="session")
def trec_project_file(request) -> Path:
    import hashlib
    import os
    import sys
    import time

    from judgeapp.store.schema import SCHEMA_HEAD

    root = Path(__file__).resolve().parents[2]
    source = (root / "benchmarks" / "trec_scale.py").read_bytes()
    key = hashlib.sha256(source + repr(sorted(TREC_TEST_SIZE.items())).encode()).hexdigest()
    folder = request.config.cache.mkdir("trec-scale")
    path = folder / f"trec-{SCHEMA_HEAD}-{key[:16]}.db"
    if not path.exists():
        sys.path.insert(0, str(root / "benchmarks"))
        try:
            from trec_scale import build_project
        finally:
            sys.path.pop(0)
        start = time.perf_counter()
        # built beside and renamed: a build cut short leaves no project that looks whole
        building = path.with_name(f"{path.stem}.building-{os.getpid()}.db")
        timings = build_project(building, say=lambda _m: None, **TREC_TEST_SIZE)
        os.replace(building, path)
        took = time.perf_counter() - start
        (folder / "last-build.txt").write_text(
            f"built {path.name} in {took:.1f} s: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
            + "\n"
        )
    return path


@pytest.fixture
def trec_project(trec_project_file, tmp_path) -> Path:
    """A copy of the TREC-sized test project (see TREC_TEST_SIZE) for one test."""
    import shutil

    path = tmp_path / "trec.db"
    shutil.copyfile(trec_project_file, path)
    return path


@pytest.fixture
def gui_watchdog(qtbot):
    """A heartbeat watchdog on the GUI thread (tests/ui/watchdog.py), started; the test
    calls its `check()` at the end."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from tests.ui.watchdog import SUITE_FAIL_MS, GuiWatchdog

    # what earlier tests left to the event loop (their windows deleted later: a dashboard,
    # a team view, each 50-100 ms of Qt's destructors) is not this scenario's
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    dog = GuiWatchdog(fail_ms=SUITE_FAIL_MS)
    dog.start()
    yield dog
    dog.stop()
