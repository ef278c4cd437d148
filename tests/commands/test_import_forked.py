"""`import run DB RUN...` reading its runs in forked processes while the project opens
(judgeapp.forked.ForkedAhead, formats.bulk.NumberedRuns) stores exactly what reading them
here stores: the same runs, ranked lists and docno ids; and a bad run file gives the same
one-line error wherever it stands, with nothing written."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import judgeapp.forked
from judgeapp.bytekeys import ByteKeys
from judgeapp.cli import main
from judgeapp.commands import imports as import_command
from judgeapp.store import Store
from tests.formats.malformed_cases import CASES, MALFORMED

RUN_CASES = [name for name, kind, _ in CASES if kind == "run"]


def write_runs(tmp_path: Path, n: int) -> list[str]:
    """Runs sharing some docnos, ties, and docnos of several lengths and scripts."""
    runs = []
    for r in range(n):
        path = tmp_path / f"run{r}.txt"
        rows = []
        for q in (401, 402, 7):
            for d in range(40):
                docno = f"D{(d * 7 + 5 * r) % 60}" + ("-été-long-suffix" * (d % 3 == 0))
                rows.append(f"{q} Q0 {docno} {d + 1} {(d * 7 + r) % 11} tag{r}\n")
        path.write_text("".join(rows), encoding="utf-8")
        runs.append(str(path))
    return runs


def import_cli(monkeypatch, capsys, db: Path, files: list[str], forked: bool):
    monkeypatch.setattr(import_command, "FORK_MIN_BYTES", 0 if forked else 1 << 60)
    monkeypatch.setattr(judgeapp.forked, "usable_cores", lambda: 3)
    code = main(["import", "run", str(db), *files, "--create"])
    out = capsys.readouterr()
    return code, out.out, out.err


def contents(db: Path) -> tuple:
    """Every run's row and ranked lists (as docnos and scores), and the docno ids."""
    with Store.open(db, create=False) as store:
        runs = [(r.name, r.tag, r.n_topics, r.n_entries, r.source_sha256) for r in store.runs.all()]
        lists = store.runs.ranked_lists()
    con = sqlite3.connect(db)
    try:
        docnos = dict(con.execute("SELECT id, docno FROM docnos").fetchall())
    finally:
        con.close()
    ranked = {
        (name, qid): ([docnos[int(i)] for i in ids], np.asarray(scores).tolist())
        for name, topics in lists.runs.items()
        for qid, (ids, scores) in topics.items()
    }
    return runs, ranked, docnos


@pytest.mark.parametrize("n", [1, 2, 7])
def test_forked_reading_stores_what_reading_here_stores(tmp_path, monkeypatch, capsys, n):
    files = write_runs(tmp_path, n)
    here = import_cli(monkeypatch, capsys, tmp_path / "here.db", files, forked=False)
    forked = import_cli(monkeypatch, capsys, tmp_path / "forked.db", files, forked=True)
    assert here[0] == 0 and f"imported {n} runs" in here[2]
    assert forked == here
    expected = contents(tmp_path / "here.db")
    assert len(expected[0]) == n and len(expected[1]) == 3 * n
    assert contents(tmp_path / "forked.db") == expected


def test_docnos_with_one_hash_take_the_exact_road(tmp_path, monkeypatch, capsys):
    """Every docno hashing alike (a collision in every child and in the store): the runs are
    read again here and stored through text, with the same result."""
    files = write_runs(tmp_path, 4)
    here = import_cli(monkeypatch, capsys, tmp_path / "here.db", files, forked=False)
    monkeypatch.setattr(ByteKeys, "hashes", lambda self: np.zeros(len(self), dtype=np.uint64))
    forked = import_cli(monkeypatch, capsys, tmp_path / "forked.db", files, forked=True)
    assert forked == here
    assert contents(tmp_path / "forked.db") == contents(tmp_path / "here.db")


@pytest.mark.parametrize("name", RUN_CASES)
@pytest.mark.parametrize("position", [0, 1, 4])
def test_a_bad_run_gives_the_same_error_and_writes_nothing(
    tmp_path, monkeypatch, capsys, name, position
):
    files = write_runs(tmp_path, 5)
    inputs = {p.name for p in tmp_path.iterdir()} | {name}
    bad = tmp_path / name
    shutil.copy(MALFORMED / name, bad)
    files[position] = str(bad)
    here = import_cli(monkeypatch, capsys, tmp_path / "here.db", files, forked=False)
    forked = import_cli(monkeypatch, capsys, tmp_path / "forked.db", files, forked=True)
    expected = next(problem for n, _, problem in CASES if n == name)
    assert here[0] == 1 and expected in here[2]
    assert len(here[2].strip().splitlines()) == 1
    assert forked == here
    # the project was new: nothing is left of it, not even the file it was built in
    assert {p.name for p in tmp_path.iterdir()} == inputs


def test_the_readers_take_the_largest_files_first_one_process_per_core(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    sizes = [5, 90, 10, 40, 45, 1, 30]
    files = []
    for i, size in enumerate(sizes):
        path = tmp_path / f"run{i}"
        path.write_text("".join(f"1 Q0 D{d} {d + 1} {-d} r{i}\n" for d in range(size)))
        files.append(str(path))
    made = []

    class Recorded(judgeapp.forked.ForkedAhead):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.forked = len(self.children)
            made.append(self)

    monkeypatch.setattr(judgeapp.forked, "ForkedAhead", Recorded)
    code, _, err = import_cli(monkeypatch, capsys, tmp_path / "p.db", files, forked=True)
    assert code == 0, err
    (ahead,) = made
    assert ahead.order == [1, 4, 3, 6, 2, 0, 5]  # 90, 45, 40, 30, 10, 5, 1 entries
    # three usable cores (import_cli): two children, and this process once the project
    # is open; none left after
    assert ahead.forked == 2 and ahead.children == []
    with Store.open(tmp_path / "p.db", create=False) as store:
        assert [r.name for r in store.runs.all()] == [f"r{i}" for i in range(7)]


def test_runs_of_very_different_sizes_store_the_same_when_read_forked(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    files = write_runs(tmp_path, 5)
    # the second file three times as large
    Path(files[1]).write_text(
        "".join(
            f"{k}{line}".replace(" tag0", " tag1")  # topics 0401, 1401, 2401, ...
            for k in range(3)
            for line in Path(files[0]).read_text().splitlines(keepends=True)
        ),
        encoding="utf-8",
    )
    results = {}
    for forked in (False, True):
        db = tmp_path / f"{forked}.db"
        code, _, err = import_cli(monkeypatch, capsys, db, files, forked)
        assert code == 0, err
        results[forked] = contents(db)
    assert results[True] == results[False]
