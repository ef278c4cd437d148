"""Turn measure text into :class:`Measure` objects. Both syntaxes are accepted:

- ir_measures: ``AP``, ``P@10``, ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``, ``IPrec@0.3``,
  ``SetF(beta=0.5)``, ``Judged@10`` (and every canonical text judgeapp prints); a family
  name with a prime is Sakai's condensed-list measure, the family with ``judged_only=True``
  (trec_eval -J for that measure alone): ``AP'``, ``nDCG'@10``, ``P'@10``, ``RR'``;
- trec_eval ``-m``: ``map``, ``P.5,10``, ``ndcg.1=3,2=9``, ``set_F.0.5``,
  ``iprec_at_recall..10,.20``, the nicknames ``official``, ``all_trec`` and ``set``, and the
  names trec_eval prints (``P_10``, ``ndcg_cut_20``).

trec_eval rules kept: measures from trec_eval syntax come out in trec_eval's own order
(the order of its measure table, whatever the order of ``-m``); the first parameters given
for a measure win; cutoffs are read with C ``atol``/``atof`` (``23.4`` is 23), sorted, and
must be positive and distinct. Measures in ir_measures syntax follow, in the order given.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from judgeapp.measures.family import Family, MeasureError
from judgeapp.measures.measure import Measure
from judgeapp.measures.registry import (
    ALIASES,
    FAMILIES,
    TREC_NAMES,
    nicknames,
    printed_prefixes,
    trec_specs,
)
from judgeapp.measures.spec import TrecSpec

_FLOAT_PREFIX = re.compile(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")
_INT_PREFIX = re.compile(r"\s*[+-]?\d+")


def c_atof(text: str) -> float:
    """C atof: the longest numeric prefix, 0.0 when there is none."""
    match = _FLOAT_PREFIX.match(text)
    return float(match.group(0)) if match else 0.0


def c_atol(text: str) -> int:
    match = _INT_PREFIX.match(text)
    return int(match.group(0)) if match else 0


def _valid_int(text: str) -> bool:
    """gain_init.c valid_int: optional sign, then digits only."""
    return re.fullmatch(r"[+-]?\d+", text) is not None


# -- trec_eval syntax ---------------------------------------------------------------------
# The trec_eval names, their parameter styles, defaults and output order are registered
# with the measures (judgeapp.measures.registry); what follows is how -m text is read.

# trec_eval names judgeapp does not compute (none left: the preference and judgment-group
# measures read -R prefs, qrels_prefs and qrels_jg judgments)
UNSUPPORTED: frozenset[str] = frozenset()


def _spec_params(spec: TrecSpec, raw: str) -> list[Any]:
    """Parse a trec_eval parameter string as meas_init.c does for the spec's style."""
    parts = raw.split(",")
    if spec.style == "long":
        cutoffs = sorted(c_atol(p) for p in parts)
        if cutoffs[0] <= 0:
            raise MeasureError(f"{spec.name}.{raw}: cutoffs must be positive")
        if len(set(cutoffs)) != len(cutoffs):
            raise MeasureError(f"{spec.name}.{raw}: duplicate cutoffs")
        return cutoffs
    if spec.style == "double":
        levels = sorted(c_atof(p) for p in parts)
        if len(set(levels)) != len(levels):
            raise MeasureError(f"{spec.name}.{raw}: duplicate cutoffs")
        return levels
    if spec.style == "dparams":
        return [c_atof(p) for p in parts]
    if spec.style == "pairs":
        pairs = []
        for p in parts:
            name, sep, value = p.partition("=")
            if not sep or not name or "=" in value:
                raise MeasureError(f"{spec.name}.{raw}: parameters must be name=value pairs")
            pairs.append((name, c_atof(value)))
        return pairs
    return []


def _gains(pairs: list[tuple[str, float]]) -> dict[int, float] | None:
    gains = {int(name): value for name, value in pairs if _valid_int(name)}
    return gains or None


