"""The measure registry: each measure family is registered once, with everything about it.

A registration (:func:`register`, a decorator on the kernel that computes the family; the
registrations are in :mod:`judgeapp.measures.kernels`) carries

- the :class:`~judgeapp.measures.measure.Family`: description, aggregate, parameters and
  what ``@`` sets;
- the other names ir_measures spells it with (:class:`Alias`);
- the kernel;
- the trec_eval names that produce it (:class:`TrecSpec`): parameter style and defaults,
  place in trec_eval's output order, the nicknames (``official``, ``all_trec``, ``set``)
  that include it and the first trec_eval version that has it.

``FAMILIES``, ``ALIASES``, ``KERNELS`` and ``TREC_NAMES`` are read-only views of the
registrations, :func:`trec_specs` lists the trec_eval names in output order and
:func:`nicknames` the names behind each nickname. Conflicting registrations (a name taken
twice, a trec_eval output place taken twice) fail at import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from judgeapp.measures.kernels import Kernel
    from judgeapp.measures.measure import Family, Measure

# how trec_eval reads a measure's parameters (meas_init.c): none; long or double cutoffs
# (one measure per cutoff, P.5,10 -> P_5 and P_10); a list of doubles (utility.1,-1,0,0);
# name=value pairs (ndcg.1=3,2=9, rbp.p=0.8)
TrecStyle = Literal["none", "long", "double", "dparams", "pairs"]
Nickname = Literal["official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg"]
NICKNAMES: tuple[Nickname, ...] = ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")

# trec_eval's common defaults for cutoff measures (P, recall, ndcg_cut, ...)
LONG_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


class RegistryError(ValueError):
    """Two registrations claim the same name or the same trec_eval output place."""


@dataclass(frozen=True, slots=True)
class TrecSpec:
    """One trec_eval name of a family (``map`` and ``map_cut`` are both AP)."""

    name: str
    # place in trec_eval 10.0's measure table (measures.c): trec_eval computes and prints
    # the measures in this order, whatever the order of -m
    order: int
    style: TrecStyle = "none"
    default: tuple[float, ...] = ()  # parameters when -m gives none
    params: Mapping[str, Any] = field(default_factory=dict)  # fixed (set_relative_P)
    # 'dparams' only: the measure the parameter list means (its raw text for messages)
    read: Callable[[list[float], str | None], Measure] | None = None
    since: int = 9  # first trec_eval version that has it
    nicknames: tuple[Nickname, ...] = ("all_trec",)
    family: str = ""  # filled in by register()


@dataclass(frozen=True, slots=True)
class Alias:
    """Another name of a family; ``params`` are implied (ir_measures' SetRelP is
    SetP(relative=True))."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    family: str = ""  # filled in by register()


@dataclass(frozen=True, slots=True)
class Registration:
    family: Family
    kernel: Kernel
    aliases: tuple[Alias, ...]
    trec: tuple[TrecSpec, ...]


_registrations: dict[str, Registration] = {}
_families: dict[str, Family] = {}
_aliases: dict[str, Alias] = {}
_kernels: dict[str, Kernel] = {}
_trec: dict[str, TrecSpec] = {}

REGISTRATIONS: Mapping[str, Registration] = MappingProxyType(_registrations)
FAMILIES: Mapping[str, Family] = MappingProxyType(_families)
ALIASES: Mapping[str, Alias] = MappingProxyType(_aliases)
KERNELS: Mapping[str, Kernel] = MappingProxyType(_kernels)
TREC_NAMES: Mapping[str, TrecSpec] = MappingProxyType(_trec)

K = TypeVar("K", bound=Callable[..., Any])


def register(
    family: Family,
    *,
    aliases: Iterable[str | Alias] = (),
    trec: Iterable[TrecSpec] = (),
) -> Callable[[K], K]:
    """Register ``family``, computed by the decorated kernel, with its other names."""

    def decorate(kernel: K) -> K:
        name = family.name
        alias_list = tuple(
            replace(a if isinstance(a, Alias) else Alias(a), family=name) for a in aliases
        )
        spec_list = tuple(replace(s, family=name) for s in trec)
        _check(name, alias_list, spec_list)
        _registrations[name] = Registration(family, kernel, alias_list, spec_list)
        _families[name] = family
        _kernels[name] = kernel
        _aliases.update((a.name, a) for a in alias_list)
        _trec.update((s.name, s) for s in spec_list)
        for cached in (trec_specs, nicknames, printed_prefixes):
            cached.cache_clear()
        return kernel

    return decorate


def _check(name: str, aliases: tuple[Alias, ...], specs: tuple[TrecSpec, ...]) -> None:
    if name in _families or name in _aliases:
        raise RegistryError(f"measure {name!r} is registered twice")
    for alias in aliases:
        if alias.name in _families or alias.name in _aliases or alias.name == name:
            raise RegistryError(f"alias {alias.name!r} of {name} is already a measure name")
    taken = {s.order: s.name for s in _trec.values()}
    for spec in specs:
        if spec.name in _trec:
            raise RegistryError(f"trec_eval name {spec.name!r} is registered twice")
        if spec.order in taken:
            raise RegistryError(
                f"trec_eval names {taken[spec.order]!r} and {spec.name!r} share output place "
                f"{spec.order}"
            )
        taken[spec.order] = spec.name
        if (spec.style == "dparams") != (spec.read is not None):
            raise RegistryError(f"{spec.name}: a reader goes with the 'dparams' style only")


# cached between registrations: parsing asks for them once per -m argument


@cache
def trec_specs() -> tuple[TrecSpec, ...]:
    """Every trec_eval name, in trec_eval's output order."""
    return tuple(sorted(_trec.values(), key=lambda s: s.order))


@cache
def nicknames() -> Mapping[str, tuple[str, ...]]:
    """trec_eval's nicknames and the names each stands for (in output order)."""
    specs = trec_specs()
    return MappingProxyType(
        {nick: tuple(s.name for s in specs if nick in s.nicknames) for nick in NICKNAMES}
    )


@cache
def printed_prefixes() -> tuple[TrecSpec, ...]:
    """The trec_eval names with parameters, longest first: the names trec_eval prints for
    them (``ndcg_cut_10``) begin with the name and an underscore."""
    return tuple(
        sorted((s for s in _trec.values() if s.style != "none"), key=lambda s: -len(s.name))
    )
