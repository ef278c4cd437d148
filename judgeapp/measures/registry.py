"""The measure registry: every family module, listed here, and what they declare.

Each module of :mod:`judgeapp.measures.families` declares its families with their kernels
and names (:mod:`judgeapp.measures.spec`); :data:`FAMILY_MODULES` lists the modules, and
:func:`build` checks and indexes their declarations once, here. A new family is a kernel
declared in one of these modules (or a new module added to the list).

``FAMILIES``, ``ALIASES``, ``KERNELS`` and ``TREC_NAMES`` are read-only views of the
registrations, :func:`trec_specs` lists the trec_eval names in output order and
:func:`nicknames` the names behind each nickname. Conflicting registrations (a name taken
twice, a trec_eval output place taken twice) fail at import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from types import MappingProxyType, ModuleType

from judgeapp.measures.batch import Kernel
from judgeapp.measures.families import (
    ap,
    beyond_trec,
    bpref,
    counts,
    diversity,
    gain,
    precision,
    prefs,
    rbp,
    rr,
    sets,
)
from judgeapp.measures.family import Family
from judgeapp.measures.spec import NICKNAMES, Alias, Registration, TrecSpec

# in this order: the order of FAMILIES
FAMILY_MODULES: tuple[ModuleType, ...] = (
    counts,  # runid, relstring, num_*, unj, Judged
    ap,  # AP, gm_map, IPrec, 11pt_avg, AP_11pt
    precision,  # P, R, relative_P, Success, Rprec, Rprec_mult
    bpref,  # Bpref, gm_bpref, infAP
    rr,  # RR
    gain,  # nDCG, DCG, ideal_dcg, ndcg_rel, Rndcg, G, binG
    sets,  # SetP, SetR, SetAP, SetF, F, Fallout, Acc, utility
    rbp,  # rbp, rbp_resid, RBP
    beyond_trec,  # ERR, C/W/L measures, Compat, Accuracy, Hits
    diversity,  # alpha-nDCG, ERR-IA, NRBP, ...
    prefs,  # prefs_*, *_avgjg, yaap
)


class RegistryError(ValueError):
    """Two registrations claim the same name or the same trec_eval output place."""


@dataclass(frozen=True, slots=True)
class Registry:
    """Every registration, indexed by family, alias and trec_eval name."""

    registrations: Mapping[str, Registration]
    families: Mapping[str, Family]
    aliases: Mapping[str, Alias]
    kernels: Mapping[str, Kernel]
    trec: Mapping[str, TrecSpec]


def build(declared: Iterable[Registration]) -> Registry:
    """Index registrations, with each alias and trec_eval name told its family; raise
    :class:`RegistryError` on the first conflict."""
    registrations: dict[str, Registration] = {}
    aliases: dict[str, Alias] = {}
    trec: dict[str, TrecSpec] = {}
    for reg in declared:
        name = reg.family.name
        alias_list = tuple(replace(a, family=name) for a in reg.aliases)
        spec_list = tuple(replace(s, family=name) for s in reg.trec)
        _check(name, alias_list, spec_list, registrations, aliases, trec)
        registrations[name] = replace(reg, aliases=alias_list, trec=spec_list)
        aliases.update((a.name, a) for a in alias_list)
        trec.update((s.name, s) for s in spec_list)
    return Registry(
        MappingProxyType(registrations),
        MappingProxyType({n: r.family for n, r in registrations.items()}),
        MappingProxyType(aliases),
        MappingProxyType({n: r.kernel for n, r in registrations.items()}),
        MappingProxyType(trec),
    )


def _check(
    name: str,
    aliases: tuple[Alias, ...],
    specs: tuple[TrecSpec, ...],
    families: Mapping[str, Registration],
    known_aliases: Mapping[str, Alias],
    known_trec: Mapping[str, TrecSpec],
) -> None:
    if name in families or name in known_aliases:
        raise RegistryError(f"measure {name!r} is registered twice")
    for alias in aliases:
        if alias.name in families or alias.name in known_aliases or alias.name == name:
            raise RegistryError(f"alias {alias.name!r} of {name} is already a measure name")
    taken = {s.order: s.name for s in known_trec.values()}
    for spec in specs:
        if spec.name in known_trec:
            raise RegistryError(f"trec_eval name {spec.name!r} is registered twice")
        if spec.order in taken:
            raise RegistryError(
                f"trec_eval names {taken[spec.order]!r} and {spec.name!r} share output place "
                f"{spec.order}"
            )
        taken[spec.order] = spec.name
        if (spec.style == "dparams") != (spec.read is not None):
            raise RegistryError(f"{spec.name}: a reader goes with the 'dparams' style only")


REGISTRY = build(reg for module in FAMILY_MODULES for reg in module.REGISTRATIONS)
REGISTRATIONS: Mapping[str, Registration] = REGISTRY.registrations
FAMILIES: Mapping[str, Family] = REGISTRY.families
ALIASES: Mapping[str, Alias] = REGISTRY.aliases
KERNELS: Mapping[str, Kernel] = REGISTRY.kernels
TREC_NAMES: Mapping[str, TrecSpec] = REGISTRY.trec


@cache
def trec_specs() -> tuple[TrecSpec, ...]:
    """Every trec_eval name, in trec_eval's output order."""
    return tuple(sorted(TREC_NAMES.values(), key=lambda s: s.order))


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
        sorted((s for s in TREC_NAMES.values() if s.style != "none"), key=lambda s: -len(s.name))
    )
