"""Bad input to `evaluate` gives one clear message on stderr and a non-zero exit."""

from __future__ import annotations

import pytest

from judgeapp.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n"
RUN = "1 Q0 d1 1 2.0 tag\n1 Q0 d2 2 1.0 tag\n2 Q0 d3 1 1.0 tag\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_valid_input_works(files, capsys):
    code, out, err = run_cli(capsys, "-m", "P.1", str(files / "qrels"), str(files / "run"))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "P_1                   \tall\t0.5000"


def test_duplicate_docno_in_run(files, capsys):
    bad = files / "dup.run"
    bad.write_text(RUN + "1 Q0 d1 3 0.5 tag\n")
    code, out, err = run_cli(capsys, str(files / "qrels"), str(bad))
    assert code == 1 and out == ""
    assert f"{bad}:4:" in err
    assert "duplicate docno d1 for topic 1" in err


def test_duplicate_docno_in_qrels(files, capsys):
    bad = files / "dup.qrels"
    bad.write_text(QRELS + "1 0 d2 1\n")
    code, _, err = run_cli(capsys, str(bad), str(files / "run"))
    assert code == 1
    assert f"{bad}:" in err and "duplicate docno d2 for topic 1" in err


def test_non_numeric_score(files, capsys):
    bad = files / "score.run"
    bad.write_text("1 Q0 d1 1 abc tag\n")
    code, _, err = run_cli(capsys, str(files / "qrels"), str(bad))
    assert code == 1
    assert f"{bad}:1:" in err and "score 'abc' is not a number" in err


def test_missing_file(files, capsys):
    code, _, err = run_cli(capsys, str(files / "qrels"), str(files / "nope.run"))
    assert code == 1
    assert "nope.run" in err and "No such file" in err


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("foo", "unknown measure 'foo'"),
        ("nDCG_at_10", "unknown measure 'nDCG_at_10'"),
        ("P.0", "cutoffs must be positive"),
        ("P.5,5", "duplicate cutoffs"),
        ("P.", "empty parameters"),
        ("iprec_at_recall.0.5,.5", "duplicate cutoffs"),
        ("utility.1,2", "utility needs 4 coefficients"),
        ("ndcg.1", "name=value pairs"),
        ("R", "R needs a cutoff"),
        ("IPrec", "IPrec needs a recall level"),
        ("P(rel='x')@5", "rel must be an integer"),
        ("nDCG(dcg='bad')@10", "dcg must be one of"),
        ("nDCG(depth=3)@10", "nDCG has no parameter 'depth'"),
        ("P@abc", "bad value after @"),
        ("P@0", "the cutoff must be positive"),
        ("AP(rel=1", "cannot read measure"),
    ],
)
def test_bad_measure(files, capsys, measure, message):
    code, out, err = run_cli(capsys, "-m", measure, str(files / "qrels"), str(files / "run"))
    assert code == 2 and out == ""
    assert err.startswith("judgeapp: error: ")
    assert message in err


def test_measure_only_in_10(files, capsys):
    args = [str(files / "qrels"), str(files / "run")]
    assert run_cli(capsys, "-m", "rbp", *args)[0] == 0
    code, _, err = run_cli(capsys, "--trec-eval", "9", "-m", "rbp", *args)
    assert code == 2 and "illegal measure 'rbp'" in err


def test_collection_size_needed(files, capsys):
    args = [str(files / "qrels"), str(files / "run")]
    code, _, err = run_cli(capsys, "-m", "Fallout@10", *args)
    assert code == 2 and "collection size" in err
    assert run_cli(capsys, "-N", "1000", "-m", "Fallout@10", *args)[0] == 0


def test_missing_topic_stops_10_unless_complete(files, capsys):
    """trec_eval 10.0 stops when a judged topic is missing from the run; -c counts it as 0;
    9.x skips it."""
    short = files / "short.run"
    short.write_text("1 Q0 d1 1 2.0 tag\n")
    args = [str(files / "qrels"), str(short)]
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and "topic 2" in err and "-c" in err
    code, out, _ = run_cli(capsys, "-q", "-c", "-m", "num_rel", "-m", "map", *args)
    assert code == 0
    assert "num_rel               \t2\t1" in out.splitlines()
    assert "map                   \tall\t0.5000" in out.splitlines()
    code, out, _ = run_cli(capsys, "--trec-eval", "9", "-m", "map", *args)
    assert code == 0 and out.splitlines() == ["map                   \tall\t1.0000"]


def test_no_topic_in_common(files, capsys):
    other = files / "other.run"
    other.write_text("7 Q0 d1 1 2.0 tag\n")
    code, _, err = run_cli(capsys, "--trec-eval", "9", str(files / "qrels"), str(other))
    assert code == 2 and "no topics with both results and judgments" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a QRELS file and at least one RUN file"),
        (["--judgments", "x", "q", "r"], "--judgments, --runs and --policy go with --db"),
        (["--db", "x.db", "q", "r"], "either --db or QRELS"),
    ],
)
def test_bad_usage(capsys, args, message):
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and message in err
