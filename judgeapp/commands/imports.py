"""`import topics|docs|run|qrels DB FILE...`: add files to a project, all or nothing."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from judgeapp.commands import CommandError, open_store, progress_bar
from judgeapp.lasting import collector_paused

if TYPE_CHECKING:
    from collections.abc import Callable

    from judgeapp.formats.bulk import NumberedRuns
    from judgeapp.services.imports import ImportReport
    from judgeapp.store import Store

ORDER = 20
KINDS = ("topics", "docs", "run", "qrels", "judgments")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="import topics, documents, runs, qrels or judgments (one transaction per call)",
        description="Import files into a project. Formats are detected from the content; "
        "`.gz` files are read directly. If any file has an error, nothing is imported. "
        "`judgments` reads what `export judgments` writes (JSON Lines or CSV, every field), "
        "or TREC qrels with a fifth column, a score (an automatic judge's). Topics, docs "
        "and qrels may also come from the local ir_datasets cache: irds:DATASET_ID.",
    )
    p.add_argument("kind", choices=KINDS, help="what the files hold")
    p.add_argument("db", metavar="DB", help="project: file path or SQLAlchemy URL")
    p.add_argument("files", metavar="FILE", nargs="+", help="files, or irds:DATASET_ID")
    p.add_argument("--format", dest="fmt", help="override format detection")
    p.add_argument(
        "--name",
        action="append",
        help="run name (default: the run's tag) or qrels source name (default: file name); "
        "repeat once per file",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace runs, qrels sources or topics (their statements) of the same name",
    )
    p.add_argument("--create", action="store_true", help="create the project if missing")
    p.add_argument(
        "--assessor",
        help="judgments: whose they are when the file does not say (an LLM, a crowd, ...)",
    )
    p.add_argument(
        "--judge-kind",
        choices=["person", "source", "automatic"],
        default="person",
        help="judgments: what kind of judge a new --assessor is (automatic: a model's "
        "judgments, with a score beside each grade; never shown to blind assessors)",
    )
    p.set_defaults(handler=run)


# below this many bytes of run files, reading them in forked processes costs more than
# the cores gain
FORK_MIN_BYTES = 2 << 20


def run(args: argparse.Namespace) -> int:
    if args.name and len(args.name) != len(args.files):
        raise CommandError(f"--name given {len(args.name)} times for {len(args.files)} files")
    with contextlib.ExitStack() as stack:
        read = None
        if args.kind == "run":
            read = _read_runs_ahead(args.files, stack)
        # the store's modules load and the project opens while forked children read runs
        return _import(args, read)


def _read_runs_ahead(
    files: list[str], stack: contextlib.ExitStack
) -> Callable[[], NumberedRuns | None] | None:
    """Start reading the run files now, when they are large enough to gain from it: a
    forked process per usable core but one, each taking the next file (the largest
    first) until none is left, then numbering the docnos of its files. This process
    joins them once the project is open, on the last core: so every core has one
    process (one more only slowed them all: 0.79 s against 0.71 s on Robust 2003 with
    two cores). Returns what gives the runs, all in order, or None for the import to
    read them itself: so it does when any reader failed, and a loop over the files in
    order then raises the first file's error, as it would have."""
    from judgeapp.forked import ForkedAhead, file_sizes, usable_cores, worth_forking

    sizes = file_sizes(files)
    children = min(usable_cores() - 1, len(files))
    if sizes is None or children < 1 or not worth_forking(sizes, FORK_MIN_BYTES, 1):
        return None
    from judgeapp.formats.allocator import keep_freed_memory
    from judgeapp.formats.bulk import NumberedRuns, RunNumbering

    # the children inherit it: their readers' temporaries are reused, not faulted in per
    # block (Robust 2003: 38,000 minor faults in the children instead of 52,000)
    keep_freed_memory()
    largest_first = sorted(range(len(files)), key=lambda i: -sizes[i])
    ahead = stack.enter_context(
        ForkedAhead(
            RunNumbering,
            RunNumbering.add,
            RunNumbering.numbered,
            files,
            order=largest_first,
            children=children,
        )
    )

    def collect() -> NumberedRuns | None:
        try:
            parts = ahead.results()
            place = [(0, 0)] * len(files)
            for p, (done, _) in enumerate(parts):
                for k, i in enumerate(done):
                    place[i] = (p, k)
            return NumberedRuns.merge([part for _, part in parts], place)
        except Exception:  # an unreadable file, a hash collision, a child that died...
            return None

    return collect


def _import(args: argparse.Namespace, read: Callable[[], NumberedRuns | None] | None) -> int:
    with collector_paused():
        from judgeapp.services import imports  # noqa: F401  (loaded with the collector off)
        from judgeapp.store import StoreError
        from judgeapp.store.files import ProjectAppeared, discard_staged

        # a new project appears only once the import has landed whole
        store = open_store(args.db, create=args.create, build=True, owner=f"import {args.kind}")
    try:
        report = _fill(store, args, read)
        if store.being_built:
            try:
                store.publish()
            except ProjectAppeared as appeared:
                # another process created the project meanwhile (two imports into one new
                # project at once): this import goes into it, as if it had been there
                discard_staged(appeared.staged)
                store = open_store(args.db, create=args.create, owner=f"import {args.kind}")
                report = _fill(store, args, None)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    print(f"imported {report.detail} from {report.files} file(s)", file=sys.stderr)
    return 0


def _fill(
    store: Store, args: argparse.Namespace, read: Callable[[], NumberedRuns | None] | None
) -> ImportReport:
    from judgeapp.services import imports

    with progress_bar(f"import {args.kind}") as progress:
        if args.kind == "topics":
            return imports.import_topics(
                store, args.files, args.fmt, progress, replace=args.replace
            )
        if args.kind == "docs":
            return imports.import_documents(store, args.files, args.fmt, progress)
        if args.kind == "run":
            return imports.import_runs(
                store,
                args.files,
                args.name,
                fmt=args.fmt,
                replace=args.replace,
                progress=progress,
                read=read,
            )
        if args.kind == "judgments":
            return imports.import_judgments(
                store, args.files, assessor=args.assessor, kind=args.judge_kind, fmt=args.fmt
            )
        return imports.import_qrels(
            store,
            args.files,
            args.name,
            fmt=args.fmt,
            replace=args.replace,
            progress=progress,
        )
