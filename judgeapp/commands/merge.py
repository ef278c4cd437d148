"""`merge INTO FROM...`: bring judgments made in other projects into this one."""

from __future__ import annotations

import argparse

from judgeapp.commands import CommandError, open_store

ORDER = 57


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge",
        help="bring the judgments of other projects (a laptop's copy) into this one",
        description="Add to project INTO every judgment of the projects FROM, with notes, "
        "flags, time spent and the whole judgment history (SQLite files or PostgreSQL URLs, "
        "either way). Each history event is added once: merging again changes nothing. "
        "Where the same assessor judged the same document differently in the two projects, "
        "both changes stay in the history, the newer one counts, and the conflict is listed.",
    )
    p.add_argument("into", metavar="INTO", help="the project to merge into")
    p.add_argument("sources", metavar="FROM", nargs="+", help="projects to merge from")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.merging import merge_projects
    from judgeapp.store import StoreError

    store = open_store(args.into, owner="merge")
    try:
        merged = merge_projects(store, args.sources)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    for m in merged:
        r = m.report
        conflicts = len(r.conflicts)
        print(
            f"merged {m.source}: {r.events} history event{'s' * (r.events != 1)} added, "
            f"{r.judgments} judgment{'s' * (r.judgments != 1)} changed, "
            f"{conflicts} conflict{'s' * (conflicts != 1)}"
        )
        for c in r.conflicts:
            print(
                f"  conflict: topic {c.qid} document {c.docno} by {c.assessor}: "
                f"grade {c.kept} counts (the newer change), grade {c.other} kept in the history"
            )
        if m.unknown_topics:
            shown = " ".join(m.unknown_topics[:10])
            print(f"  {len(m.unknown_topics)} judged topics are not in the project: {shown}")
    return 0
