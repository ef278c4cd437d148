"""judgeapp.open(db): a project's topics, runs, judgments and evaluation as DataFrames, equal
to what the CLI prints for the same project."""

from __future__ import annotations

import pytest

import judgeapp
from judgeapp.cli import main
from tests.conftest import require

pd = require("pandas")


@pytest.fixture
def project(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    (tmp_path / "t.tsv").write_text("1\tfirst\n2\tsecond\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 A\n1 Q0 d2 2 1.0 A\n2 Q0 d3 1 1.0 A\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 3.0 B\n1 Q0 d1 2 1.0 B\n2 Q0 d4 1 1.0 B\n")
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "q2").write_text("1 0 d2 1\n")
    assert main(["init", db]) == 0
    assert main(["import", "topics", db, str(tmp_path / "t.tsv")]) == 0
    assert main(["import", "run", db, str(tmp_path / "a.run"), str(tmp_path / "b.run")]) == 0
    assert main(["import", "qrels", db, str(tmp_path / "q"), "--name", "official"]) == 0
    assert main(["import", "qrels", db, str(tmp_path / "q2"), "--name", "second"]) == 0
    capsys.readouterr()
    return db


def test_tables(project):
    with judgeapp.open(project) as p:
        assert p.runs()[["name", "tag", "topics", "entries"]].values.tolist() == [
            ["A", "A", 2, 3],
            ["B", "B", 2, 3],
        ]
        run = p.run("B")
        assert run[["query_id", "doc_id", "rank"]].values.tolist() == [
            ["1", "d2", 1],
            ["1", "d1", 2],
            ["2", "d4", 1],
        ]
        assert set(p.judgments()["assessor"]) == {"official", "second"}
        newest = p.qrels().values.tolist()
        assert ["1", "d2", 1] in newest  # the second source's judgment is the newest
        official = p.qrels(policy="official").values.tolist()
        assert ["1", "d2", 0] in official


def test_evaluation_equals_the_cli(project, capsys):
    with judgeapp.open(project) as p:
        table = p.evaluate(["map", "P@1"], policy="official", topics="strict")
        per_topic = p.evaluate(["AP"], policy="official", per_topic=True)
    assert (
        main(["evaluate", "--db", project, "--policy", "official", "-m", "map", "-m", "P.1"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    cli = [float(line.split("\t")[2]) for line in out if not line.startswith("runid")]
    assert [round(v, 4) for v in table["value"]] == cli
    assert set(per_topic.columns) == {"run", "query_id", "measure", "value"}
    assert len(per_topic) == 4
