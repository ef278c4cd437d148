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
        "or anyone else's judgments, and shows it only what its window shows (judging "
        "blind: its own topics and judgments, no runs). A role that exists already is "
        "refused unless `team add` made it (--adopt-role takes one over); a superuser or the "
        "owner's own role never. `remove` takes the grants back and ends the role's "
        "sessions (judgments stay); `list` shows who has a role. `wait SECONDS` sets how "
        "long the project's commands wait for another writer before giving up (default "
        "600). A SQLite project has no users: there an assessor's name is only a label. "
        "`role NAME ROLE` (any project) makes a person the owner, an evaluator (both see "
        "everything) or an assessor (judges blind in blind mode); auto: an assessor if they "
        "have assignments, else an evaluator.",
    )
    p.add_argument("action", choices=["add", "remove", "list", "role", "wait"])
    p.add_argument(
        "name", nargs="?", help="the assessor (add, remove, role), or the seconds (wait)"
    )
    p.add_argument("role", nargs="?", help="for role: owner, evaluator, assessor or auto")
    p.add_argument("--db", required=True, help="the project (PostgreSQL: its URL, as its owner)")
    p.add_argument("--role", help="database role name (default: made from the name)")
    p.add_argument("--password", help="password of a new role (default: a random one)")
    p.add_argument(
        "--adopt-role",
        action="store_true",
        help="give NAME a database role that exists already (not made by `team add`)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from judgeapp.outputs import shown
    from judgeapp.store import StoreError

    if args.action != "list" and not args.name:
        what = "the seconds" if args.action == "wait" else "the assessor's name"
        raise CommandError(f"team {args.action} needs {what}")
    changing = args.action != "list"
    store = open_store(args.db, owner=f"team {args.action}" if changing else None)
    try:
        if args.action == "add":
            role, password = store.team.add_member(
                args.name, role=args.role, password=args.password, adopt=args.adopt_role
            )
            url = make_url(store.url).set(username=role, password=password or "PASSWORD")
            link = url.render_as_string(hide_password=False)
            print(f"{shown(args.name)} connects as database role {shown(role)}:")
            print(f"  python main.py PROJECT-URL  with  {shown(link)}")
            if password is None:
                print(f"  (role {shown(role)} existed already: its password is unchanged)")
        elif args.action == "remove":
            role = store.team.remove_member(args.name)
            print(
                f"{shown(args.name)}: role {shown(role)} is off the team (its grants taken "
                "back, its sessions ended); judgments stay"
            )
        elif args.action == "role":
            from judgeapp.services import team

            if not args.role:
                raise CommandError("team role NAME ROLE: give the role")
            try:
                team.set_role(store, args.name, None if args.role == "auto" else args.role)
            except team.TeamError as exc:
                raise CommandError(str(exc)) from exc
            print(f"{shown(args.name)}: {team.role_of(store, args.name)}")
        elif args.action == "wait":
            try:
                seconds = float(args.name)
            except ValueError:
                raise CommandError(f"team wait SECONDS: a number, not {args.name!r}") from None
            store.team.set_wait_limit(seconds)
            print(f"commands wait at most {seconds:g} s for another writer, then give up")
        else:
            scope = store.scope
            if scope is not None and scope.blind:
                print(f"# {scope.describe()}")
            for name, role in store.team.members():
                print(f"{shown(name)}\t{shown(role)}")
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    return 0
