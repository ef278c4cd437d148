"""A new project filled by one command (`import ... --create`) is built in a file of its own
and put in its place whole: nothing is at its path before that, a failure leaves nothing
behind, and the file that appears is an ordinary WAL project, synced before it is named."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from judgeapp.services.imports import import_runs
from judgeapp.store import Store, StoreError
from judgeapp.store.files import ProjectFileError
from tests.store.test_project_file_locks import judgeapp  # main.py in a fresh process


def write_run(path: Path, tag: str, topics: int = 3, docs: int = 40) -> Path:
    path.write_text(
        "".join(
            f"{t} Q0 D{t}-{d} {d + 1} {docs - d} {tag}\n"
            for t in range(1, topics + 1)
            for d in range(docs)
        )
    )
    return path


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_nothing_is_at_the_path_until_published_and_then_a_wal_project(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    run = write_run(tmp_path / "r.run", "r")
    store = Store.build(db)
    try:
        assert store.being_built
        import_runs(store, [run])
        assert not db.exists()  # no other process can open a half-made project
        store.publish()
    finally:
        store.close()
    assert not store.being_built
    assert names(tmp_path) == {"p.db", "r.run"}  # the built file is renamed, nothing left
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store.open(db, create=False) as again:  # an ordinary project, holding the run
        assert [(r.name, r.n_topics, r.n_entries) for r in again.runs.all()] == [("r", 3, 120)]
        doc_ids, scores = again.runs.ranked_lists().runs["r"]["2"]
        assert scores.tolist() == [float(40 - d) for d in range(40)] and len(set(doc_ids)) == 40


def test_closed_without_publishing_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = Store.build(db)
    store.close()
    assert names(tmp_path) == set()


def test_only_a_new_project_file_is_built(tmp_path: Path) -> None:
    (tmp_path / "there.db").write_bytes(b"")
    with pytest.raises(StoreError, match="there already"):
        Store.build(tmp_path / "there.db")
    with pytest.raises(StoreError, match="not a database URL"):
        Store.build("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(ProjectFileError, match="no such directory"):
        Store.build(tmp_path / "missing" / "p.db")
    assert Store.is_new_file(tmp_path / "p.db")
    assert not Store.is_new_file(tmp_path / "there.db")
    assert not Store.is_new_file("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(StoreError, match="only a project being built"):
        with Store.open(tmp_path / "open.db") as store:
            store.publish()


def test_a_file_made_meanwhile_is_kept_and_the_new_project_too(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = Store.build(db)
    db.write_bytes(b"someone else's")
    with pytest.raises(ProjectFileError, match="created there while this project was built") as e:
        store.publish()
    store.close()
    assert db.read_bytes() == b"someone else's"
    kept = Path(str(e.value).rsplit("kept at ", 1)[1])
    assert kept.parent == tmp_path and kept.exists()
    with Store.open(kept, create=False) as built:
        assert built.runs.all() == []


def test_the_file_is_synced_before_it_is_named_and_its_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "p.db"
    store = Store.build(db)
    events: list[str] = []
    real_fsync, real_link = os.fsync, os.link

    def fsync(fd: int) -> None:
        target = os.readlink(f"/proc/self/fd/{fd}")
        events.append("sync " + ("folder" if Path(target) == tmp_path else Path(target).name))
        real_fsync(fd)

    def link(src: str | os.PathLike, dst: str | os.PathLike) -> None:
        events.append(f"link {Path(dst).name}")
        real_link(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "link", link)
    store.publish()
    store.close()
    assert events[-2:] == ["link p.db", "sync folder"]
    synced = [e for e in events[:-2] if e.startswith("sync ")]
    assert synced and synced[-1].endswith(".judgeapp-new")


def test_import_create_builds_a_new_project_and_leaves_nothing_on_failure(
    tmp_path: Path,
) -> None:
    good = write_run(tmp_path / "good.run", "good")
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 D1 1 1.0 bad\n1 Q0 D2 2 zz bad\n")
    failed = judgeapp("import", "run", str(tmp_path / "f.db"), str(good), str(bad), "--create")
    assert failed.returncode == 1
    assert f"{bad}:2: score 'zz' is not a number" in failed.stderr
    assert names(tmp_path) == {"good.run", "bad.run"}
    done = judgeapp("import", "run", str(tmp_path / "p.db"), str(good), "--create")
    assert done.returncode == 0, done.stderr
    assert names(tmp_path) == {"good.run", "bad.run", "p.db"}
    with Store.open(tmp_path / "p.db", create=False) as store:
        assert [(r.name, r.n_topics, r.n_entries) for r in store.runs.all()] == [("good", 3, 120)]
    # into the project now there: opened as ever, and a failure keeps what it held
    again = judgeapp("import", "run", str(tmp_path / "p.db"), str(bad), "--create")
    assert again.returncode == 1
    with Store.open(tmp_path / "p.db", create=False) as store:
        assert [r.name for r in store.runs.all()] == ["good"]


def test_an_import_whose_new_project_was_created_meanwhile_goes_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `import --create` into one new project at once: the second to finish finds the
    project the first put in place, and imports into it (nothing of its own build left)."""
    from judgeapp.cli import main
    from judgeapp.store import files

    db = tmp_path / "p.db"
    first = write_run(tmp_path / "first.run", "first")
    second = write_run(tmp_path / "second.run", "second", topics=2)
    real = files.put_in_place

    def other_process_first(staged: Path, path: Path) -> None:
        # the other import lands while this one is being built
        assert judgeapp("import", "run", str(path), str(first), "--create").returncode == 0
        real(staged, path)

    monkeypatch.setattr(files, "put_in_place", other_process_first)
    monkeypatch.setattr("judgeapp.store.store.put_in_place", other_process_first)
    assert main(["import", "run", str(db), str(second), "--create"]) == 0
    # the project (and the lock file of its writers), nothing left of the second's build
    assert names(tmp_path) == {
        "p.db",
        "p.db-judgeapp-lock",
        "p.db-judgeapp-open",
        "first.run",
        "second.run",
    }
    with Store.open(db, create=False) as store:
        assert [(r.name, r.n_topics) for r in store.runs.all()] == [("first", 3), ("second", 2)]
