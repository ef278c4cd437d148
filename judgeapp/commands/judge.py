"""`judge DB --assessor NAME`: record `topic docno grade [note]` lines from standard input.

Each line is committed before `recorded TOPIC DOCNO GRADE` is printed, so a script (or a
crowd-sourcing pipeline) knows exactly which judgments are safe if the process is killed."""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import CommandError, open_store

ORDER = 50


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="record judgments read from stdin (`topic docno grade [note]` per line)",
        description="Read `topic docno grade [note]` lines from standard input and record "
        "each as a judgment of ASSESSOR, printing `recorded TOPIC DOCNO GRADE` once it is "
        "committed. Blank lines and lines starting with # are skipped. The topic must be in "
        "the project and the document in one of the topic's pools. The first bad line "
        "stops the command (exit 1); the lines before it stay recorded.",
    )
    p.add_argument("db", metavar="DB")
    p.add_argument("--assessor", required=True, help="who is judging (created if new)")
    p.add_argument(
        "--allow-unpooled",
        action="store_true",
        help="also judge documents that are in no pool of their topic",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.services.judging import JudgingError, JudgingService

    store = open_store(args.db)
    try:
        try:
            service = JudgingService(store, args.assessor)
        except JudgingError as exc:
            raise CommandError(str(exc)) from exc
        for lineno, line in enumerate(sys.stdin, start=1):
            parts = line.split(maxsplit=3)
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) < 3:
                print(
                    f"judgeapp: error: stdin:{lineno}: expected `topic docno grade [note]`, "
                    f"found {len(parts)} field(s)",
                    file=sys.stderr,
                )
                return 1
            qid, docno, grade_text = parts[:3]
            note = parts[3].strip() if len(parts) == 4 else None
            try:
                grade = int(grade_text)
            except ValueError:
                print(
                    f"judgeapp: error: stdin:{lineno}: grade {grade_text!r} is not an integer",
                    file=sys.stderr,
                )
                return 1
            try:
                doc_id = service.check_target(qid, docno, allow_unpooled=args.allow_unpooled)
                service.record(qid, doc_id, grade, note=note, origin="cli")
            except JudgingError as exc:
                print(f"judgeapp: error: stdin:{lineno}: {exc}", file=sys.stderr)
                return 1
            print(f"recorded {qid} {docno} {grade}", flush=True)
    finally:
        store.close()
    return 0
