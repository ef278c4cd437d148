"""Opening a project reads nothing of it through: SQLite's quick_check runs only before the
first write after a session that ended without closing the file (killed, crashed), and on
demand (`check`). Issue 28: the check cost 1.6 s per GB on every open and every command's
first write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event

from judgeapp.cli import main
from judgeapp.store import Store
from judgeapp.store.files import CHECK_DUE, SESSION_SUFFIX, ProjectFileError

ROOT = Path(__file__).resolve().parents[2]


def checks_run(store: Store) -> list[str]:
    """The integrity checks `store` runs from now on, as they run."""
    seen: list[str] = []

    @event.listens_for(store.db.engine, "before_cursor_execute")
    def _seen(_conn, _cursor, statement, *_args) -> None:
        if "quick_check" in statement or "integrity_check" in statement:
            seen.append(statement)

    return seen


def killed_while_writing(db: Path) -> None:
    """A process that writes to the project and dies without closing it."""
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[2]);"
        "from judgeapp.store import Store;"
        "s = Store.open(sys.argv[1]); s.settings.put('x', 1); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", code, str(db), str(ROOT)], check=True)
    assert Path(f"{db}-wal").stat().st_size > 0  # what it leaves: a WAL nobody owns


def test_a_sound_session_reads_nothing_through(tmp_path):
    db = tmp_path / "p.db"
    Store.open(db).close()
    store = Store.open(db)
    seen = checks_run(store)
    store.settings.put("a", 1)
    store.settings.put("b", 2)
    assert not store.check_due and seen == []
    # a second store while the first is open finds a WAL, owned: no check either
    other = Store.open(db)
    assert not other.check_due
    other.settings.put("c", 3)
    other.close()
    store.close()
    assert not Store.open(db).check_due


def test_after_a_crash_the_first_write_checks_first_and_once(tmp_path):
    db = tmp_path / "p.db"
    Store.open(db).close()
    killed_while_writing(db)
    # a reader alone does not make the evidence go away (SQLite removes the WAL at close)
    reader = Store.open(db)
    assert reader.check_due and reader.settings.get("x") == 1
    reader.close()
    assert Path(f"{db}{SESSION_SUFFIX}").read_bytes() == CHECK_DUE
    store = Store.open(db)
    seen = checks_run(store)
    assert store.check_due
    store.settings.put("y", 2)
    store.settings.put("z", 3)
    assert [s.strip() for s in seen] == ["PRAGMA quick_check"] and not store.check_due
    store.close()
    assert Path(f"{db}{SESSION_SUFFIX}").read_bytes() == b""
    assert not Store.open(db).check_due


def test_after_a_crash_a_damaged_file_takes_no_write(tmp_path):
    db = tmp_path / "p.db"
    with Store.open(db) as store:
        store.topics.put([])
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[3 * page : 4 * page] = bytes(range(256)) * (page // 256)
    db.write_bytes(bytes(data))
    Path(f"{db}{SESSION_SUFFIX}").write_bytes(CHECK_DUE)
    store = Store.open(db)
    with pytest.raises(ProjectFileError, match="the project file is damaged"):
        store.settings.put("x", 1)
    assert store.check_due  # still: the next write checks again
    with pytest.raises(ProjectFileError, match="the project file is damaged"):
        store.check()  # SQLite's own error, named for the file
    store.close()


def test_check_on_demand(tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(["init", str(db)]) == 0
    killed_while_writing(db)
    capsys.readouterr()
    assert main(["check", str(db)]) == 0
    out = capsys.readouterr().out
    assert "sound (quick_check" in out and "it was due" in out
    assert main(["check", str(db), "--full"]) == 0
    assert "sound (integrity_check" in capsys.readouterr().out
    with Store.open(db) as store:
        assert not store.check_due


def test_a_file_cut_short_is_refused_at_open_without_reading_it(tmp_path):
    db = tmp_path / "p.db"
    with Store.open(db) as store:
        store.topics.put([])
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    with pytest.raises(ProjectFileError, match="cut short"):
        Store.open(db)
