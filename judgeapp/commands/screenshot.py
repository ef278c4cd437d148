"""`screenshot VIEW OUT.png [--db DB] [--size WxH] [--scale F]`: render a view offscreen to
a PNG, as a screen of that size at that scale factor shows it."""

from __future__ import annotations

import argparse
import os
import re
import sys

from judgeapp.commands import CommandError
from judgeapp.errors import UserError

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
    p.add_argument(
        "view",
        choices=["topics", "judging", "search", "dashboard", "team", "agreement", "adjudication"],
        help="which view of the window to draw",
    )
    p.add_argument("out", metavar="OUT.png", help="the PNG file to write")
    p.add_argument("--db", help="project file or SQLAlchemy URL (default: the demo project)")
    p.add_argument(
        "--size",
        default="1280x800",
        help="the picture's size in pixels, WxH, like a screen of that size (default "
        "1280x800); at --scale F the window is W/F x H/F of Qt's device-independent pixels",
    )
    p.add_argument(
        "--scale",
        type=float,
        default=1.0,
        metavar="F",
        help="the scale factor, as a high-resolution screen sets it (QT_SCALE_FACTOR; "
        "default 1): --size 1920x1080 --scale 2 is a 1920x1080 screen at 200%%",
    )
    p.add_argument(
        "--simulate",
        type=int,
        default=12,
        metavar="N",
        help="judge the first N pooled documents of each shown topic in the copy (default 12)",
    )
    p.add_argument(
        "--topics",
        type=int,
        default=3,
        metavar="K",
        help="how many topics --simulate judges in (default 3)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    match = re.fullmatch(r"(\d+)[xX](\d+)", args.size)
    if not match:
        raise CommandError(f"--size wants WxH, like 1280x800, not {args.size!r}")
    width, height = int(match[1]), int(match[2])
    if not (320 <= width <= 8000 and 240 <= height <= 8000):
        raise CommandError(f"--size {args.size} is out of range (320x240 to 8000x8000)")
    if not 0.5 <= args.scale <= 4:
        raise CommandError(f"--scale {args.scale:g} is out of range (0.5 to 4)")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt starts
    if args.scale != 1:
        os.environ["QT_SCALE_FACTOR"] = f"{args.scale:g}"
    from judgeapp.screenshots import render

    try:
        out = render(
            args.view,
            args.out,
            args.db,
            (round(width / args.scale), round(height / args.scale)),
            simulate=args.simulate,
            topics=args.topics,
            scale=args.scale,
        )
    except UserError:
        raise  # an output that cannot be written, a damaged project: said as it is
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote {out}", file=sys.stderr)
    return 0
