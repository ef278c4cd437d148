"""judgeapp command line: `python main.py [COMMAND ...]`.

With no command the GUI opens on the project used last (the demo project the first
time); `python main.py PROJECT` (a file or a URL) opens that project, which must exist
(`init PROJECT` creates one). Each subcommand lives in its own module
under `judgeapp.commands` and registers itself there (`register(subparsers)`), so commands
are found without a central list; a command given imports only its own module. Modules import
heavy libraries inside their handlers so that `--help` stays instant.

Whatever the input, a command ends in one of these ways, never with a traceback:

- exit 0: done;
- exit 1: a bad file (an input, the project file, an output that cannot be written), said
  in one line, `judgeapp: error: FILE:LINE: PROBLEM`;
- exit 2: a request that cannot be honoured (an unknown run, a bad option), one line too;
- exit 141 (128 + SIGPIPE, what a shell reports for `cat` and `grep`), silently: the
  program reading the output has stopped reading (`judgeapp export qrels P | head`). Every
  line printed before was written whole; for `judge`, each `recorded` line follows its
  commit, so a judgment whose line could not be printed is recorded all the same;
- exit 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import sys

from judgeapp import __version__, commands
from judgeapp.errors import UserError

# a command whose module is not named after it (`import` is a Python keyword)
MODULE_OF = {"import": "imports"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command`` (the first argument), when it names a
    command, only that command's module is imported and registered: a command then does
    not pay for importing the others (their libraries, their memory)."""
    parser = argparse.ArgumentParser(
        prog="judgeapp",
        description="Build and use IR test collections: import, pool, judge, evaluate.",
    )
    parser.add_argument("--version", action="version", version=f"judgeapp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = MODULE_OF.get(command, command) if command else ""
    if _is_command_module(wanted):
        module = importlib.import_module(f"{commands.__name__}.{wanted}")
        if hasattr(module, "register"):
            module.register(sub)
            if command in sub.choices:
                return parser
        return build_parser()  # not the module's command after all: the whole line
    import pkgutil  # listing imports `inspect` (10 ms): `COMMAND --help` need not pay it

    modules = []
    for name in (info.name for info in pkgutil.iter_modules(commands.__path__)):
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(module, "register"):
            modules.append(module)
    # the order in --help: by each module's ORDER, then name
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__)):
        module.register(sub)
    return parser


def _is_command_module(name: str) -> bool:
    """Whether judgeapp.commands has a module ``name`` (a public name, not a package's
    ``__init__``), found without importing it or listing the others."""
    if not name.isidentifier() or name.startswith("_"):
        return False
    return importlib.util.find_spec(f"{commands.__name__}.{name}") is not None


def project_argument(argv: list[str], commands: set[str]) -> str | None:
    """The project of `python main.py PROJECT`: one argument that is neither an option nor
    a command, and looks like a project (a file, a path ending in .db, or a URL)."""
    if len(argv) != 1 or argv[0].startswith("-") or argv[0] in commands:
        return None
    arg = argv[0]
    if "://" in arg or arg.endswith((".db", ".judgeapp", ".sqlite")) or os.path.isfile(arg):
        return arg
    return None


def _one_blas_thread() -> None:
    """numpy's OpenBLAS starts a thread per core when it loads, and they spin for a while:
    0.07 s of CPU for each process that imports numpy, measured on 2 cores. judgeapp's
    numpy work is element-wise (its only matrix products are a few features wide), so one
    thread serves. Only before numpy is loaded, and a setting the user made is kept."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    _one_blas_thread()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    project = project_argument(argv, set(sub.choices))
    if project is not None:
        if "://" not in project and not os.path.lexists(project):
            # a mistyped path is not a new project: creating one is asked for by name
            return _error(
                f"no project at {project}; nothing was created (`init {project}` creates a "
                "new, empty one, which this command then opens)",
                2,
            )
        from judgeapp.app import run_gui  # Qt is imported only when the GUI is wanted

        return run_gui(project)
    args = parser.parse_args(argv)
    if args.command is None:
        from judgeapp.app import run_gui

        return run_gui()
    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
        return code
    except UserError as exc:
        return _error(str(exc), exc.exit_code)
    except BrokenPipeError:
        # the reader has gone: what is still buffered goes nowhere, and the interpreter's
        # own flush at exit must not complain about it
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        return _error("out of memory (the input is larger than this machine can take)", 1)
    except OSError as exc:  # the system refused a file or a device not checked above
        where = f"{exc.filename}: " if exc.filename else ""
        return _error(f"{where}{exc.strerror or exc}", 1)


def _error(message: str, code: int) -> int:
    """Print `judgeapp: error: MESSAGE` on one line (a message quoting several lines of
    something is joined); returns `code`."""
    one_line = "; ".join(part.strip() for part in message.splitlines() if part.strip())
    print(f"judgeapp: error: {one_line}", file=sys.stderr)
    return code
