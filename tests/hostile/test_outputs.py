"""Outputs written whole or not at all (judgeapp/outputs.py), and output that nobody reads
any more (`| head`): a quiet exit 141, as `cat` and `grep` give a shell."""

from __future__ import annotations

import gzip
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from judgeapp.formats import read_qrels, write_qrels
from judgeapp.outputs import OutputError, replacing, write_text, writing
from judgeapp.store import Store
from tests.hostile.cases import BASE, ROOT, many_qrels


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    with pytest.raises(RuntimeError), writing(out) as fh:
        fh.write("half of the new ")
        raise RuntimeError("stopped half-way")
    assert out.read_text() == "old\n"
    assert leftovers(tmp_path) == []
    write_text(out, "new\n")
    assert out.read_text() == "new\n"
    assert leftovers(tmp_path) == []


def test_a_write_the_disk_refuses_is_an_output_error_naming_the_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    with pytest.raises(OutputError, match=f"cannot write {out}: No space left on device"):
        with writing(out) as fh:
            fh.write("x")
            raise OSError(28, "No space left on device")
    assert out.read_text() == "old\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing/out.txt", "no such directory"), (".", "it is a directory")],
)
def test_places_that_cannot_be_written_are_said_before_anything_is(
    tmp_path: Path, name: str, message: str
) -> None:
    target = tmp_path / name
    with pytest.raises(OutputError, match=message):
        write_text(target, "x")
    assert leftovers(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions_and_a_link_its_target_replaced(
    tmp_path: Path,
) -> None:
    old_mask = os.umask(0o022)
    try:
        write_text(tmp_path / "plain.txt", "x")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o644
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_device_is_written_directly() -> None:
    with replacing("/dev/null") as path:
        assert str(path) == "/dev/null"
        path.write_text("nothing")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_gzipped_qrels_are_renamed_into_place_whole(tmp_path: Path) -> None:
    out = tmp_path / "q.qrels.gz"
    rows = list(read_qrels(BASE / "qrels.txt"))
    assert write_qrels(rows, out) == len(rows)
    assert list(read_qrels(out)) == rows
    assert leftovers(tmp_path) == []
    with gzip.open(out) as fh:
        assert fh.read().decode().startswith("401 0 D1 2\n")


# -- output nobody reads any more ---------------------------------------------------------------
def cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )


def test_export_into_head_stops_quietly(template: Path, tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    qrels = tmp_path / "many.qrels"
    with open(qrels, "wb") as fh:
        many_qrels(fh, 200_000)  # some 4 MB: far more than a pipe holds
    assert (
        subprocess.run(
            [sys.executable, str(ROOT / "main.py"), "import", "qrels", str(db), str(qrels)],
            capture_output=True,
        ).returncode
        == 0
    )
    proc = cli("export", "qrels", str(db))
    assert proc.stdout.readline()  # `head -n 1`
    proc.stdout.close()
    assert proc.wait(60) == 141
    assert proc.stderr.read() == b""


def test_info_and_judge_into_a_closed_pipe(template: Path, tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    db.write_bytes(template.read_bytes())
    before = db.read_bytes()
    info = cli("info", str(db))
    info.stdout.close()  # the reader is gone before the first line
    assert info.wait(60) == 141
    assert info.stderr.read() == b""
    assert db.read_bytes() == before

    with open(BASE / "judge.txt", "rb") as stdin:
        judge = cli("judge", str(db), "--assessor", "piped", stdin=stdin)
        judge.stdout.close()
        assert judge.wait(60) == 141
    assert judge.stderr.read() == b""
    # the first judgment was committed before its line could not be printed; no other
    with Store.open(db, create=False) as store:
        judged = [(j.qid, j.docno, j.grade) for j in store.judgments.all(assessors=["piped"])]
    assert judged == [("401", "D1", 1)]
