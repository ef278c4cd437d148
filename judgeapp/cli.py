"""judgeapp command line: `python main.py [COMMAND ...]`.

With no command the GUI opens on the project used last (the demo project the first
time); `python main.py PROJECT` (a file or a URL) opens that project. Each subcommand lives in its own module
under `judgeapp.commands` and registers itself there (`register(subparsers)`), so commands
are found without a central list. Modules import heavy libraries inside their handlers so
that `--help` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from judgeapp import __version__, commands
from judgeapp.errors import UserError
from judgeapp.formats.errors import FormatError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judgeapp",
        description="Build and use IR test collections: import, pool, judge, evaluate.",
    )
    parser.add_argument("--version", action="version", version=f"judgeapp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = []
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "register"):
            modules.append(module)
    # the order in --help: by each module's ORDER, then name
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__)):
        module.register(sub)
    return parser


def project_argument(argv: list[str], commands: set[str]) -> str | None:
    """The project of `python main.py PROJECT`: one argument that is neither an option nor
    a command, and looks like a project (a file, a path ending in .db, or a URL)."""
    if len(argv) != 1 or argv[0].startswith("-") or argv[0] in commands:
        return None
    arg = argv[0]
    if "://" in arg or arg.endswith((".db", ".judgeapp", ".sqlite")) or os.path.isfile(arg):
        return arg
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    project = project_argument(argv, set(sub.choices))
    if project is not None:
        from judgeapp.app import run_gui  # Qt is imported only when the GUI is wanted

        return run_gui(project)
    args = parser.parse_args(argv)
    if args.command is None:
        from judgeapp.app import run_gui

        return run_gui()
    try:
        return int(args.handler(args) or 0)
    except FormatError as exc:
        print(f"judgeapp: error: {exc}", file=sys.stderr)
        return 1
    except UserError as exc:
        print(f"judgeapp: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
