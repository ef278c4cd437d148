"""Bugs the hostile-input fuzzing found, each pinned by a direct test."""

from __future__ import annotations

from pathlib import Path

import pytest

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
        before = store.history.rows()
    assert main(["import", "qrels", str(db), str(BASE / "qrels.txt"), "--replace"]) == 0
    with Store.open(db, create=False) as store:
        assert store.history.rows() == before


@pytest.mark.parametrize(
    "data",
    [
        # found by the fuzzing layer: stdin split lines before decoding, so "\xe2\n" was an
        # "unexpected end of data" there and an "invalid continuation byte" in a file
        b"401 D1 1\n402 D2 \xe2\n402 D3 0\n",
        # found again (seed-dependent): a last line without its line end, cut inside a UTF-8
        # sequence; the file readers decode it with a line end added, stdin did not
        b"401 D1 1\n402 D2 \xd8",
    ],
)
def test_judge_names_a_broken_utf8_sequence_before_a_line_end_as_the_file_readers_do(
    tmp_path: Path, data: bytes
) -> None:
    import io

    from judgeapp.formats import FormatError
    from judgeapp.formats.textio import iter_stream_lines, open_text

    path = tmp_path / "judge.txt"
    path.write_bytes(data)
    with pytest.raises(FormatError) as from_file:
        with open_text(path) as lines:
            list(lines)
    with pytest.raises(FormatError) as from_stdin:
        list(iter_stream_lines(io.BytesIO(data), str(path)))
    assert "invalid continuation byte" in from_file.value.problem
    assert from_stdin.value.problem == from_file.value.problem
    assert from_stdin.value.line == from_file.value.line == 2


def test_a_schema_changed_under_its_revision_is_a_damaged_file_not_a_traceback(
    template: Path, tmp_path: Path, capsys
) -> None:
    """Flipped bytes (found by the probe's mutation 296 of seed 13, when projects had 4 KiB
    pages) that leave the schema parseable but `changes` no longer a column of
    project_changes pass quick_check; the first write then failed with a traceback. Here
    the one byte is flipped where it lies: "changes JSON" in the table's statement."""
    data = template.read_bytes()
    table = data.index(b"CREATE TABLE project_changes")
    at = data.index(b"changes JSON", table) + 2
    db = tmp_path / "p.db"
    db.write_bytes(data[:at] + b"b" + data[at + 1 :])  # "chbnges JSON"
    before = db.read_bytes()
    code = main(["pool", str(db), "--depth", "3", "--name", "probe-pool"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"judgeapp: error: {db}: the project file is damaged"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert db.read_bytes() == before


# -- issue 27: what a careful new user found (the corpus holds the rest: cases.toml) ------------
MAIN = Path(__file__).resolve().parents[2] / "main.py"


def _judgeapp(*argv: str, stdin: str = "", timeout: float = 60, **kwargs):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, str(MAIN), *argv],
        input=stdin, capture_output=True, text=True, timeout=timeout, **kwargs,
    )  # fmt: skip


def test_a_named_fifo_is_read_once_by_import_and_evaluate(template: Path, tmp_path: Path) -> None:
    """A FIFO used to be opened twice (format detection, then the reader): the second open
    waited for a writer that never came (a hang)."""
    import os
    import threading

    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    run, qrels = tmp_path / "run.fifo", tmp_path / "qrels.fifo"
    os.mkfifo(run)
    os.mkfifo(qrels)

    def feed(fifo: Path, source: Path) -> None:
        with open(fifo, "wb") as out:
            out.write(source.read_bytes())

    for fifo, source in ((run, BASE / "run.txt"),):
        threading.Thread(target=feed, args=(fifo, source), daemon=True).start()
    done = _judgeapp("import", "run", str(db), str(run), "--name", "fifo-run", timeout=30)
    assert done.returncode == 0, done.stderr
    with Store.open(db, create=False) as store:
        assert "fifo-run" in [r.name for r in store.runs.all()]
    for fifo, source in ((qrels, BASE / "qrels.txt"), (run, BASE / "run.txt")):
        threading.Thread(target=feed, args=(fifo, source), daemon=True).start()
    from_fifos = _judgeapp("evaluate", "-m", "map", str(qrels), str(run), timeout=30)
    from_files = _judgeapp("evaluate", "-m", "map", str(BASE / "qrels.txt"), str(BASE / "run.txt"))
    assert from_fifos.returncode == 0, from_fifos.stderr
    assert from_fifos.stdout == from_files.stdout != ""


