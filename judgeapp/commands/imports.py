"""`import topics|docs|run|qrels DB FILE...`: add files to a project, all or nothing."""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import CommandError, open_store, progress_bar

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
        "--replace", action="store_true", help="replace runs/qrels sources of the same name"
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


def run(args: argparse.Namespace) -> int:
    from judgeapp.services import imports
    from judgeapp.store import StoreError

    if args.name and len(args.name) != len(args.files):
        raise CommandError(f"--name given {len(args.name)} times for {len(args.files)} files")
    store = open_store(args.db, create=args.create)
    try:
        with progress_bar(f"import {args.kind}") as progress:
            if args.kind == "topics":
                report = imports.import_topics(store, args.files, args.fmt, progress)
            elif args.kind == "docs":
                report = imports.import_documents(store, args.files, args.fmt, progress)
            elif args.kind == "run":
                report = imports.import_runs(
                    store,
                    args.files,
                    args.name,
                    fmt=args.fmt,
                    replace=args.replace,
                    progress=progress,
                )
            elif args.kind == "judgments":
                report = imports.import_judgments(
                    store, args.files, assessor=args.assessor, kind=args.judge_kind, fmt=args.fmt
                )
            else:
                report = imports.import_qrels(
                    store,
                    args.files,
                    args.name,
                    fmt=args.fmt,
                    replace=args.replace,
                    progress=progress,
                )
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    print(f"imported {report.detail} from {report.files} file(s)", file=sys.stderr)
    return 0
