"""What a family module declares about each measure family it computes.

A family module (:mod:`judgeapp.measures.families`) holds one :class:`Registrations` list,
``REGISTRATIONS``, and adds each family to it by decorating the kernel that computes it::

    REGISTRATIONS = Registrations()

    @REGISTRATIONS.add(Family("RR", "..."), aliases=["MRR"], trec=[TrecSpec("recip_rank", 9)])
    def k_rr(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray: ...

A registration carries

- the :class:`~judgeapp.measures.family.Family`: description, aggregate, parameters and
  what ``@`` sets;
- the other names ir_measures spells it with (:class:`Alias`);
- the kernel;
- the trec_eval names that produce it (:class:`TrecSpec`): parameter style and defaults,
  place in trec_eval's output order, the nicknames (``official``, ``all_trec``, ``set``)
  that include it and the first trec_eval version that has it.

Nothing is registered anywhere by importing a family module: :mod:`judgeapp.measures.registry`
lists the modules and reads their lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeVar

from judgeapp.measures.batch import Kernel
from judgeapp.measures.family import Family

# how trec_eval reads a measure's parameters (meas_init.c): none; long or double cutoffs
# (one measure per cutoff, P.5,10 -> P_5 and P_10); a list of doubles (utility.1,-1,0,0);
# name=value pairs (ndcg.1=3,2=9, rbp.p=0.8)
TrecStyle = Literal["none", "long", "double", "dparams", "pairs"]
Nickname = Literal["official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg"]
NICKNAMES: tuple[Nickname, ...] = ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")

# trec_eval's common defaults for cutoff measures (P, recall, ndcg_cut, ...)
LONG_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


class Reading(NamedTuple):
    """The measure a trec_eval parameter list means (``utility.1,-1,0,0``): family, @ value
    and parameters, as :class:`~judgeapp.measures.measure.Measure` takes them."""

    family: str
    at: float | None = None
    params: Mapping[str, Any] = {}


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
    read: Callable[[list[float], str | None], Reading] | None = None
    since: int = 9  # first trec_eval version that has it
    nicknames: tuple[Nickname, ...] = ("all_trec",)
    family: str = ""  # filled in by the registry


@dataclass(frozen=True, slots=True)
class Alias:
    """Another name of a family; ``params`` are implied (ir_measures' SetRelP is
    SetP(relative=True))."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    family: str = ""  # filled in by the registry


@dataclass(frozen=True, slots=True)
class Registration:
    family: Family
    kernel: Kernel
    aliases: tuple[Alias, ...] = ()
    trec: tuple[TrecSpec, ...] = ()


K = TypeVar("K", bound=Callable[..., Any])


class Registrations:
    """The families one module declares, in the order declared."""

    def __init__(self) -> None:
        self._items: list[Registration] = []

    def add(
        self,
        family: Family,
        *,
        aliases: Iterable[str | Alias] = (),
        trec: Iterable[TrecSpec] = (),
    ) -> Callable[[K], K]:
        """Declare ``family``, computed by the decorated kernel, with its other names."""

        def decorate(kernel: K) -> K:
            names = tuple(a if isinstance(a, Alias) else Alias(a) for a in aliases)
            self._items.append(Registration(family, kernel, names, tuple(trec)))
            return kernel

        return decorate

    def __iter__(self) -> Iterator[Registration]:
        return iter(self._items)
