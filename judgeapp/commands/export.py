"""`export qrels|judgments|searches DB [--out FILE]`: judgments as TREC qrels, or with every
field; or the assessors' search log."""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import POLICY_HELP, CommandError, open_store

ORDER = 30


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="export judgments as TREC qrels, or every judgment with every field",
        description="`export qrels`: the project's judgments as TREC four-column qrels "
        "(`qid 0 docno grade`), readable by trec_eval, ir_measures and ranx; where a "
        "document was judged more than once, --policy chooses which judgment counts (the "
        "newest by default). `export judgments`: every assessor's judgment with every field "
        "(topic, docno, assessor, kind, grade, score, note, flagged, time_spent, created_at, "
        "updated_at, origin, found_by, query) as JSON Lines or CSV; `import judgments` reads it "
        "back. found_by says how the document came to be judged: from a pool (pool) or found "
        "by searching the collection (search, with the query). `export searches`: every search "
        "the assessors made (assessor, topic, scope: collection or pool, query, results, at), "
        "the search log TREC keeps with a collection.",
    )
    p.add_argument("kind", choices=["qrels", "judgments", "searches"])
    p.add_argument("db", metavar="DB")
    p.add_argument(
        "--assessor",
        action="append",
        help="only this assessor's or qrels source's judgments, or searches (repeatable)",
    )
    p.add_argument("--policy", default="newest", help=f"qrels: {POLICY_HELP}")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=["jsonl", "csv"],
        default="jsonl",
        help="judgments and searches: format",
    )
    p.add_argument("--out", "-o", help="output file (default: standard output)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.formats import write_qrels
    from judgeapp.formats.judgments import write_judgments, write_searches
    from judgeapp.outputs import writing
    from judgeapp.services.policy import PolicyError, parse_policy, qrels_rows
    from judgeapp.store import StoreError

    store = open_store(args.db)
    try:
        if args.kind == "qrels":
            rows = qrels_rows(store, args.assessor, parse_policy(args.policy))
        elif args.kind == "searches":
            entries = store.search.logged(args.assessor)
        else:
            wanted = set(args.assessor or ())
            lines = [r for r in store.judgments.export() if not wanted or r.assessor in wanted]
    except (StoreError, PolicyError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    if args.kind == "qrels":
        if args.out:
            write_qrels(rows, args.out)
            print(f"wrote {len(rows)} judgments to {args.out}", file=sys.stderr)
        else:
            write_qrels(rows, sys.stdout)
        return 0
    if args.kind == "searches":
        write, count, what = (
            (lambda fh: write_searches(entries, fh, args.fmt)),
            len(entries),
            "searches",
        )
    else:
        write, count, what = (
            (lambda fh: write_judgments(lines, fh, args.fmt)),
            len(lines),
            "judgments",
        )
    if args.out:
        with writing(args.out, newline="") as fh:  # whole or not at all
            write(fh)
        print(f"wrote {count} {what} to {args.out}", file=sys.stderr)
    else:
        write(sys.stdout)
    return 0
