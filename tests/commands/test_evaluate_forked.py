"""`evaluate QRELS RUN...` read by forked processes (judgeapp.forked) prints the same as
read in this process, and a bad run file gives the same one-line error and exit status
wherever it stands among the runs (in this process or in a child)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import judgeapp.forked
from judgeapp.cli import main
from judgeapp.commands import evaluate as evaluate_command
from tests.formats.malformed_cases import CASES, MALFORMED

RUN_CASES = [name for name, kind, _ in CASES if kind == "run"]


def write_inputs(tmp_path: Path, n: int) -> tuple[str, list[str]]:
    qrels = tmp_path / "q.txt"
    qrels.write_text(
        "".join(f"{q} 0 D{d} {(d * q) % 3}\n" for q in (401, 402) for d in range(0, 40, 3))
    )
    runs = []
    for r in range(n):
        path = tmp_path / f"run{r}.txt"
        path.write_text(
            "".join(
                f"{q} Q0 D{(d * 7 + 3 * r) % 50} {d + 1} {(d * 7 + r) % 11} tag{r}\n"
                for q in (401, 402)
                for d in range(50)
            )
        )
        runs.append(str(path))
    return str(qrels), runs


def run_cli(monkeypatch, capsys, argv, forked: bool):
    monkeypatch.setattr(evaluate_command, "FORK_MIN_BYTES", 0 if forked else 1 << 60)
    monkeypatch.setattr(judgeapp.forked, "usable_cores", lambda: 3)
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("args", [[], ["-q", "-m", "all_trec"], ["-c", "-m", "map"]])
def test_forked_reading_prints_what_reading_here_prints(
    tmp_path, run_reader, monkeypatch, capsys, args
):
    qrels, runs = write_inputs(tmp_path, 7)
    argv = ["evaluate", *args, qrels, *runs]
    here = run_cli(monkeypatch, capsys, argv, forked=False)
    forked = run_cli(monkeypatch, capsys, argv, forked=True)
    assert here[0] == 0 and here[1].count("runid") == 7
    assert forked == here


@pytest.mark.parametrize("name", RUN_CASES)
@pytest.mark.parametrize("position", [0, 1, 2, 4])
def test_a_bad_run_gives_the_same_error_in_any_process(
    tmp_path, run_reader, monkeypatch, capsys, name, position
):
    qrels, runs = write_inputs(tmp_path, 5)
    bad = tmp_path / name
    shutil.copy(MALFORMED / name, bad)
    runs[position] = str(bad)
    argv = ["evaluate", qrels, *runs]
    here = run_cli(monkeypatch, capsys, argv, forked=False)
    forked = run_cli(monkeypatch, capsys, argv, forked=True)
    expected = next(problem for n, _, problem in CASES if n == name)
    assert here[0] == 1 and here[1] == "" and expected in here[2]
    assert len(here[2].strip().splitlines()) == 1
    assert forked == here


def test_jobs_sets_the_number_of_reading_processes(tmp_path, monkeypatch, capsys):
    qrels, runs = write_inputs(tmp_path, 4)
    monkeypatch.setattr(evaluate_command, "FORK_MIN_BYTES", 0)
    asked = []
    real = judgeapp.forked.forked_map

    def spy(func, items, processes=None):
        asked.append(processes)
        return real(func, items, processes)

    monkeypatch.setattr(judgeapp.forked, "forked_map", spy)
    outputs = []
    for jobs in (["--jobs", "1"], ["--jobs", "3"], []):
        assert main(["evaluate", *jobs, qrels, *runs]) == 0
        outputs.append(capsys.readouterr().out)
    assert asked == [1, 3, None]  # None: one per usable core
    assert outputs[0] == outputs[1] == outputs[2] and outputs[0].count("runid") == 4
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--jobs", "0", qrels, *runs])
    assert exit_.value.code == 2
    assert "--jobs: expected a whole number of at least 1, got '0'" in capsys.readouterr().err
