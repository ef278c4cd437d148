"""init, import, export and info from the command line, on small files."""

from __future__ import annotations

from judgeapp.cli import main


def write(path, text):
    path.write_text(text)
    return str(path)


def test_project_life_cycle_from_the_shell(tmp_path, project_db, capsys):
    db = project_db
    assert main(["init", db]) == 0
    assert main(["init", db]) == 2  # never over an existing project
    assert "exists already" in capsys.readouterr().err
    topics = write(tmp_path / "t.tsv", "1\tfirst topic\n2\tsecond topic\n")
    run = write(tmp_path / "a.run", "1 Q0 d1 1 2.0 tagA\n1 Q0 d2 2 1.0 tagA\n3 Q0 d9 1 1 tagA\n")
    qrels = write(tmp_path / "q.txt", "1 0 d1 1\n1 0 d2 0\n")
    assert main(["import", "topics", db, topics]) == 0
    assert main(["import", "run", db, run, "--name", "alpha"]) == 0
    assert main(["import", "run", db, run, "--name", "alpha"]) == 2  # name taken
    assert "already has a run named 'alpha'" in capsys.readouterr().err
    assert main(["import", "qrels", db, qrels, "--name", "official"]) == 0
    assert main(["pool", db, "--depth", "1", "--name", "top1"]) == 0
    capsys.readouterr()
    assert main(["info", db, "--topics"]) == 0
    out = capsys.readouterr().out
    assert "runs         1 (3 ranked entries)" in out
    assert "judgments    2 by 1 assessors/sources" in out
    assert "pool top1" in out and "depth (depth 1), 1 runs" in out
    assert "1 topics in runs but not in the project: 3" in out
    assert "1 topics without runs: 2" in out
    assert "3 retrieved documents have no text" in out
    export = tmp_path / "out.qrels"
    assert main(["export", "qrels", db, "--assessor", "official", "--out", str(export)]) == 0
    assert export.read_text() == "1 0 d1 1\n1 0 d2 0\n"
    assert main(["export", "qrels", db, "--assessor", "nobody"]) == 2
    assert "no assessor or judgment source named 'nobody'" in capsys.readouterr().err


def test_missing_project_is_a_clear_error(tmp_path, capsys):
    assert main(["info", str(tmp_path / "nothing.db")]) == 2
    assert "no project at" in capsys.readouterr().err
