"""Runs and qrels in other libraries' formats: ranx JSON and Parquet (read by evaluate, the
Python API and fuse), ir_datasets (import irds:DATASET_ID, tested offline with a dataset
registered from local files), and diversity qrels."""

from __future__ import annotations

import pytest

import judgeapp
from judgeapp.cli import main
from judgeapp.formats.errors import FormatError
from judgeapp.formats.interop import read_qrels_any, read_run_any, read_subtopic_qrels, sniff
from tests.conftest import require

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
RUN = {"1": {"a": 0.5, "b": 2.0, "c": 1.0, "x": 1.0}, "2": {"e": 3.0, "d": 1.5}}


def write_trec(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in QRELS.items() for d, g in docs.items()))
    r = tmp_path / "run.txt"
    r.write_text(
        "".join(f"{t} Q0 {d} 0 {s!r} tag\n" for t, docs in RUN.items() for d, s in docs.items())
    )
    return q, r


def test_ranx_json_runs_and_qrels(tmp_path, capsys):
    ranx = require("ranx")
    ranx.Qrels(QRELS).save(str(tmp_path / "qrels.json"))
    ranx.Run(RUN, name="mine").save(str(tmp_path / "run.json"))
    assert sniff(tmp_path / "run.json") == "json"
    run = read_run_any(tmp_path / "run.json")
    assert run.topics["1"].docnos == ["b", "x", "c", "a"]  # trec_eval order: 1.0 tie by docno desc
    assert len(read_qrels_any(tmp_path / "qrels.json")) == 5
    q, r = write_trec(tmp_path)
    assert main(["evaluate", "-m", "all_trec", "-q", str(q), str(r)]) == 0
    from_trec = capsys.readouterr().out
    assert (
        main(
            [
                "evaluate",
                "-m",
                "all_trec",
                "-q",
                str(tmp_path / "qrels.json"),
                str(tmp_path / "run.json"),
            ]
        )
        == 0
    )
    from_json = capsys.readouterr().out
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("runid")]  # noqa: E731
    assert strip(from_json) == strip(from_trec)
    expected = judgeapp.calc_aggregate(["AP", "nDCG@10"], QRELS, RUN)
    assert (
        judgeapp.calc_aggregate(["AP", "nDCG@10"], tmp_path / "qrels.json", tmp_path / "run.json")
        == expected
    )


def test_parquet_runs_and_qrels(tmp_path):
    pd = require("pandas")
    require("pyarrow")
    pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    ).to_parquet(tmp_path / "run.parquet")
    pd.DataFrame(
        [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
        columns=["q_id", "doc_id", "relevance"],  # ranx's name for the topic column
    ).to_parquet(tmp_path / "qrels.parquet")
    assert sniff(tmp_path / "run.parquet") == "parquet"
    expected = judgeapp.calc_aggregate(["AP", "P@2"], QRELS, RUN)
    got = judgeapp.calc_aggregate(
        ["AP", "P@2"], tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    )
    assert got == expected
    pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}).to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(FormatError, match="lacks column"):
        read_run_any(tmp_path / "bad.parquet")


def test_bad_json(tmp_path):
    (tmp_path / "r.json").write_text('{"1": [1, 2]}')
    with pytest.raises(FormatError, match="ranx's format"):
        read_run_any(tmp_path / "r.json")
    (tmp_path / "s.json").write_text('{"1": {"a": "x"}}')
    with pytest.raises(FormatError, match="not a number"):
        read_run_any(tmp_path / "s.json")


def test_subtopic_qrels(tmp_path):
    path = tmp_path / "q"
    path.write_text("# Web track\n1 1 a 1\n1 2 a 0\n1 2 b 2\n")
    assert read_subtopic_qrels(path) == {"1": {"1": {"a": 1}, "2": {"a": 0, "b": 2}}}
    path.write_text("1 1 a 1\n1 1 a 2\n")
    with pytest.raises(FormatError, match="twice"):
        read_subtopic_qrels(path)


@pytest.fixture
def local_dataset(tmp_path, monkeypatch):
    """An ir_datasets dataset registered from local files (no download)."""
    ir_datasets = require("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))
    (tmp_path / "docs.tsv").write_text("a\tfirst document\nb\tsecond one\nc\tthird\n")
    (tmp_path / "queries.tsv").write_text("1\tfirst query\n2\tsecond query\n")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    name = f"judgeapp-test/{tmp_path.name}"
    ir_datasets.registry.register(
        name,
        Dataset(
            TsvDocs(LocalDownload(tmp_path / "docs.tsv")),
            TsvQueries(LocalDownload(tmp_path / "queries.tsv")),
            TrecQrels(LocalDownload(tmp_path / "qrels"), {0: "not", 1: "relevant", 2: "highly"}),
        ),
    )
    return f"irds:{name}"


def test_import_from_ir_datasets(local_dataset, tmp_path, capsys):
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    for kind in ("topics", "docs", "qrels"):
        assert main(["import", kind, db, local_dataset]) == 0
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 c 1 1 r\n")
    assert main(["import", "run", db, str(run)]) == 0
    capsys.readouterr()
    with judgeapp.open(db) as project:
        topics = project.topics()
        assert topics["query_id"].tolist() == ["1", "2"]
        assert topics["title"].tolist() == ["first query", "second query"]
        assert project.qrels()[["query_id", "doc_id", "relevance"]].values.tolist() == [
            ["1", "a", 1],
            ["1", "b", 0],
            ["2", "c", 2],
        ]
    assert (
        judgeapp.calc_aggregate(["AP"], local_dataset, {"1": {"a": 2.0}, "2": {"c": 1.0}})["AP"]
        == 1.0
    )
    assert main(["import", "qrels", db, "irds:no-such/dataset"]) != 0


def test_an_ir_datasets_dataset_out_of_reach_is_one_paragraph(tmp_path):
    """Offline (here: every download sent to a closed port), `import qrels DB
    irds:trec-robust04` ends in a paragraph naming the dataset, ir_datasets' folder and how
    to make the dataset available, exit 1, no traceback, nothing imported (issue 30, item
    11); it used to end in a 43-line traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    require("ir_datasets")
    root = Path(__file__).resolve().parents[2]
    db = str(tmp_path / "p.db")
    assert main(["init", db]) == 0
    home = tmp_path / "irds-home"
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, connections fail at once
    env = {
        **os.environ,
        "IR_DATASETS_HOME": str(home),
        "HTTPS_PROXY": closed,
        "HTTP_PROXY": closed,
        "https_proxy": closed,
        "http_proxy": closed,
        "NO_PROXY": "",
        "no_proxy": "",
        "PYTHONPATH": str(root),
    }
    proc = subprocess.run(
        [sys.executable, str(root / "main.py"), "import", "qrels", db, "irds:trec-robust04"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    [message] = [line for line in proc.stderr.splitlines() if line.startswith("judgeapp:")]
    assert message.startswith(
        "judgeapp: error: irds:trec-robust04: ir_datasets could not read dataset "
        f"'trec-robust04': its files are not in ir_datasets' local copy ({home}; "
        "IR_DATASETS_HOME names another folder)"
    )
    for advice in ("copy that folder here", "[INFO] lines above", "import the file itself"):
        assert advice in message
    with judgeapp.open(db) as project:
        assert len(project.judgments()) == 0