def test_process_substitution_is_read_whole_not_called_empty() -> None:
    """`<(cmd)` is a pipe (/dev/fd/N): read once for the format and again for the data, it
    looked empty ("no run lines found")."""
    import shutil
    import subprocess
    import sys

    if shutil.which("bash") is None:
        pytest.skip("no bash for <(...)")
    qrels, run = BASE / "qrels.txt", BASE / "run.txt"
    shell = f"{sys.executable} {MAIN} evaluate -m map <(cat {qrels}) <(cat {run})"
    piped = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=60)
    direct = _judgeapp("evaluate", "-m", "map", str(qrels), str(run))
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout


def test_names_are_printed_escaped_by_info_and_evaluate(template: Path, tmp_path: Path) -> None:
    """A run tag holding a terminal escape (here one that would turn the screen red and
    clear it) is shown escaped, never sent to the terminal as it is."""
    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    tag = "evil\x1b[31m\x1b[2J"
    run = tmp_path / "evil.run"
    run.write_text(f"401 Q0 D1 1 2 {tag}\n401 Q0 D2 2 1 {tag}\n")
    assert _judgeapp("import", "run", str(db), str(run)).returncode == 0
    info = _judgeapp("info", str(db))
    evaluated = _judgeapp("evaluate", "-c", "-m", "runid", str(BASE / "qrels.txt"), str(run))
    for done in (info, evaluated):
        assert done.returncode == 0 and "\x1b" not in done.stdout, done.stdout
    assert "evil\\x1b[31m\\x1b[2J" in info.stdout
    assert "evil\\x1b[31m\\x1b[2J" in evaluated.stdout


def test_a_judge_that_cannot_write_leaves_no_assessor_and_says_whom_it_waited_for(
    template: Path, tmp_path: Path
) -> None:
    """Another writer holds the project (here a process that wrote itself into the lock
    file, as judgeapp's writers do): `judge` says after a second whom it waits for, gives up
    at the owner's limit (`team wait`), and the new assessor it would have made is not
    there (it was made before the judgment, in a transaction of its own)."""
    import fcntl
    import os

    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    assert _judgeapp("team", "wait", "2", "--db", str(db)).returncode == 0
    before = db.read_bytes()
    fd = os.open(f"{db}-judgeapp-lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, b"process 4242 (judgeapp import docs), since 12:00:00 UTC\n", 0)
        done = _judgeapp("judge", str(db), "--assessor", "newcomer", stdin="401 D1 2\n")
    finally:
        os.close(fd)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert lines[0] == (
        "judgeapp: waiting for another writer: process 4242 (judgeapp import docs), "
        "since 12:00:00 UTC"
    )
    assert lines[-1] == (
        "judgeapp: error: gave up after waiting 2 s for another writer: process 4242 "
        "(judgeapp import docs), since 12:00:00 UTC; nothing was written"
    )
    assert db.read_bytes() == before
    with Store.open(db, create=False) as store:
        assert "newcomer" not in [a.name for a in store.team.assessors()]


def test_failed_upgrades_leave_one_copy_at_most(tmp_path: Path, monkeypatch) -> None:
    """An upgrade that fails leaves the project as it was; the copy made for it is removed,
    and a copy left by a try that was killed is used again: not one copy per try."""
    import shutil

    from judgeapp.store import schema

    sample = Path(__file__).resolve().parents[1] / "store" / "fixtures" / "schema_0005.db"
    db = tmp_path / "p.db"
    shutil.copy(sample, db)
    original = db.read_bytes()

    def broken(conn) -> None:
        raise RuntimeError("the upgrade failed half-way")

    monkeypatch.setattr(schema, "migrate", broken)
    for _try in range(3):
        with pytest.raises(RuntimeError, match="half-way"):
            Store.open(db, create=False)
    assert db.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir() if ".before-" in p.name) == []
    killed = tmp_path / "p.db.before-0005-20260101T000000"  # a try killed before its cleanup
    shutil.copy(db, killed)
    for _try in range(2):
        with pytest.raises(RuntimeError):
            Store.open(db, create=False)
    assert [p for p in tmp_path.iterdir() if ".before-" in p.name] == [killed]
    monkeypatch.undo()
    with Store.open(db, create=False) as store:
        assert store.backup == str(killed)
    assert [p for p in tmp_path.iterdir() if ".before-" in p.name] == [killed]
