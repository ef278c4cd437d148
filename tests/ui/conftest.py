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
