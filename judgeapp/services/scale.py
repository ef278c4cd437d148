"""A project's relevance scale, as its owner defines it: grades with labels, keys and
definitions, the lowest grade that counts as relevant, and judging guidelines. Presets for
the scales people use, and the checks a scale must pass before the store keeps it. No Qt.

The scale belongs to the project (`store.settings.set_scale`): every window following the project
hears of a change (`Changes(scale=True)`) and shows the new buttons and keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgeapp.errors import UserError
from judgeapp.records import GradeInfo
from judgeapp.store import Changes, Store

# single keys the judging view uses for itself (a test checks them against its actions)
RESERVED_KEYS = frozenset({"F", "S", "U", "J", "K", "L", "N", "T", "I", "/", "?"})


class ScaleError(UserError, ValueError):
    """A scale that cannot be used (two grades on one key, a relevant grade off the scale)."""


@dataclass(frozen=True, slots=True)
class ScaleSpec:
    """Everything an owner decides about judging: the grades, which of them count as
    relevant (from `relevant_from` up) and the guidelines shown to assessors."""

    grades: tuple[GradeInfo, ...]
    relevant_from: int
    guidelines: str = ""
    description: str = ""  # what the preset is (for the dialog and --help)

    def grade(self, value: int) -> GradeInfo | None:
        return next((g for g in self.grades if g.grade == value), None)

    def relevant_labels(self) -> str:
        """'2 Highly relevant, 3 Perfectly relevant': what counts as relevant, in words."""
        return ", ".join(
            f"{g.grade} {g.label}" for g in self.grades if g.grade >= self.relevant_from
        )


def _g(grade: int, label: str, definition: str) -> GradeInfo:
    return GradeInfo(grade, label, str(grade), definition)


PRESETS: dict[str, ScaleSpec] = {
    "default": ScaleSpec(
        (
            _g(0, "Not relevant", "Nothing in the document answers the topic."),
            _g(1, "Related", "On the topic's subject, but only marginally useful."),
            _g(2, "Highly relevant", "Answers a good part of the topic."),
            _g(3, "Perfectly relevant", "Devoted to the topic and answers it fully."),
        ),
        1,
        description="judgeapp's four grades, relevant from 1",
    ),
    "binary": ScaleSpec(
        (
            _g(0, "Not relevant", "The document does not help with the topic."),
            _g(1, "Relevant", "Any part of the document helps with the topic."),
        ),
        1,
        description="relevant or not (TREC ad hoc)",
    ),
    "trec3": ScaleSpec(
        (
            _g(0, "Not relevant", "The document does not help with the topic."),
            _g(1, "Relevant", "The document helps with the topic."),
            _g(2, "Highly relevant", "The document helps with the topic and is focused on it."),
        ),
        1,
        description="TREC's three levels (Robust, Web, Core): relevant from 1",
    ),
    "trec-dl": ScaleSpec(
        (
            _g(0, "Irrelevant", "Has nothing to do with the question."),
            _g(1, "Related", "On the question's subject, but does not answer it: not relevant."),
            _g(
                2,
                "Highly relevant",
                "Answers the question, perhaps unclearly or among other material.",
            ),
            _g(3, "Perfectly relevant", "Devoted to the question and holds the exact answer."),
        ),
        2,
        description="TREC Deep Learning's 0-3, where 1 (Related) is not relevant: relevant from 2",
    ),
    "five": ScaleSpec(
        (
            _g(0, "Not relevant", "Nothing about the topic."),
            _g(1, "Marginally relevant", "Mentions the topic in passing."),
            _g(2, "Fairly relevant", "Holds some useful information on the topic."),
            _g(3, "Highly relevant", "Treats the topic at length."),
            _g(4, "Perfectly relevant", "Devoted to the topic; nothing important is missing."),
        ),
        1,
        description="five levels, 0-4, relevant from 1",
    ),
}


def check(grades: Sequence[GradeInfo], relevant_from: int) -> None:
    """Raise ScaleError unless the scale can be judged with: one key per grade, each key a
    single key a keyboard has (not one the judging view uses), labels given."""
    if not grades:
        raise ScaleError("a scale needs at least one grade")
    numbers = [g.grade for g in grades]
    if len(set(numbers)) != len(numbers):
        raise ScaleError("each grade needs its own number")
    keys = [g.key.strip() for g in grades]
    for g, key in zip(grades, keys, strict=True):
        if not g.label.strip():
            raise ScaleError(f"grade {g.grade} needs a label")
        if len(key) != 1 or key.isspace():
            raise ScaleError(f"grade {g.grade}: the key must be one character, not {g.key!r}")
        if key.upper() in RESERVED_KEYS:
            raise ScaleError(
                f"grade {g.grade}: {key!r} is taken by the judging view "
                f"(its keys are {', '.join(sorted(RESERVED_KEYS))})"
            )
    if len({k.upper() for k in keys}) != len(keys):
        raise ScaleError("each grade needs its own key")
    if relevant_from not in numbers:
        raise ScaleError(f"relevant from grade {relevant_from}: the scale has no such grade")


def current(store: Store) -> ScaleSpec:
    """The project's scale as it is now."""
    return ScaleSpec(
        tuple(store.settings.scale()), store.settings.relevant_from(), store.settings.guidelines()
    )


def apply(store: Store, spec: ScaleSpec) -> Changes:
    """Make `spec` the project's scale (checked first; people's grades must stay)."""
    grades = tuple(
        GradeInfo(g.grade, g.label.strip(), g.key.strip(), g.definition.strip())
        for g in sorted(spec.grades, key=lambda g: g.grade)
    )
    check(grades, spec.relevant_from)
    return store.settings.set_scale(
        grades, relevant_from=spec.relevant_from, guidelines=spec.guidelines
    )


def describe(spec: ScaleSpec) -> str:
    """The scale as text: one line per grade, what counts as relevant, the guidelines."""
    width = max((len(g.label) for g in spec.grades), default=5)
    lines = ["grade  key  " + "label".ljust(width) + "  definition"]
    for g in spec.grades:
        mark = "*" if g.grade >= spec.relevant_from else " "
        lines.append(
            f"{g.grade:>5}{mark} {g.key:<4} {g.label.ljust(width)}  {g.definition}".rstrip()
        )
    lines.append(f"* relevant: grade {spec.relevant_from} and above ({spec.relevant_labels()})")
    if spec.guidelines.strip():
        lines.append("")
        lines.append("guidelines:")
        lines.extend("  " + line for line in spec.guidelines.strip().splitlines())
    else:
        lines.append("guidelines: none (scale DB --guidelines FILE adds them)")
    return "\n".join(lines)
