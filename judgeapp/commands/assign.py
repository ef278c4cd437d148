"""`assign DB --topics SPEC --assessors a,b,c`: who judges which topic, with overlap."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store

ORDER = 52


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "assign",
        help="assign topics to assessors, some shared for agreement, balanced by pool size",
        description="Give every topic of SPEC to --per-topic assessors, and a seeded share "
        "(--overlap) of them to one more, for measuring agreement; topics are dealt out "
        "largest pool first to the assessors with the least work so far. Running it again "
        "(say after adding an assessor) keeps everyone on the topics they have judged. "
        "Once a project has assignments, its assessors judge blind (no dashboard, run "
        "names, ranks, estimates or other assessors' grades) unless --blind off.",
    )
    p.add_argument("db", metavar="DB")
    p.add_argument("--topics", nargs="+", metavar="SPEC", help="topic ids and ranges A-B")
    p.add_argument("--assessors", help="comma-separated names (created if new)")
    p.add_argument("--per-topic", type=int, default=1, help="assessors per topic (default 1)")
    p.add_argument(
        "--overlap",
        type=float,
        default=0.0,
        help="share of the topics given to one more assessor, e.g. 0.1 (default 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the shared topics' draw")
    p.add_argument("--pool", help="the pool whose sizes balance the work (default: newest)")
    p.add_argument(
        "--blind",
        choices=("on", "off", "default"),
        help="blind mode for assessors (default: on once there are assignments)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.commands.pool import select_topics
    from judgeapp.services import team
    from judgeapp.store import StoreError

    changing = bool(args.assessors or args.blind)
    store = open_store(args.db, owner="assign" if changing else None)
    try:
        if args.assessors:
            if not args.topics:
                raise CommandError("--assessors needs --topics (which topics to assign)")
            qids = select_topics(args.topics, (t.qid for t in store.topics.all()))
            assert qids is not None
            names = [n.strip() for n in args.assessors.split(",") if n.strip()]
            team.assign(
                store,
                qids,
                names,
                pool=args.pool,
                per_topic=args.per_topic,
                overlap=args.overlap,
                seed=args.seed,
            )
        if args.blind:
            team.set_blind_mode(store, {"on": True, "off": False, "default": None}[args.blind])
        rows = store.team.assignments()
        blind = team.blind_mode(store)
        sizes = (
            store.pools.sizes(args.pool or store.pools.names()[-1]) if store.pools.names() else {}
        )
    except (StoreError, team.TeamError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    per: dict[str, list[tuple[str, bool]]] = {}
    for q, a, s in rows:
        per.setdefault(a, []).append((q, s))
    for name, topics in sorted(per.items()):
        shared = sum(1 for _q, s in topics if s)
        pooled = sum(sizes.get(q, 0) for q, _s in topics)
        print(
            f"{name}: {len(topics)} topic{'s' * (len(topics) != 1)} "
            f"({shared} shared), {pooled} pooled documents"
        )
    print(f"blind mode {'on' if blind else 'off'} for assessors")
    return 0
