"""`export qrels DB [--assessor A] [--out FILE]`: judgments as TREC qrels."""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import CommandError, open_store

ORDER = 30


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="export judgments as TREC qrels",
        description="Write the project's judgments as TREC four-column qrels "
        "(`qid 0 docno grade`), readable by trec_eval, ir_measures and ranx. Where several "
        "assessors judged a document, the newest judgment counts.",
    )
    p.add_argument("kind", choices=["qrels"])
    p.add_argument("db", metavar="DB")
    p.add_argument(
        "--assessor",
        action="append",
        help="only this assessor's or qrels source's judgments (repeatable)",
    )
    p.add_argument("--out", "-o", help="output file (default: standard output)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.formats import write_qrels
    from judgeapp.services.policy import qrels_rows
    from judgeapp.store import StoreError

    store = open_store(args.db)
    try:
        rows = qrels_rows(store, args.assessor)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    if args.out:
        write_qrels(rows, args.out)
        print(f"wrote {len(rows)} judgments to {args.out}", file=sys.stderr)
    else:
        write_qrels(rows, sys.stdout)
    return 0
