"""`copy FROM TO`: a whole project into a new one (a file or a server, either way)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judgeapp.commands import CommandError, open_store
from judgeapp.errors import UserError

if TYPE_CHECKING:
    from judgeapp.store import Store

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
    from judgeapp.store.schema import database_url, sqlite_path

    try:
        if Store.exists(args.target):
            raise CommandError(f"{args.target} is a project already; copy into a new one")
    except StoreError as exc:
        raise CommandError(f"{args.target}: {exc}") from exc
    source = open_store(args.source)
    scope = source.scope
    if scope is not None:  # a team member's role reads its scope, not every stored row
        source.close()
        raise CommandError(
            f"copy reads every row of the project, which only its owner may (role "
            f"{scope.owner}): this URL connects as {scope.who}; run it with the owner's URL"
        )
    try:
        path = sqlite_path(database_url(args.target))
        if path is None:  # a database on a server
            rows = _copy(source, args.target)
        else:  # a file: made beside it and renamed into place when complete
            from judgeapp.outputs import replacing

            with replacing(path) as tmp:
                try:
                    rows = _copy(source, str(tmp))
                except UserError as exc:  # say it of the file the user named
                    raise CommandError(str(exc).replace(str(tmp), args.target)) from None
                finally:
                    Path(f"{tmp}-judgeapp-lock").unlink(missing_ok=True)
    finally:
        source.close()
    print(f"copied {args.source} to {args.target} ({rows} rows)")
    return 0


def _copy(source: Store, target_db: str) -> int:
    from judgeapp.store import StoreError
    from judgeapp.store.copying import copy_project

    target = open_store(target_db, create=True)
    try:
        return copy_project(source.db, target.db)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        target.close()
