"""The hostile-input layer's fixtures: one fork server (tests/hostile/runner.py) and one
template project for the session, and a folder for each case that a user other than root
can enter (read-only projects are tried as `nobody` when the tests run as root)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.cases import build_template, clean
from tests.hostile.runner import ForkServer


@pytest.fixture(scope="session")
def hostile_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="judgeapp-hostile-"))
    root.chmod(0o755)
    yield root
    clean(root)


@pytest.fixture(scope="session")
def template(hostile_root: Path) -> Path:
    return build_template(hostile_root / "template.db")


@pytest.fixture(scope="session")
def server() -> Iterator[ForkServer]:
    with ForkServer() as running:
        yield running


@pytest.fixture
def case_dir(hostile_root: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="case-", dir=hostile_root))
    yield folder
    clean(folder)
