"""`screenshot VIEW OUT.png [--db DB] [--size WxH]`: render a view offscreen to a PNG."""

from __future__ import annotations

import argparse
import os
import re
import sys

from judgeapp.commands import CommandError

ORDER = 90


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "screenshot",
        help="render a view of the real window offscreen to a PNG",
        description="Render the `topics` or `judging` view (or `dashboard`, once it exists) "
        "of a project, the demo project by default, offscreen to a PNG. The project is "
        "copied first and never changed. A project without a pool gets one in the copy "
        "(depth 20 over every run, blind order); --simulate N then judges the first N pooled "
        "documents of the first --topics topics in the copy, with the grades of the "
        "project's imported qrels, so the picture shows judging under way.",
    )
    p.add_argument("view", choices=["topics", "judging", "dashboard", "team", "agreement"])
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--db", help="project file or SQLAlchemy URL (default: the demo project)")
    p.add_argument("--size", default="1280x800", help="window size, WxH (default 1280x800)")
    p.add_argument("--simulate", type=int, default=12, metavar="N")
    p.add_argument("--topics", type=int, default=3, metavar="K")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    match = re.fullmatch(r"(\d+)[xX](\d+)", args.size)
    if not match:
        raise CommandError(f"--size wants WxH, like 1280x800, not {args.size!r}")
    width, height = int(match[1]), int(match[2])
    if not (320 <= width <= 8000 and 240 <= height <= 8000):
        raise CommandError(f"--size {args.size} is out of range (320x240 to 8000x8000)")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt starts
    from judgeapp.screenshots import render

    try:
        out = render(
            args.view,
            args.out,
            args.db,
            (width, height),
            simulate=args.simulate,
            topics=args.topics,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote {out}", file=sys.stderr)
    return 0
