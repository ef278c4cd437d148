"""`scale DB [--preset NAME] [--grade G LABEL] ...`: show or define the project's relevance
scale (grades, labels, keys, definitions), the lowest relevant grade and the guidelines."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from judgeapp.commands import CommandError, open_store

ORDER = 42
# judgeapp.services.scale.PRESETS, named here so that --help needs no import of the store
# (a test keeps the two in step)
PRESET_HELP = {
    "default": "0 Not relevant, 1 Related, 2 Highly relevant, 3 Perfectly relevant; relevant "
    "from 1",
    "binary": "0 Not relevant, 1 Relevant",
    "trec3": "TREC's 0 Not relevant, 1 Relevant, 2 Highly relevant; relevant from 1",
    "trec-dl": "TREC Deep Learning's 0 Irrelevant, 1 Related, 2 Highly relevant, 3 Perfectly "
    "relevant, where Related is NOT relevant: relevant from 2",
    "five": "0 Not relevant to 4 Perfectly relevant; relevant from 1",
}


def register(sub: argparse._SubParsersAction) -> None:
    presets = "; ".join(f"{name}: {text}" for name, text in PRESET_HELP.items())
    p = sub.add_parser(
        "scale",
        help="show or define the project's relevance scale and judging guidelines",
        description="Without options, print the project's scale: each grade's number, key, "
        "label and definition, which grades count as relevant (binary measures, the "
        "judging list's counts, judging orders) and the guidelines. The options change it, "
        "starting from a --preset or from the scale as it is; a grade that people's "
        "judgments use cannot be removed. Every open window shows the new scale within a "
        f"moment. Presets: {presets}.",
    )
    p.add_argument("db", metavar="DB", help="project: file path or SQLAlchemy URL")
    p.add_argument(
        "--preset",
        choices=list(PRESET_HELP),
        help="start from this scale (with its definitions and lowest relevant grade)",
    )
    p.add_argument(
        "--grade",
        nargs=2,
        action="append",
        metavar=("G", "LABEL"),
        default=[],
        help="add grade G (an integer) with this label, or relabel it; its key is G's "
        "last digit unless --key says otherwise (repeatable)",
    )
    p.add_argument(
        "--key",
        nargs=2,
        action="append",
        metavar=("G", "KEY"),
        default=[],
        help="the key (one character) that records grade G (repeatable)",
    )
    p.add_argument(
        "--define",
        nargs=2,
        action="append",
        metavar=("G", "TEXT"),
        default=[],
        help="what grade G means, shown to assessors in the buttons' tooltips and on F1 "
        "(repeatable)",
    )
    p.add_argument(
        "--remove", type=int, action="append", default=[], metavar="G", help="remove grade G"
    )
    p.add_argument(
        "--relevant-from",
        type=int,
        metavar="G",
        help="the lowest grade that counts as relevant (like trec_eval -l)",
    )
    guide = p.add_mutually_exclusive_group()
    guide.add_argument(
        "--guidelines", metavar="FILE", help="judging guidelines from a text file (UTF-8)"
    )
    guide.add_argument("--guidelines-text", metavar="TEXT", help="judging guidelines as text")
    guide.add_argument("--no-guidelines", action="store_true", help="remove the judging guidelines")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("text", "json"),
        default="text",
        help="how to print the scale (default text)",
    )
    p.set_defaults(handler=run)


def _grade_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CommandError(f"a grade is an integer, not {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from judgeapp.records import GradeInfo
    from judgeapp.services import scale
    from judgeapp.store import StoreError

    changing = bool(
        args.preset
        or args.grade
        or args.key
        or args.define
        or args.remove
        or args.relevant_from is not None
        or args.guidelines
        or args.guidelines_text is not None
        or args.no_guidelines
    )
    store = open_store(args.db, owner="scale" if changing else None)
    try:
        spec = scale.current(store)
        if changing:
            if args.preset:
                preset = scale.PRESETS[args.preset]
                spec = replace(preset, guidelines=spec.guidelines)
            grades = {g.grade: g for g in spec.grades}
            for number, label in args.grade:
                g = _grade_number(number)
                old = grades.get(g)
                key = old.key if old is not None else str(abs(g))[-1]
                grades[g] = GradeInfo(g, label, key, old.definition if old else "")
            for number, key in args.key:
                g = _grade_number(number)
                if g not in grades:
                    raise CommandError(f"--key {g}: the scale has no grade {g} (add it: --grade)")
                grades[g] = replace(grades[g], key=key)
            for number, text in args.define:
                g = _grade_number(number)
                if g not in grades:
                    raise CommandError(f"--define {g}: the scale has no grade {g}")
                grades[g] = replace(grades[g], definition=text)
            for g in args.remove:
                if grades.pop(g, None) is None:
                    raise CommandError(f"--remove {g}: the scale has no grade {g}")
            relevant_from = spec.relevant_from
            if args.relevant_from is not None:
                relevant_from = args.relevant_from
            elif relevant_from not in grades and grades:
                # the old lowest relevant grade was removed: the next one up, else the top
                higher = sorted(g for g in grades if g > relevant_from)
                relevant_from = higher[0] if higher else max(grades)
            guidelines = spec.guidelines
            if args.guidelines:
                try:
                    guidelines = Path(args.guidelines).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    raise CommandError(f"cannot read the guidelines: {exc}") from exc
            elif args.guidelines_text is not None:
                guidelines = args.guidelines_text
            elif args.no_guidelines:
                guidelines = ""
            spec = scale.ScaleSpec(
                tuple(sorted(grades.values(), key=lambda g: g.grade)), relevant_from, guidelines
            )
            try:
                scale.apply(store, spec)
            except (scale.ScaleError, StoreError) as exc:
                raise CommandError(str(exc)) from exc
            spec = scale.current(store)
    finally:
        store.close()
    if args.fmt == "json":
        print(
            json.dumps(
                {
                    "grades": [
                        {
                            "grade": g.grade,
                            "label": g.label,
                            "key": g.key,
                            "definition": g.definition,
                        }
                        for g in spec.grades
                    ],
                    "relevant_from": spec.relevant_from,
                    "guidelines": spec.guidelines,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(scale.describe(spec))
    return 0
