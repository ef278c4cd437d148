"""trec_eval 10.0 behaviours that neither test suite exercises, found by running judgeapp
and trec_eval (built from usnistgov/trec_eval at v10.0) side by side on generated inputs.
The expected outputs below are that binary's, for the inputs written here."""

from __future__ import annotations

import pytest

from judgeapp.cli import main


def evaluate(tmp_path, capsys, qrels: str, run: str, *args: str) -> list[str]:
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    assert main(["evaluate", *args, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    return capsys.readouterr().out.splitlines()


def test_missing_topic_scores_a_bogus_ranking(tmp_path, capsys):
    """-c scores a missing topic on a one-document ranking, so a measure that reads only the
    judgments (ideal_dcg) is not 0; trec_eval then resets num_ret, utility, relstring,
    rbp_resid and unj by name, so utility with parameters keeps the bogus ranking's value."""
    out = evaluate(
        tmp_path,
        capsys,
        "1 0 d0 0\n01 0 d0 1\n",
        "1 Q0 d0 0 0.0 tag\n",
        "-c",
        "-q",
        "-m",
        "ideal_dcg",
        "-m",
        "utility.2,-1,0.5,0.1",
        "-m",
        "utility",
        "-m",
        "relstring.5",
        "-m",
        "num_ret",
    )
    # -m utility after utility.2,... is the same measure: the first parameters win
    assert out == [
        "num_ret               \t01\t0",
        "relstring_5           \t01\t'-'",
        "utility_2,-1,0.5,0.1  \t01\t-0.7000",
        "ideal_dcg             \t01\t1.0000",
        "num_ret               \t1\t1",
        "relstring_5           \t1\t'0'",
        "utility_2,-1,0.5,0.1  \t1\t-1.1000",
        "ideal_dcg             \t1\t0.0000",
        "num_ret               \tall\t1",
        "utility_2,-1,0.5,0.1  \tall\t-0.9000",
        "ideal_dcg             \tall\t0.5000",
    ]


def test_dcg_ideal_dcg_and_ndcg_share_parameters(tmp_path, capsys):
    """m_ndcg.c keeps one parameter block for the three: names follow the block as each is
    initialised, values the block's final contents (here ndcg's 0=2 for all three). These
    are the lines trec_eval prints with -m all_trec added; without it, it prints these
    three and then aborts freeing the shared block twice (judgeapp does not crash)."""
    out = evaluate(
        tmp_path,
        capsys,
        "2 0 d0 0\n",
        "2 Q0 d0 0 0.0 tag\n",
        "-m",
        "dcg.1=2",
        "-m",
        "ideal_dcg",
        "-m",
        "ndcg.0=2",
    )
    assert out == [
        "dcg_1=2               \tall\t2.0000",
        "ideal_dcg_1=2         \tall\t2.0000",
        "ndcg_0=2              \tall\t1.0000",
    ]


def test_gain_sort_truncates_differences(tmp_path, capsys):
    """gain_init.c sorts gains with (int)(g1 - g2): 0.5 and 0 compare equal and keep their
    list order, so the ideal ranking stops at grade 0's gain before reaching 0.5."""
    out = evaluate(
        tmp_path,
        capsys,
        "2 0 d2 1\n2 0 d0 0\n",
        "2 Q0 d2 0 0.0 tag\n",
        "-m",
        "ndcg_rel.1=0.5,3=7",
        "-m",
        "ndcg_rel",
    )
    assert out == ["ndcg_rel_1=0.5,3=7    \tall\t0.0000"]


def test_nan_prints_with_its_sign(tmp_path, capsys):
    """With -J a list of unjudged documents is empty: trec_eval's 0.0/0.0 prints -nan."""
    out = evaluate(
        tmp_path,
        capsys,
        "1 0 d0 0\n",
        "1 Q0 d1 0 0.0 tag\n",
        "-J",
        "-m",
        "iprec_at_recall.0.0",
        "-m",
        "P.5",
    )
    assert out == ["iprec_at_recall_0.00  \tall\t  -nan", "P_5                   \tall\t0.0000"]


@pytest.mark.parametrize("level", ["-1", "-5"])
def test_negative_relevance_level_refused(tmp_path, capsys, level):
    (tmp_path / "q").write_text("1 0 d0 1\n")
    (tmp_path / "r").write_text("1 Q0 d0 0 0.0 tag\n")
    code = main(["evaluate", "-l", level, str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 2
    assert "relevance level must be 0 or more" in capsys.readouterr().err
