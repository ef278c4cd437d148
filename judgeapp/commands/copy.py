"""`copy FROM TO`: a whole project into a new one (a file or a server, either way)."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store

ORDER = 58


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "copy",
        help="copy a whole project into a new one (take the team's project offline)",
        description="Copy every topic, document, run, pool, judgment and history event of "
        "project FROM into TO, a new project (a file that does not exist yet, or an empty "
        "database on a server). Judge in the copy, then bring the judgments back with "
        "`merge FROM TO`.",
    )
    p.add_argument("source", metavar="FROM")
    p.add_argument("target", metavar="TO")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.store import Store, StoreError
    from judgeapp.store.copying import copy_project

    try:
        if Store.exists(args.target):
            raise CommandError(f"{args.target} is a project already; copy into a new one")
    except StoreError as exc:
        raise CommandError(f"{args.target}: {exc}") from exc
    source = open_store(args.source)
    try:
        target = open_store(args.target, create=True)
        try:
            rows = copy_project(source, target)
        except StoreError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            target.close()
    finally:
        source.close()
    print(f"copied {args.source} to {args.target} ({rows} rows)")
    return 0
