"""`evaluate --format`, `evaluate --db` and `compare`, run in-process through the CLI."""

from __future__ import annotations

import csv
import io
import json

import pytest

from judgeapp.cli import main


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def suite(shared_data, monkeypatch):
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    return shared_data / "trec_eval-10.0"


def trec_lines(text: str) -> dict[tuple[str, str], str]:
    return {
        (line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2]
        for line in text.splitlines()
    }


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_delimited_output_has_the_trec_values(suite, capsys, fmt):
    args = ["-m", "all_trec", "-q", "test/qrels.test", "test/results.test"]
    _, trec, _ = cli(capsys, "evaluate", *args)
    code, out, _ = cli(capsys, "evaluate", "--format", fmt, *args)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out), delimiter="," if fmt == "csv" else "\t"))
    assert rows[0] == ["run", "topic", "measure", "value"]
    expected = trec_lines(trec)
    got = {(name, topic): value for run, topic, name, value in rows[1:]}
    assert {k: v.strip() for k, v in expected.items()} == {
        k: v.strip("'") if k[0] == "relstring" else v for k, v in got.items()
    } | {k: v for k, v in expected.items() if k[0] == "relstring"}
    assert {r[0] for r in rows[1:]} == {"STANDARD"}  # the run by its runid, not its path


def test_json_output(suite, capsys):
    args = [
        "-m",
        "official",
        "-m",
        "nDCG@10",
        "-q",
        "-c",
        "test/qrels.test",
        "test/results.test",
        "test/results.trunc",
    ]
    _, trec, _ = cli(capsys, "evaluate", *args)
    code, out, _ = cli(capsys, "evaluate", "--format", "json", *args)
    assert code == 0
    data = json.loads(out)
    assert [r["name"] for r in data["runs"]] == ["test/results.test", "test/results.trunc"]
    first = data["runs"][0]
    assert first["runid"] == "STANDARD" and first["num_topics"] == 3
    lines = trec.splitlines()
    # the first run's block comes first
    map_all = next(ln for ln in lines if ln.startswith("map ") and "\tall\t" in ln).split()[2]
    assert f"{first['summary']['map']:.4f}" == map_all
    assert set(first["per_topic"]) == {"301", "302", "303"}
    assert first["per_topic"]["302"]["num_ret"] == 500
    assert data["runs"][1]["per_topic"]["302"]["num_ret"] == 0  # -c: scored as missing
    measure = {m["name"]: m for m in data["measures"]}["nDCG@10"]
    assert measure["aggregate"] == "mean" and measure["description"]


def test_evaluate_a_project(tmp_path, suite, capsys):
    """--db evaluates the stored runs against the stored judgments: the same lines as the
    files give (the store keeps each run's name and tag)."""
    db = str(tmp_path / "p.db")
    assert cli(capsys, "init", db)[0] == 0
    assert cli(capsys, "import", "qrels", db, "test/qrels.test")[0] == 0
    assert cli(capsys, "import", "run", db, "test/results.test")[0] == 0
    assert cli(capsys, "import", "run", db, "test/results.trunc", "--name", "trunc")[0] == 0
    code, out, err = cli(
        capsys, "evaluate", "--db", db, "--runs", "STANDARD", "-m", "all_trec", "-q"
    )
    assert code == 0, err
    assert out == (suite / "test" / "out.test.aq").read_text()
    code, out, _ = cli(capsys, "evaluate", "--db", db, "-m", "all_trec", "-q", "-c")
    assert out == (
        (suite / "test" / "out.test.aq").read_text() + (suite / "test" / "out.test.aqc").read_text()
    )
    code, _, err = cli(capsys, "evaluate", "--db", db, "--judgments", "nobody")
    assert code != 0 and "nobody" in err


def test_compare_table(suite, capsys):
    code, out, err = cli(
        capsys,
        "compare",
        "-c",
        "test/qrels.test",
        "test/results.test",
        "test/results.trunc",
        "--baseline",
        "test/results.test",
        "-m",
        "map",
        "-m",
        "P@10",
        "--permutations",
        "2000",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert (
        lines[0].split() == "measure run mean delta d t p(t) p(t,adj) p(rand) p(rand,adj)".split()
    )
    # both runs have runid STANDARD: they are told apart by their file names
    assert lines[1].split()[:3] == ["map", "results.test", "(baseline)"]
    # the means are trec_eval's summary values (-c: the truncated run scores 0 on topic 302)
    assert (
        lines[1].split()[3] == trec_lines((suite / "test/out.test.aq").read_text())[("map", "all")]
    )
    assert lines[2].split()[:3] == [
        "map",
        "results.trunc",
        trec_lines((suite / "test/out.test.aqc").read_text())[("map", "all")],
    ]
    assert lines[-1].startswith("# 3 topics; randomization: 2000 sign flips, seed 0")


def test_compare_csv_json_and_seed(suite, capsys):
    args = [
        "compare",
        "test/qrels.test",
        "test/results.test",
        "--baseline",
        "test/results.trunc",
        "-c",
        "-m",
        "AP",
        "-m",
        "Bpref",
        "--permutations",
        "500",
    ]
    code, out, _ = cli(capsys, *args, "--format", "csv", "--seed", "3")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["run"] for r in rows] == ["results.trunc", "results.test"] * 2
    assert {r["baseline"] for r in rows} == {"results.trunc"}
    code, again, _ = cli(capsys, *args, "--format", "csv", "--seed", "3")
    assert again == out
    code, out, _ = cli(capsys, *args, "--format", "json", "--correction", "bonferroni")
    data = json.loads(out)  # the one layout of compare's JSON: settings, then rows
    assert data["comparison"] == "baseline" and data["correction"] == "bonferroni"
    assert [d["measure"] for d in data["rows"]] == ["AP"] * 2 + ["Bpref"] * 2
    assert {d["topics"] for d in data["rows"]} == {3}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--baseline", "nope.run"], "nope.run"),
        (["--baseline", "test/results.test", "-m", "num_ret"], "averaged over topics"),
        (["--baseline", "test/results.test", "--permutations", "0"], "at least 1"),
    ],
)
def test_compare_errors(suite, capsys, extra, message):
    code, _, err = cli(capsys, "compare", "test/qrels.test", "test/results.test", *extra)
    assert code != 0 and message in err
