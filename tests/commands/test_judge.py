"""`judge`: stdin lines become committed judgments; a SIGKILL loses nothing recorded."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judgeapp.cli import main
from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store

ROOT = Path(__file__).resolve().parents[2]


def test_judge_records_lines_and_reports_each(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    capsys.readouterr()
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("# header\n401 FT1 2 clearly on topic\n\n401 FT2 0\n")
    )
    assert main(["judge", db, "--assessor", "crowd-7"]) == 0
    assert capsys.readouterr().out.splitlines() == ["recorded 401 FT1 2", "recorded 401 FT2 0"]
    store = Store.open(db)
    [j1, j2] = store.judgments()
    assert (j1.docno, j1.grade, j1.note, j1.assessor) == ("FT1", 2, "clearly on topic", "crowd-7")
    assert (j2.docno, j2.grade, j2.note) == ("FT2", 0, "")
    store.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("401 FT1\n", "stdin:1: expected `topic docno grade [note]`, found 2 field(s)"),
        ("401 FT1 2\n401 FT2 high\n", "stdin:2: grade 'high' is not an integer"),
        ("401 FT1 9\n", "stdin:1: grade 9 is not on the project's scale"),
    ],
)
def test_bad_lines_stop_with_their_line_number(tmp_path, monkeypatch, capsys, text, message):
    db = str(tmp_path / "p.db")
    main(["init", db])
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main(["judge", db, "--assessor", "a"]) == 1
    assert message in capsys.readouterr().err


def test_sigkill_mid_stream_loses_no_recorded_judgment(tmp_path):
    db = tmp_path / "p.db"
    Store.open(db).close()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "judge", str(db), "--assessor", "bulk"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    recorded: list[str] = []
    try:
        for i in range(100_000):  # a long stream; we kill it long before its end
            proc.stdin.write(f"{i % 50} DOC-{i} {i % 4}\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            assert line.startswith("recorded ")
            recorded.append(line.split(maxsplit=1)[1].strip())
            if len(recorded) == 300:
                # one more line is in flight when the kill lands: it may or may not be kept
                proc.stdin.write("999 DOC-LAST 1\n")
                proc.stdin.flush()
                os.kill(proc.pid, signal.SIGKILL)
                break
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    store = Store.open(db)
    assert store.integrity_check() == "ok"
    stored = {f"{q} {d} {g}" for q, d, g in qrels_rows(store)}
    assert set(recorded) <= stored
    assert stored - set(recorded) <= {"999 DOC-LAST 1"}
    assert len(store.history()) == len(stored)
    store.close()
