"""`python main.py evaluate` reproduces trec_eval's own test suites line for line.

The command lines are those of ../shared/data/README.md (trec_eval's quicktest), with
`trec_eval` replaced by `evaluate`, run from the suite's folder. The preference,
judgment-group and z-score modes (-R prefs / qrels_prefs / qrels_jg, -Z) are out of scope.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from judgeapp.cli import main

ROOT = Path(__file__).resolve().parents[2]

MEAS_PARAMS = (
    "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
    "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
    "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
    "test/qrels.test test/results.test"
)

SUITE_10 = [
    ("out.test", "test/qrels.test test/results.test"),
    ("out.test", "test/qrels.test.with-comments test/results.test"),
    ("out.comment.test", "test/qrels.comment.test test/results.comment.test"),
    ("out.test.a", "-m all_trec test/qrels.test test/results.test"),
    ("out.test.aq", "-m all_trec -q test/qrels.test test/results.test"),
    ("out.test.aqc", "-m all_trec -q -c test/qrels.test test/results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 test/qrels.test test/results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test"),
    ("out.test.meas_params", MEAS_PARAMS),
]

# 9.0.4's suite has the same inputs (no comment files: 9.x could not read them)
SUITE_9 = [(out, cmd) for out, cmd in SUITE_10 if "comment" not in cmd]


def _evaluate(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["evaluate", *args]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


@pytest.mark.parametrize(("expected", "cmdline"), SUITE_10, ids=[f"{o}:{c}" for o, c in SUITE_10])
def test_trec_eval_10_suite(shared_data, run_reader, monkeypatch, capsys, expected, cmdline):
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    out = _evaluate(shlex.split(cmdline), capsys)
    assert out.splitlines() == Path("test", expected).read_text().splitlines()
    assert out == Path("test", expected).read_text()


@pytest.mark.parametrize(("expected", "cmdline"), SUITE_9, ids=[f"{o}:{c}" for o, c in SUITE_9])
def test_trec_eval_9_suite(shared_data, run_reader, monkeypatch, capsys, expected, cmdline):
    monkeypatch.chdir(shared_data / "trec_eval-9.0.4")
    out = _evaluate(["--trec-eval", "9", *shlex.split(cmdline)], capsys)
    assert out == Path("test", expected).read_text()


def test_9_and_10_differ_where_documented(shared_data, monkeypatch, capsys):
    """The two suites' only numeric differences are iprec_at_recall and 11pt_avg (10.0 rounds
    the recall cutoff); all_trec in 9.x also lacks rbp, rbp_resid and unj."""
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    args = ["-m", "all_trec", "-q", "test/qrels.test", "test/results.test"]
    ten = _evaluate(args, capsys).splitlines()
    nine = _evaluate(["--trec-eval", "9", *args], capsys).splitlines()
    names_10 = {line.split()[0] for line in ten}
    names_9 = {line.split()[0] for line in nine}
    assert names_10 - names_9 == {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
    differing = {
        a.split()[0]
        for a, b in zip([x for x in ten if x.split()[0] in names_9], nine, strict=True)
        if a != b
    }
    assert differing
    assert all(n.startswith(("iprec_at_recall", "11pt_avg")) for n in differing)


@pytest.mark.parametrize(
    ("folder", "extra", "expected"),
    [
        ("trec_eval-10.0", [], "out.test.aqc"),
        ("trec_eval-9.0.4", ["--trec-eval", "9"], "out.test.aqcM"),
    ],
)
def test_real_subprocess(shared_data, folder, extra, expected):
    """`python main.py evaluate ...` as a separate process, exactly as a script would run it."""
    cmd = "-m all_trec -q -c test/qrels.test test/results.trunc"
    if expected.endswith("M"):
        cmd = "-m all_trec -q -c -M100 test/qrels.test test/results.trunc"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "evaluate", *extra, *shlex.split(cmd)],
        cwd=shared_data / folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (shared_data / folder / "test" / expected).read_text()


def test_results_from_stdin(shared_data):
    """trec_eval 10.0 reads the run from stdin when it is `-`."""
    folder = shared_data / "trec_eval-10.0"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "evaluate", "test/qrels.test", "-"],
        cwd=folder,
        input=(folder / "test" / "results.test").read_text(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (folder / "test" / "out.test").read_text()


def test_several_runs_print_one_block_each(shared_data, run_reader, monkeypatch, capsys):
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    both = _evaluate(
        [
            "-m",
            "all_trec",
            "-q",
            "-c",
            "test/qrels.test",
            "test/results.test",
            "test/results.trunc",
        ],
        capsys,
    )
    first = Path("test/out.test.aq").read_text()
    second = Path("test/out.test.aqc").read_text()
    assert both == first + second


def test_no_summary_and_per_topic_only(shared_data, monkeypatch, capsys):
    """-n drops the summary (runid and num_q included: they print only there)."""
    monkeypatch.chdir(shared_data / "trec_eval-10.0")
    out = _evaluate(["-q", "-n", "test/qrels.test", "test/results.test"], capsys)
    expected = [line for line in Path("test/out.test").read_text().splitlines()]
    per_topic = Path("test/out.test.aq").read_text().splitlines()
    official = {line.split()[0] for line in expected}
    assert out.splitlines() == [
        line for line in per_topic if line.split()[0] in official and "\tall\t" not in line
    ]
