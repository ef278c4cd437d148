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
    store = open_store(args.db, create=True)
    store.close()
    print(f"created {args.db}")
    return 0
