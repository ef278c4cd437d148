"""trec_eval's other relevance formats and output options, line for line against trec_eval
10.0's own expected outputs: -R prefs, -R qrels_prefs, -R qrels_jg (its quicktest commands),
-Z z-scores, yaap from plain qrels (outputs of trec_eval built from source, in
tests/data/trec_eval-10.0-extra), -o and -v."""

from __future__ import annotations

import pytest

from judgeapp.cli import main

SUITE = [
    ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg test/qrels.123 test/results.test", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg test/qrels.comments.123 test/results.test", "out.test.qrels_jg"),
    ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ"),
]


@pytest.fixture
def suite(shared_data, monkeypatch):
    folder = shared_data / "trec_eval-10.0"
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.parametrize(("command", "expected"), SUITE)
def test_identical_to_trec_eval_suite(suite, capsys, command, expected):
    assert main(["evaluate", *command.split()]) == 0
    out = capsys.readouterr().out
    assert out == (suite / "test" / expected).read_text()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("-m yaap -q test/qrels.test test/results.test", "out.test.yaap"),
        ("-m yaap -q -c test/qrels.test test/results.trunc", "out.test.yaap.c"),
    ],
)
def test_yaap_from_plain_qrels(suite, test_data, capsys, command, expected):
    assert main(["evaluate", *command.split()]) == 0
    out = capsys.readouterr().out
    assert out == (test_data / "trec_eval-10.0-extra" / expected).read_text()


def test_prefs_nickname_is_the_official_subset(suite, capsys):
    assert (
        main(
            ["evaluate", "-m", "prefs", "-R", "prefs", "test/prefs.test", "test/prefs.results.test"]
        )
        == 0
    )
    names = [line.split("\t")[0].rstrip() for line in capsys.readouterr().out.splitlines()]
    assert names == [
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ]


def test_o_is_accepted_and_changes_nothing(suite, capsys):
    assert main(["evaluate", "-o", "test/qrels.test", "test/results.test"]) == 0
    assert capsys.readouterr().out == (suite / "test" / "out.test").read_text()


def test_v_prints_the_version_on_stderr(capsys):
    assert main(["evaluate", "-v"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("trec_eval version 10.0 (judgeapp ")
    assert main(["evaluate", "-v", "--trec-eval", "9"]) == 0
    assert capsys.readouterr().err.startswith("trec_eval version 9.0.4")


def test_missing_zscore_is_minus_a_million(suite, tmp_path, capsys):
    zfile = tmp_path / "z"
    zfile.write_text("301 map 0.5 0.25\n301 P_5 0.2 0\n")
    assert (
        main(
            [
                "evaluate",
                "-q",
                "-m",
                "map",
                "-m",
                "P.5,10",
                "-Z",
                str(zfile),
                "test/qrels.test",
                "test/results.test",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    by_name = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines}
    assert (
        by_name[("ZP_5                   ", "301")] == "-1000000.0000"
    )  # stddev 0, value off the mean
    assert by_name[("ZP_10                  ", "301")] == "-1000000.0000"  # not in the file
    assert by_name[("ZP_10                  ", "302")] == "-1000000.0000"  # topic not in the file