def _pair_params(family: Family, pairs: list[tuple[str, float]]) -> dict[str, Any]:
    """name=value pairs: integer names give per-grade gains (gain_init.c), ``p`` the
    persistence of rbp and rbp_resid (the last one given)."""
    names = {p.name for p in family.params}
    params: dict[str, Any] = {}
    if "p" in names:
        for name, value in pairs:
            if name == "p":
                params["p"] = value
    if "gains" in names:
        params["gains"] = _gains(pairs)
    return params


def _spec_measures(spec: TrecSpec, values: list[Any], raw: str | None) -> list[Measure]:
    """The measures a trec_eval name stands for, each labelled as trec_eval prints it."""
    if spec.style in ("long", "double"):  # one measure per cutoff: P_5, iprec_at_recall_0.10
        fmt = "d" if spec.style == "long" else "3.2f"
        return [
            Measure(spec.family, v, spec.params, label=f"{spec.name}_{v:{fmt}}") for v in values
        ]
    label = spec.name if raw is None else f"{spec.name}_{raw}"
    if spec.style == "dparams":
        assert spec.read is not None  # the registry requires one
        family, at, read_params = spec.read(values, raw)
        return [Measure(family, at, read_params, label=label)]
    params = dict(spec.params)
    if spec.style == "pairs":
        params.update(_pair_params(FAMILIES[spec.family], values))
    return [Measure(spec.family, params=params, label=label)]


# m_ndcg.c gives dcg, ideal_dcg and ndcg one parameter block. Each takes its printed name
# from the block as it stands when that measure is initialised (table order), but all three
# compute with what the block holds at the end: the parameters read last.
SHARED_PARAMS = ("dcg", "ideal_dcg", "ndcg")


def _trec_measures(marked: set[str], args: list[tuple[str, str]], version: int) -> list[Measure]:
    def first_params(name: str) -> str | None:
        return next((r for n, r in args if n == name), None)

    final_shared = None
    for name in SHARED_PARAMS:
        if name in marked and first_params(name) is not None:
            final_shared = first_params(name)
    out: list[Measure] = []
    shared_label: str | None = None
    for spec in trec_specs():
        if spec.name not in marked:
            continue
        raw = first_params(spec.name)
        computed_with = raw
        if spec.name in SHARED_PARAMS:
            shared_label = raw if raw is not None else shared_label
            raw, computed_with = shared_label, final_shared
        if computed_with is None or spec.style == "none":
            values: list[Any] = list(spec.default)
        else:
            values = _spec_params(spec, computed_with)
        if spec.style == "none":
            raw = None
        out.extend(_spec_measures(spec, values, raw))
    return out


def _trec_split(arg: str) -> tuple[str, str | None] | None:
    """(name, params) if ``arg`` is trec_eval syntax (``P.5,10``, ``P_10``), else None."""
    name, dot, raw = arg.partition(".")
    if name in TREC_NAMES or name in nicknames() or name in UNSUPPORTED:
        return name, (raw if dot else None)
    # the names trec_eval prints: P_10, ndcg_cut_20, iprec_at_recall_0.10, set_F_0.5
    for spec in printed_prefixes():
        if arg.startswith(spec.name + "_"):
            return spec.name, arg[len(spec.name) + 1 :]
    return None


# -- ir_measures syntax -------------------------------------------------------------------

# a name may end in a prime: Sakai's condensed-list measures (AP', nDCG'@10, P'@10)
_IR = re.compile(r"^\s*([A-Za-z0-9_]+'?)\s*(?:\((.*)\))?\s*(?:@\s*([^\s]+))?\s*$", re.S)


