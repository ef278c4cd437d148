"""Bugs the hostile-input fuzzing found, each pinned by a direct test."""

from __future__ import annotations

from pathlib import Path

from judgeapp.cli import main
from judgeapp.store import Store
from tests.hostile.cases import BASE


def test_importing_the_same_qrels_again_with_replace_changes_nothing(
    template: Path, tmp_path: Path
) -> None:
    """No judgment differs, so no row is written: an empty list of rows ran the insert
    once with no parameters (sqlite3.ProgrammingError, a traceback)."""
    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    with Store.open(db, create=False) as store:
        before = store.history()
    assert main(["import", "qrels", str(db), str(BASE / "qrels.txt"), "--replace"]) == 0
    with Store.open(db, create=False) as store:
        assert store.history() == before
