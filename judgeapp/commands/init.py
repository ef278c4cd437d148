"""`init DB`: create an empty project."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store

ORDER = 10


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create an empty project database")
    p.add_argument("db", metavar="DB", help="file path or SQLAlchemy URL of the new project")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.store import Store, StoreError

    try:
        exists = Store.exists(args.db)
    except StoreError as exc:
        raise CommandError(f"{args.db}: {exc}") from exc
    if exists:
        raise CommandError(f"{args.db} exists already; `info` shows what it holds")
    from judgeapp.store.files import ProjectAppeared, discard_staged

    # a new project file is built apart and put in place whole: a full disk, a kill or an
    # error leaves nothing at the path
    store = open_store(args.db, create=True, build=True, owner="init")
    try:
        if store.being_built:
            store.publish()
    except ProjectAppeared as appeared:
        discard_staged(appeared.staged)
        raise CommandError(f"{args.db} exists already; `info` shows what it holds") from None
    finally:
        store.close()
    print(f"created {args.db}")
    return 0
