"""Tables name runs read from files by their runid (the tag column), not by the path they
were given as: `compare` (text, CSV, Markdown, LaTeX, all pairs) and `evaluate --format
csv|tsv`. Runs sharing a runid are named by their file names, and by their paths where
those are shared too (issue 30, item 11)."""

from __future__ import annotations

import csv
import io

from judgeapp.cli import main
from judgeapp.measures.report import run_labels

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 0\n2 0 d 1\n3 0 b 1\n"


def write_run(path, tag, order):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            f"{q} Q0 {doc} {rank} {10 - rank} {tag}\n"
            for q in ("1", "2", "3")
            for rank, doc in enumerate(order.split(), 1)
        )
    )
    return str(path)


def inputs(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    runs = [
        write_run(tmp_path / "deep" / "input.bm25.gz.txt", "bm25", "a b c d"),
        write_run(tmp_path / "runs" / "first.txt", "dense", "d c b a"),
        write_run(tmp_path / "runs" / "second.txt", "dense", "b a d c"),  # the same runid
    ]
    return str(qrels), runs


def test_run_labels_fall_back_to_file_name_then_path():
    assert run_labels(["/x/a.run", "/y/b.run"], ["one", "two"]) == ("one", "two")
    assert run_labels(["/x/a.run", "/y/b.run", "c.run"], ["same", "same", "other"]) == (
        "a.run",
        "b.run",
        "other",
    )
    assert run_labels(["/x/a.run", "/y/a.run"], ["same", "same"]) == ("/x/a.run", "/y/a.run")
    assert run_labels(["/x/a.run", "b.run"], ["", "tag"]) == ("a.run", "tag")
    # a file name that meets another run's runid: both go by their paths
    assert run_labels(["/x/tag", "/y/b", "/z/c"], ["t", "t", "tag"]) == ("/x/tag", "b", "/z/c")


def test_evaluate_csv_and_tsv_name_runs_by_runid(tmp_path, capsys):
    qrels, runs = inputs(tmp_path)
    for fmt, delimiter in (("csv", ","), ("tsv", "\t")):
        assert main(["evaluate", "--format", fmt, "-m", "map", qrels, *runs]) == 0
        rows = list(csv.reader(io.StringIO(capsys.readouterr().out), delimiter=delimiter))
        assert rows[0] == ["run", "topic", "measure", "value"]
        assert [r[0] for r in rows[1:]] == ["bm25", "first.txt", "second.txt"]


def test_compare_tables_name_runs_by_runid(tmp_path, capsys):
    qrels, runs = inputs(tmp_path)
    common = ["compare", qrels, *runs, "-m", "AP", "--permutations", "200"]
    # the baseline given by its path still finds it; the tables show its runid
    assert main([*common, "--baseline", runs[0]]) == 0
    table = capsys.readouterr().out
    assert "bm25 (baseline)" in table and "first.txt" in table and "second.txt" in table
    assert str(tmp_path) not in table
    for fmt in ("markdown", "latex", "csv"):
        assert main([*common, "--baseline", "bm25", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "bm25" in out and "first.txt" in out and "second.txt" in out, fmt
        assert str(tmp_path) not in out and "deep" not in out, fmt
    assert main([*common, "--all-pairs", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "bm25" in out and str(tmp_path) not in out
