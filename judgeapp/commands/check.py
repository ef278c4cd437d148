"""`check DB [--full]`: SQLite's own check of a project file, on demand.

judgeapp does not check a project file when it opens it, nor before each write (reading
every page costs about 1.6 s per GB): only before the first write after a session that
ended without closing the file (a crash, a kill, a power cut; see
`judgeapp.store.files.session_mark`), and when asked, here or in the window."""

from __future__ import annotations

import argparse
import time

from judgeapp.commands import open_store

ORDER = 41


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="check the project file for damage (SQLite's quick_check or integrity_check)",
        description="Read every page of the project file and report any damage SQLite "
        "finds (`PRAGMA quick_check`; with --full `PRAGMA integrity_check`, which also "
        "cross-checks every index and takes several times longer). Exit 0 when the file is "
        "sound, 1 when it is damaged. A PostgreSQL project is checked by its server.",
    )
    p.add_argument("db", metavar="DB")
    p.add_argument("--full", action="store_true", help="cross-check the indexes too")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.store.files import REPAIR_HINT, ProjectFileError

    store = open_store(args.db)
    try:
        due = store.check_due
        start = time.perf_counter()
        found = store.check(full=args.full)
        took = time.perf_counter() - start
    finally:
        store.close()
    what = "integrity_check" if args.full else "quick_check"
    if store.dialect != "sqlite":
        print(f"{args.db}: a PostgreSQL project: its server checks its own pages")
        return 0
    if found == ["ok"]:
        after = " (it was due: the last session ended without closing the file)" if due else ""
        print(f"{args.db}: sound ({what}, {took:.1f} s){after}")
        return 0
    for line in found[:20]:
        print(f"{args.db}: {line}")
    more = f" ({len(found)} problems, the first 20 shown)" if len(found) > 20 else ""
    raise ProjectFileError(f"{args.db}: the project file is damaged{more}; {REPAIR_HINT}")
