"""Measure objects in the style of ir_measures: a family plus parameters, ``@`` sets the cutoff.

``str(measure)`` is the canonical text (``AP``, ``P@10``, ``P(rel=2)@5``,
``nDCG(dcg='exp-log2')@10``); it is the key of result tables, the column header and the
settings key, and :func:`judgeapp.measures.parse.parse_measure` turns it back into an equal
measure. Families named as in ir_measures mean what ir_measures (through pytrec_eval) means;
trec_eval measures that ir_measures lacks keep their trec_eval name (``gm_map``,
``Rprec_mult@0.2``, ``ndcg_rel``); judgeapp's variants from the lecture notes have their own
names (``nDCG(dcg='jk')``, ``F(beta=0.5)``, ``Fallout(N=1000)``, ``Acc(N=1000)``, ``AP_11pt``).

Every family has a human description and an aggregate: ``mean`` (trec_eval averages over
topics), ``gmean`` (geometric mean, gm_*), ``sum`` (counts summed over topics), ``count``
(number of topics), ``text`` (runid, relstring: shown, never averaged). The families
themselves (:class:`~judgeapp.measures.family.Family`) are declared, each with its kernel
and names, in the modules of :mod:`judgeapp.measures.families`, which
:mod:`judgeapp.measures.registry` lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeapp.measures.family import Aggregate, Family, Param
from judgeapp.measures.registry import FAMILIES

MAX_CUTOFF = 2**31 - 1  # longer than any ranking


def _num_text(value: float) -> str:
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    ):
        return str(int(value))
    return repr(float(value))


def _param_text(param: Param, value: Any) -> str:
    if param.kind is dict:
        return "{" + ",".join(f"{k}:{_num_text(v)}" for k, v in value) + "}"
    if param.kind is tuple:
        return "(" + ",".join(_num_text(v) for v in value) + ")"
    if param.kind is float:
        return repr(float(value))
    return repr(value)


def _normalise(param: Param, value: Any) -> Any:
    """Coerce a parameter to its canonical, hashable form (or raise ValueError)."""
    if param.kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{param.name} must be True or False, not {value!r}")
        return value
    if param.kind is int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not value.is_integer())
        ):
            raise ValueError(f"{param.name} must be an integer, not {value!r}")
        if param.name == "rel" and value < 0:
            raise ValueError(f"rel must be 0 or more, not {value!r}")
        return int(value)
    if param.kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{param.name} must be a number, not {value!r}")
        return float(value)
    if param.kind is str:
        if param.choices and value not in param.choices:
            choices = ", ".join(repr(c) for c in param.choices)
            raise ValueError(f"{param.name} must be one of {choices}, not {value!r}")
        return str(value)
    if param.kind is tuple:
        if not isinstance(value, tuple | list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        ):
            raise ValueError(f"{param.name} must be a tuple of numbers, not {value!r}")
        return tuple(float(v) for v in value)
    if param.kind is dict:
        items = value.items() if isinstance(value, Mapping) else value
        out = []
        for k, v in items:
            if isinstance(k, bool) or not isinstance(k, int):
                raise ValueError(f"{param.name}: grade {k!r} is not an integer")
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValueError(f"{param.name}: gain {v!r} for grade {k} is not a number")
            out.append((int(k), float(v)))
        # the order given is kept: trec_eval's gain sort keeps it for gains < 1 apart
        return tuple(out)
    raise TypeError(param.kind)


class Measure:
    """A measure family with its parameters. Immutable and hashable; equal when the canonical
    texts are equal. ``measure @ 10`` and ``measure(rel=2)`` return new measures.

    ``label`` is the name trec_eval prints for it (``P_10``, ``ndcg_cut_10``,
    ``utility_2,-1,0,0``) when the measure came from trec_eval syntax; it is output only and
    takes no part in equality.
    """

    __slots__ = ("_text", "at", "family", "label", "params")
    family: str
    at: float | None
    params: tuple[tuple[str, Any], ...]  # (name, value), declaration order, defaults left out
    label: str | None
    _text: str

    def __init__(
        self,
        family: str,
        at: float | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        label: str | None = None,
    ) -> None:
        fam = FAMILIES.get(family)
        if fam is None:
            raise ValueError(f"unknown measure {family!r}")
        given = dict(params or {})
        unknown = sorted(set(given) - {p.name for p in fam.params})
        if unknown:
            raise ValueError(f"{family} has no parameter {unknown[0]!r}")
        norm: list[tuple[str, Any]] = []
        for p in fam.params:  # declaration order, defaults left out
            if p.name in given and given[p.name] is not None:
                value = _normalise(p, given[p.name])
                if value != p.default:
                    norm.append((p.name, value))
        if at is None:
            at = fam.at_default
        if at is not None:
            if fam.at is None:
                raise ValueError(f"{family} takes no @ cutoff")
            if fam.at_kind is int:
                if isinstance(at, bool) or not float(at).is_integer():
                    raise ValueError(f"{family}@{at}: the cutoff must be a whole number")
                at = int(at)
                if at <= 0:
                    raise ValueError(f"{family}@{at}: the cutoff must be positive")
                if at > MAX_CUTOFF:  # the kernels hold cutoffs in int64 arrays
                    raise ValueError(f"{family}@{at}: the cutoff is over {MAX_CUTOFF}")
            else:
                at = float(at)
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "at", at)
        object.__setattr__(self, "params", tuple(norm))
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "_text", self._render())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Measure is immutable")

    def _render(self) -> str:
        fam = FAMILIES[self.family]
        text = self.family
        if self.params:
            text += (
                "("
                + ",".join(f"{name}={_param_text(fam.param(name), v)}" for name, v in self.params)
                + ")"
            )
        if self.at is not None and self.at != fam.at_default:
            text += "@" + (_num_text(self.at) if fam.at_kind is int else repr(self.at))
        return text

    # -- ir_measures-style construction -------------------------------------------------
    def __matmul__(self, at: float) -> Measure:
        return Measure(self.family, at, dict(self.params))

    def __call__(self, **params: Any) -> Measure:
        merged = dict(self.params)
        merged.update(params)
        return Measure(self.family, self.at, merged)

    def __getitem__(self, name: str) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return self.info.param(name).default

    def with_label(self, label: str | None) -> Measure:
        return Measure(self.family, self.at, dict(self.params), label=label)

    # -- identity -----------------------------------------------------------------------
    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure):
            return other._text == self._text
        # ir_measures' measure objects: equal when their text names this measure (their
        # hash is that of the same text, so they find each other in dicts too)
        if type(other).__module__.split(".")[0] == "ir_measures":
            return repr(other) == self._text
        return False

    def __hash__(self) -> int:
        return hash(self._text)

    # -- description --------------------------------------------------------------------
    @property
    def info(self) -> Family:
        return FAMILIES[self.family]

    @property
    def name(self) -> str:
        """What output shows: the trec_eval label if any, else the canonical text."""
        return self.label or self._text

    @property
    def description(self) -> str:
        return self.info.description

    @property
    def aggregate(self) -> Aggregate:
        """How topics combine: 'mean', 'gmean', 'sum', 'count' or 'text'."""
        return self.info.aggregate

    @property
    def is_count(self) -> bool:
        """True for counts (summed over topics, shown as integers)."""
        return self.info.integer

    @property
    def cutoff(self) -> float | None:
        return self.at

    def check_complete(self) -> None:
        """Raise ValueError if the family needs an @ value this measure lacks (``P``)."""
        if self.at is None and self.info.at_required:
            what = "recall level" if self.info.at == "recall" else "cutoff"
            raise ValueError(
                f"{self.family} needs a {what}, e.g. {self.family}@10"
                if self.info.at_kind is int
                else f"{self.family} needs a {what}, e.g. {self.family}@0.5"
            )
