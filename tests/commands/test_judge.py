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


def judged_project(tmp_path, qids: list[str], docs: list[str] = ()) -> str:
    """A project with topics `qids` and, when `docs` are given, a depth-100 pool of one run
    retrieving them for the first topic."""
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{q}\ttopic {q}\n" for q in qids))
    assert main(["import", "topics", db, str(topics)]) == 0
    if docs:
        run = tmp_path / "a.run"
        run.write_text("".join(f"{qids[0]} Q0 {d} {i} {-i} a\n" for i, d in enumerate(docs)))
        assert main(["import", "run", db, str(run)]) == 0
        assert main(["pool", db, "--depth", "100"]) == 0
    return db


def test_judge_records_lines_and_reports_each(tmp_path, monkeypatch, capsys):
    db = judged_project(tmp_path, ["401"], ["FT1", "FT2"])
    capsys.readouterr()
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("# header\n401 FT1 2 clearly on topic\n\n401 FT2 0\n")
    )
    assert main(["judge", db, "--assessor", "crowd-7"]) == 0
    assert capsys.readouterr().out.splitlines() == ["recorded 401 FT1 2", "recorded 401 FT2 0"]
    store = Store.open(db)
    [j1, j2] = store.judgments.all()
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
    db = judged_project(tmp_path, ["401"], ["FT1", "FT2"])
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main(["judge", db, "--assessor", "a"]) == 1
    assert message in capsys.readouterr().err


def test_sigkill_mid_stream_loses_no_recorded_judgment(tmp_path):
    db = judged_project(tmp_path, [str(q) for q in range(50)] + ["999"])
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "judge",
            db,
            "--assessor",
            "bulk",
            "--allow-unpooled",
        ],
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
    assert len(store.history.rows()) == len(stored)
    store.close()


def test_judge_refuses_unknown_topics_and_unpooled_documents(tmp_path, monkeypatch, capsys):
    db = judged_project(tmp_path, ["601", "602"], ["FBIS3-1", "FBIS3-2"])
    capsys.readouterr()

    def judge(text: str, *flags: str) -> int:
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        return main(["judge", db, "--assessor", "alice", *flags])

    # a typo in the topic: nothing of that line is recorded, the lines before it are
    assert judge("601 FBIS3-1 1\n999 FBIS3-1 1\n601 FBIS3-2 0\n") == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == ["recorded 601 FBIS3-1 1"]
    assert "stdin:2: topic '999' is not in the project" in out.err
    # a document in no pool of the topic (602 has no pool; NOTADOC is unknown)
    assert judge("601 NOTADOC 1\n") == 1
    assert "stdin:1: document 'NOTADOC' is in no pool of topic '601'" in capsys.readouterr().err
    assert judge("602 FBIS3-1 1\n") == 1
    assert "is in no pool of topic '602'" in capsys.readouterr().err
    with Store.open(db) as store:
        assert qrels_rows(store, ["alice"]) == [("601", "FBIS3-1", 1)]
    # unless asked for
    assert judge("601 NOTADOC 2\n602 FBIS3-1 1\n", "--allow-unpooled") == 0
    assert capsys.readouterr().out.splitlines() == [
        "recorded 601 NOTADOC 2",
        "recorded 602 FBIS3-1 1",
    ]
    with Store.open(db) as store:
        assert qrels_rows(store, ["alice"]) == [
            ("601", "FBIS3-1", 1),
            ("601", "NOTADOC", 2),
            ("602", "FBIS3-1", 1),
        ]


def test_judge_on_a_project_file_asks_who_is_judging(tmp_path, monkeypatch, capsys):
    """A project file has no database roles: without --assessor nothing is recorded and the
    message says why (on PostgreSQL an assessor's own role names them: test_postgres_team)."""
    db = judged_project(tmp_path, ["401"], ["FT1"])
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("401 FT1 2\n"))
    assert main(["judge", db]) != 0
    assert "--assessor NAME says who is judging" in capsys.readouterr().err
    with Store.open(db) as store:
        assert store.judgments.all() == []
