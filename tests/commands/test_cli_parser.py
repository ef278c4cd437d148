"""The command line built for one command (only that module imported) is the whole
command line's part for it: the same options, the same help, the same errors."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgeapp import cli

ROOT = Path(__file__).resolve().parents[2]


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


FULL = subcommands(cli.build_parser())


@pytest.mark.parametrize("name", sorted(FULL))
def test_one_command_line_is_the_whole_lines_part(name):
    alone = subcommands(cli.build_parser(name))
    assert list(alone) == [name]
    assert alone[name].format_help() == FULL[name].format_help()


def test_a_word_that_is_no_command_gets_the_whole_line(capsys):
    assert list(subcommands(cli.build_parser("evaluat"))) == list(FULL)
    assert list(subcommands(cli.build_parser("__init__"))) == list(FULL)
    with pytest.raises(SystemExit):
        cli.main(["evaluat"])
    assert "invalid choice: 'evaluat' (choose from 'init', 'import'" in capsys.readouterr().err


def test_a_command_imports_no_other_command_module():
    code = (
        "import sys; from judgeapp import cli; cli.build_parser('evaluate');"
        "print(sorted(m for m in sys.modules if m.startswith('judgeapp.commands.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['judgeapp.commands.evaluate']"


EVALUATE_PROBE = """
import sys
from judgeapp.cli import main
code = main(["evaluate", sys.argv[1], sys.argv[2]])
sys.stdout.flush()
print(code, sorted(m for m in sys.modules if m.split(".")[0] in NOT_NEEDED or m in NOT_NEEDED))
"""


def test_evaluate_from_files_loads_no_store_records_sql_or_qt(tmp_path):
    """`evaluate QRELS RUN` is timed from start-up: it defines none of the store's records
    (two dozen dataclasses, about 20 ms), loads no SQL, Qt, plotting or SciPy, and does not
    list the other commands' modules (pkgutil's listing imports `inspect`)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d3 2 1.0 r\n")
    not_needed = {
        "judgeapp.store_records",
        "judgeapp.store",
        "judgeapp.services",
        "judgeapp.ui",
        "sqlalchemy",
        "PySide6",
        "matplotlib",
        "scipy",
        "pkgutil",
    }
    probe = f"NOT_NEEDED = {sorted(not_needed)!r}\n" + EVALUATE_PROBE
    out = subprocess.run(
        [sys.executable, "-c", probe, str(qrels), str(run)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "map                   \tall\t1.0000" in out
    assert out.splitlines()[-1] == "0 []"
    # the names are the store's all the same, loaded when first asked for
    from judgeapp import records, store_records

    assert store_records.__all__
    for name in store_records.__all__:
        assert getattr(records, name) is getattr(store_records, name)


BLAS_PROBE = """
import os, sys
from judgeapp.cli import main
try:
    main(["--version"])
except SystemExit:
    pass
import numpy
numpy.ones((64, 64)) @ numpy.ones((64, 64))  # a matrix product: OpenBLAS at work
status = open("/proc/self/status").read()
print(os.environ["OPENBLAS_NUM_THREADS"], status.split("Threads:")[1].split()[0])
"""


@pytest.mark.parametrize("given", [None, "2"])
def test_the_command_line_gives_numpy_one_blas_thread_unless_told(given):
    """OpenBLAS's threads spin when they start (0.07 s of CPU per process): the command
    line asks for one, before numpy loads; a value the user set is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    value, threads = out.stdout.split()[-2:]  # after the version line
    if given is None:
        assert (value, threads) == ("1", "1")
    else:
        assert value == given


def test_the_collector_pauses_while_modules_load_and_freezes_what_they_made():
    import gc

    from judgeapp.lasting import collector_paused

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        with collector_paused():
            assert not gc.isenabled()
            made = [[] for _ in range(1000)]  # objects the collector tracks
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
