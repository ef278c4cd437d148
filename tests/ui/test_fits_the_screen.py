"""The window fits the screen it opens on (issue 30, item 3): a 1366x768 laptop and a
1920x1080 screen at 2x (960x540 of Qt's pixels) show the whole window, the judging view's
grade buttons and the status bar included; the window remembers its own geometry, unless
that no longer fits the screen.

The screen's size and scale factor are fixed when Qt starts, so the window is opened in a
child process (tests/ui/fit_probe.py) on Qt's offscreen platform configured as that screen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from live_project import pooled_project
from PySide6.QtCore import QRect, QSize

from judgeapp.ui.main_window import PREFERRED_SIZE, fits, fitted_geometry

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("available", "size"),
    [
        (QRect(0, 0, 1920, 1080), QSize(1280, 800)),  # room for the preferred size
        (QRect(0, 0, 1366, 768), QSize(1280, 720)),  # a laptop: as high as fits
        (QRect(0, 27, 1366, 741), QSize(1280, 693)),  # ... under a top panel
        (QRect(0, 0, 960, 540), QSize(944, 492)),  # 1920x1080 at 2x
        (QRect(1920, 0, 1280, 1024), QSize(1264, 800)),  # a second screen, to the right
    ],
)
def test_the_window_opens_at_a_size_that_fits_the_free_area_of_its_screen(available, size):
    rect = fitted_geometry(available)
    assert rect.size() == size
    assert fits(rect, available)
    # centred across; the title bar above the geometry has room
    assert abs((rect.left() - available.left()) - (available.right() - rect.right())) <= 1
    assert rect.top() - available.top() >= 24
    assert fitted_geometry(available, QSize(400, 300)).size() == QSize(400, 300)
    assert PREFERRED_SIZE == QSize(1280, 800)


@pytest.fixture(scope="module")
def project_db(tmp_path_factory) -> Path:
    return pooled_project(tmp_path_factory.mktemp("fit") / "p")


def probe(screen: str, scale: int, db: Path, settings: Path, *extra: str) -> dict:
    args = [screen, str(scale), str(db), str(settings), *extra]
    done = subprocess.run(
        [sys.executable, "-m", "tests.ui.fit_probe", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("screen", "scale", "free"),
    [("1366x768", 1, [1366, 768]), ("1920x1080", 2, [960, 540])],
)
def test_grade_buttons_and_status_bar_are_on_screen(project_db, tmp_path, screen, scale, free):
    report = probe(screen, scale, project_db, tmp_path / "settings.ini")
    assert report["available"] == free and report["dpr"] == scale
    x, y, width, height = report["geometry"]
    assert fits(QRect(x, y, width, height), QRect(0, 0, *free))
    assert report["judging_shown"]
    assert report["grade_buttons"] == [True] * 4, report
    assert report["status_bar"], report
    # reopened where it was (its own geometry, remembered)
    assert report["reopened"] == report["geometry"]


def test_the_window_remembers_its_own_geometry_unless_it_no_longer_fits(project_db, tmp_path):
    settings = tmp_path / "settings.ini"
    # a size of the user's own is kept
    report = probe("1366x768", 1, project_db, settings, "--resize", "1000x600")
    assert report["reopened"][2:] == [1000, 600]
    # another screen: the preferred size, as much as fits it (Qt restores a geometry on
    # the screen it was saved on only), then remembered there
    big = probe("1920x1080", 1, project_db, settings)
    assert big["geometry"][2:] == big["reopened"][2:] == [1280, 800]
    small = probe("1366x768", 1, project_db, settings)
    assert small["geometry"][2:] == [1280, 720]
    assert small["grade_buttons"] == [True] * 4 and small["status_bar"]