def _ir_params(name: str, inner: str) -> dict[str, object]:
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError as exc:
        raise MeasureError(f"{name}: cannot read parameters ({inner})") from exc
    if not isinstance(call, ast.Call) or call.args:
        raise MeasureError(f"{name}: parameters must be name=value ({inner})")
    params: dict[str, object] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise MeasureError(f"{name}: parameters must be name=value ({inner})")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except ValueError as exc:
            raise MeasureError(f"{name}: {kw.arg} must be a literal value") from exc
    return params


def parse_measure(text: str) -> Measure:
    """One measure in ir_measures syntax (``P(rel=2)@5``) or as trec_eval prints it
    (``P_5``, ``ndcg_cut_10``). Raises MeasureError."""
    measures = parse_measures([text])
    if len(measures) != 1:
        raise MeasureError(f"{text!r} names {len(measures)} measures, not one")
    return measures[0]


def _parse_ir(text: str) -> Measure:
    match = _IR.match(text)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}")
    name, inner, at_text = match.groups()
    params = _ir_params(name, inner) if inner is not None and inner.strip() else {}
    alias = ALIASES.get(name)
    primed = name.endswith("'")
    if primed:
        # Sakai's condensed-list measures (AP', nDCG'@10, P'@10): the family over the
        # judged documents alone, which is trec_eval -J for this measure only
        name = name[:-1]
        if name not in FAMILIES or "judged_only" not in {p.name for p in FAMILIES[name].params}:
            raise MeasureError(f"unknown measure {name}' (a prime follows a measure family)")
        if params.get("judged_only", True) is not True:
            raise MeasureError(f"{name}': a condensed measure has judged_only=True")
        params["judged_only"] = True
    if name in FAMILIES:
        family = name
    elif alias is not None:
        family = alias.family
        for key, value in alias.params.items():
            params.setdefault(key, value)
    else:
        raise MeasureError(f"unknown measure {name!r}")
    if family == "NumRet" and "rel" in params:
        family = "NumRelRet"  # ir_measures: NumRet(rel=1) is the number of relevant retrieved
    at: float | None = None
    if at_text is not None:
        try:
            at = float(at_text)
        except ValueError as exc:
            raise MeasureError(f"{text}: bad value after @: {at_text!r}") from exc
    try:
        measure = Measure(family, at, params)
        measure.check_complete()
    except ValueError as exc:
        raise MeasureError(str(exc)) from exc
    if primed and len(measure.params) == 1:
        # printed as asked for (AP'), not as its canonical text (AP(judged_only=True))
        cutoff = str(measure).partition("@")[2]
        measure = measure.with_label(f"{name}'" + (f"@{cutoff}" if cutoff else ""))
    return measure


def parse_measures(args: Iterable[str], version: int = 10) -> list[Measure]:
    """Measures named by ``-m`` arguments, in output order (see the module docstring)."""
    marked: set[str] = set()
    trec_args: list[tuple[str, str]] = []
    ir: list[Measure] = []
    for arg in args:
        text = arg.strip()
        split = None if ("(" in text or "@" in text) else _trec_split(text)
        if split is None:
            ir.append(_parse_ir(text))
            continue
        name, raw = split
        if name in UNSUPPORTED:
            raise MeasureError(
                f"measure {name!r} needs trec_eval's preference or judgment-group input "
                "formats, which judgeapp does not read"
            )
        if raw is not None:
            if raw == "":
                raise MeasureError(f"improper measure in parameter {name!r} (empty parameters)")
            trec_args.append((name, raw))
        nicks = nicknames()
        for n in nicks.get(name, (name,)):
            if TREC_NAMES[n].since > version:
                if name in nicks:
                    continue  # 9.x's all_trec simply lacks it
                raise MeasureError(f"illegal measure {n!r} (not in trec_eval {version}.x)")
            marked.add(n)
    try:
        out = _trec_measures(marked, trec_args, version)
    except ValueError as exc:
        raise MeasureError(str(exc)) from exc
    seen: set[Measure] = set()
    result = []
    for m in out + ir:
        if m not in seen:
            seen.add(m)
            result.append(m)
    return result
