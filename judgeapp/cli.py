"""judgeapp command line: `python main.py [COMMAND ...]`.

With no command the GUI opens on the demo project. Each subcommand lives in its own module
under `judgeapp.commands` and registers itself there (`register(subparsers)`), so commands
are found without a central list. Modules import heavy libraries inside their handlers so
that `--help` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from judgeapp.app import run_gui  # Qt is imported only when the GUI is wanted

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
