"""What a measure family is: its parameters, what ``@`` sets, how topics combine.

A :class:`Family` is declared once, with the kernel that computes it, in a module of
:mod:`judgeapp.measures.families`; :mod:`judgeapp.measures.registry` lists those modules.
The parameters most families share (``rel``, ``judged_only``, ``gains``, ``dcg``, ``N``)
and the errors of parsing and evaluating live here too, so that the family modules need
nothing of :class:`~judgeapp.measures.measure.Measure` (which looks families up in the
registry).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Aggregate = Literal["mean", "gmean", "sum", "count", "text"]


class MeasureError(ValueError):
    """Unknown measure or bad parameter."""


class EvaluationError(ValueError):
    """Options or inputs the evaluation cannot work with (a measure needing the collection
    size without one, a negative relevance level, a missing topic in trec_eval 10.0 mode)."""


# the standard recall levels of trec_eval's iprec_at_recall and 11pt_avg
ELEVEN_LEVELS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: type  # int, float, bool, str, dict (gains: level -> gain), tuple (of floats)
    default: Any = None
    choices: tuple[Any, ...] | None = None
    desc: str = ""


REL = Param("rel", int, None, desc="minimum grade counted relevant (default: the -l level, 1)")
JUDGED_ONLY = Param(
    "judged_only", bool, False, desc="drop unjudged retrieved documents first (trec_eval -J)"
)
GAINS = Param("gains", dict, None, desc="gain per grade, e.g. {1:3,2:9} (others: the grade)")
DCG_VARIANT = Param(
    "dcg", str, "log2", ("log2", "exp-log2", "jk"), desc="gain and discount formulation"
)
COLLECTION = Param("N", int, 0, desc="number of documents in the collection (default: -N)")


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    description: str
    aggregate: Aggregate = "mean"
    at: Literal["cutoff", "recall", None] = "cutoff"  # what `@` sets
    at_kind: type = int
    at_required: bool = False
    at_default: Any = None
    params: tuple[Param, ...] = (REL, JUDGED_ONLY)
    integer: bool = False  # printed as an integer (counts)
    per_topic: bool = True  # trec_eval prints a per-topic value with -q

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)
