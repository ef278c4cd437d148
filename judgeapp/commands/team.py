"""`team add|remove|list`: assessors who connect to a PostgreSQL project as themselves."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store

ORDER = 55


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "team",
        help="give assessors database roles of their own (PostgreSQL projects)",
        description="On a project on a PostgreSQL server, run by the project's owner: `add` "
        "creates a database role for an assessor (or reuses one), grants it what judging "
        "needs, and prints how to connect; the server then lets that role write only its "
        "own judgments and history (row-level security), and never runs, pools, the scale "
        "or anyone else's judgments. `remove` takes the grants back (judgments stay); "
        "`list` shows who has a role. A SQLite project has no users: there an assessor's "
        "name is only a label.",
    )
    p.add_argument("action", choices=["add", "remove", "list"])
    p.add_argument("name", nargs="?", help="the assessor (for add and remove)")
    p.add_argument("--db", required=True, help="the project's URL, connected as its owner")
    p.add_argument("--role", help="database role name (default: made from the name)")
    p.add_argument("--password", help="password of a new role (default: a random one)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from judgeapp.store import StoreError

    if args.action != "list" and not args.name:
        raise CommandError(f"team {args.action} needs the assessor's name")
    store = open_store(args.db)
    try:
        if args.action == "add":
            role, password = store.add_team_member(
                args.name, role=args.role, password=args.password
            )
            url = make_url(store.url).set(username=role, password=password or "PASSWORD")
            shown = url.render_as_string(hide_password=False)
            print(f"{args.name} connects as database role {role}:")
            print(f"  python main.py PROJECT-URL  with  {shown}")
            if password is None:
                print(f"  (role {role} existed already: its password is unchanged)")
        elif args.action == "remove":
            role = store.remove_team_member(args.name)
            print(f"{args.name}: the grants of role {role} are taken back; judgments stay")
        else:
            for name, role in store.team():
                print(f"{name}\t{role}")
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    return 0
