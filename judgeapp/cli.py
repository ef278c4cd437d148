"""Command line: `python main.py [COMMAND ...]`. Subcommands are added by their owners."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judgeapp", description=__doc__)
    parser.add_subparsers(dest="command")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        print("the GUI is not built yet", file=sys.stderr)
        return 1
    return 0
