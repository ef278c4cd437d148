"""The command line built for one command (only that module imported) is the whole
command line's part for it: the same options, the same help, the same errors."""

from __future__ import annotations

import argparse
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
