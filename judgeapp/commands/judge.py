"""`judge DB [--assessor NAME]`: record `topic docno grade [note]` lines from standard input.

Each line is committed before `recorded TOPIC DOCNO GRADE` is printed, so a script (or a
crowd-sourcing pipeline) knows exactly which judgments are safe if the process is killed."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator

from judgeapp.commands import CommandError, open_store

ORDER = 50


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="record judgments read from stdin (`topic docno grade [note]` per line)",
        description="Read `topic docno grade [note]` lines from standard input and record "
        "each as a judgment of ASSESSOR, printing `recorded TOPIC DOCNO GRADE` once it is "
        "committed. Blank lines and lines starting with # are skipped. Input is read as "
        "the file readers read it: UTF-8, columns separated by ASCII white space, lines "
        "ending in LF, CRLF or CR, at most 1 MiB. The topic must be in the project and the "
        "document in one of the topic's pools. The first bad line stops the command "
        "(exit 1); the lines before it stay recorded.",
    )
    p.add_argument("db", metavar="DB")
    p.add_argument(
        "--assessor",
        help="who is judging (created if new); on a PostgreSQL project opened with an "
        "assessor's own database role, that assessor by default",
    )
    p.add_argument(
        "--allow-unpooled",
        action="store_true",
        help="also judge documents that are in no pool of their topic",
    )
    p.set_defaults(handler=run)


def _stdin_lines() -> Iterator[tuple[int, str]]:
    """Standard input's lines, decoded, split and limited as the file readers do it (see
    `judgeapp.formats.textio.iter_stream_lines`), each as soon as it has arrived."""
    from judgeapp.formats.textio import iter_stream_lines

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream put in its place (tests): its text, encoded again
        stream = io.BytesIO(sys.stdin.read().encode("utf-8"))
    return iter_stream_lines(stream, "stdin")


def _connected_assessor(store) -> str:
    """The assessor whose database role this connection is (PostgreSQL, a team member's
    URL); with no such role (a project file, the owner's URL) --assessor must say who."""
    from judgeapp.store import StoreError

    try:
        connected = store.team.current_assessor()
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    if connected is None:
        raise CommandError(
            "--assessor NAME says who is judging: this project is opened without an "
            "assessor's own database role (a project file, or the owner's role), so the "
            "judgments would belong to nobody"
        )
    return connected


def run(args: argparse.Namespace) -> int:
    from judgeapp.formats.columns import int_problem, split_columns
    from judgeapp.formats.errors import FormatError, quoted
    from judgeapp.services.judging import (
        JudgingError,
        JudgingService,
        check_grade,
        judging_target,
    )

    store = open_store(args.db)

    try:
        # a new assessor is made with their first judgment, in its transaction: a command
        # that records nothing leaves the project as it was
        assessor = args.assessor or _connected_assessor(store)
        try:
            service = JudgingService(store, assessor, create=False)
        except JudgingError as exc:
            raise CommandError(str(exc)) from exc
        grades = {g.grade for g in store.settings.scale()}
        for lineno, line in _stdin_lines():
            fields = split_columns(line, 3)
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) < 3:
                raise FormatError(
                    "stdin",
                    lineno,
                    f"expected `topic docno grade [note]`, found {len(fields)} field(s)",
                )
            qid, docno, grade_text = fields[:3]
            note = fields[3] if len(fields) == 4 else None
            grade, problem = int_problem(grade_text)
            if grade is None:
                raise FormatError("stdin", lineno, f"grade {quoted(grade_text)} {problem}")
            try:
                doc_id = judging_target(store, qid, docno, allow_unpooled=args.allow_unpooled)
                check_grade(grade, grades)
                service.record(
                    qid, docno if doc_id is None else doc_id, grade, note=note, origin="cli"
                )
            except JudgingError as exc:
                raise FormatError("stdin", lineno, str(exc)) from None
            print(f"recorded {qid} {docno} {grade}", flush=True)
    finally:
        store.close()
    return 0
