"""Turn measure text into :class:`Measure` objects. Both syntaxes are accepted:

- ir_measures: ``AP``, ``P@10``, ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``, ``IPrec@0.3``,
  ``SetF(beta=0.5)``, ``Judged@10`` (and every canonical text judgeapp prints);
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from judgeapp.measures.measure import ALIASES, ELEVEN_LEVELS, FAMILIES, Measure, MeasureError

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


@dataclass(frozen=True, slots=True)
class TrecSpec:
    name: str
    style: str  # none | long | double | dparams | pairs
    default: tuple = ()
    make: Callable[[TrecSpec, list, str | None], list[Measure]] | None = None
    since: int = 9  # first trec_eval version that has it


def _plain(family: str, **params: object) -> Callable:
    def make(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
        return [Measure(family, params=params, label=spec.name)]

    return make


def _cut(family: str, fmt: str) -> Callable:
    def make(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
        return [Measure(family, v, label=f"{spec.name}_{v:{fmt}}") for v in values]

    return make


def _label(spec: TrecSpec, raw: str | None) -> str:
    return spec.name if raw is None else f"{spec.name}_{raw}"


def _make_relstring(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
    return [Measure("relstring", max(int(values[0]), 0) or 0, label=_label(spec, raw))]


def _make_utility(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
    if len(values) != 4:
        raise MeasureError(f"utility needs 4 coefficients, got {len(values)} in {raw!r}")
    return [Measure("utility", params={"coeffs": tuple(values)}, label=_label(spec, raw))]


def _make_11pt(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
    return [Measure("11pt_avg", params={"levels": tuple(values)}, label=_label(spec, raw))]


def _make_set_f(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
    return [Measure("SetF", params={"beta": values[0]}, label=_label(spec, raw))]


def _gains(pairs: list) -> dict[int, float] | None:
    gains = {int(name): value for name, value in pairs if _valid_int(name)}
    return gains or None


def _make_gains(family: str, **extra: object) -> Callable:
    def make(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
        return [Measure(family, params={"gains": _gains(values), **extra}, label=_label(spec, raw))]

    return make


def _make_rbp(family: str) -> Callable:
    def make(spec: TrecSpec, values: list, raw: str | None) -> list[Measure]:
        params: dict[str, object] = {}
        for name, value in values:
            if name == "p":
                params["p"] = value
        if family == "rbp":
            params["gains"] = _gains(values)
        return [Measure(family, params=params, label=_label(spec, raw))]

    return make


_LONG = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# trec_eval 10.0 measures.c, in its order (the order measures are printed in)
TREC_SPECS: tuple[TrecSpec, ...] = (
    TrecSpec("runid", "none", make=_plain("runid")),
    TrecSpec("num_q", "none", make=_plain("NumQ")),
    TrecSpec("num_ret", "none", make=_plain("NumRet")),
    TrecSpec("num_rel", "none", make=_plain("NumRel")),
    TrecSpec("num_rel_ret", "none", make=_plain("NumRelRet")),
    TrecSpec("map", "none", make=_plain("AP")),
    TrecSpec("gm_map", "none", make=_plain("gm_map")),
    TrecSpec("Rprec", "none", make=_plain("Rprec")),
    TrecSpec("bpref", "none", make=_plain("Bpref")),
    TrecSpec("recip_rank", "none", make=_plain("RR")),
    TrecSpec("iprec_at_recall", "double", ELEVEN_LEVELS, _cut("IPrec", "3.2f")),
    TrecSpec("P", "long", _LONG, _cut("P", "d")),
    TrecSpec("relstring", "dparams", (10.0,), _make_relstring),
    TrecSpec("recall", "long", _LONG, _cut("R", "d")),
    TrecSpec("infAP", "none", make=_plain("infAP")),
    TrecSpec("gm_bpref", "none", make=_plain("gm_bpref")),
    TrecSpec(
        "Rprec_mult",
        "double",
        (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        _cut("Rprec_mult", "3.2f"),
    ),
    TrecSpec("utility", "dparams", (1.0, -1.0, 0.0, 0.0), _make_utility),
    TrecSpec("11pt_avg", "dparams", ELEVEN_LEVELS, _make_11pt),
    TrecSpec("binG", "none", make=_plain("binG")),
    TrecSpec("G", "pairs", make=_make_gains("G")),
    TrecSpec("dcg", "pairs", make=_make_gains("DCG"), since=10),
    TrecSpec("ideal_dcg", "pairs", make=_make_gains("ideal_dcg"), since=10),
    TrecSpec("ndcg", "pairs", make=_make_gains("nDCG")),
    TrecSpec("ndcg_rel", "pairs", make=_make_gains("ndcg_rel")),
    TrecSpec("Rndcg", "pairs", make=_make_gains("Rndcg")),
    TrecSpec("ndcg_cut", "long", _LONG, _cut("nDCG", "d")),
    TrecSpec("map_cut", "long", _LONG, _cut("AP", "d")),
    TrecSpec("relative_P", "long", _LONG, _cut("relative_P", "d")),
    TrecSpec("success", "long", (1, 5, 10), _cut("Success", "d")),
    TrecSpec("set_P", "none", make=_plain("SetP")),
    TrecSpec("set_relative_P", "none", make=_plain("SetP", relative=True)),
    TrecSpec("set_recall", "none", make=_plain("SetR")),
    TrecSpec("set_map", "none", make=_plain("SetAP")),
    TrecSpec("set_F", "dparams", (1.0,), _make_set_f),
    TrecSpec("num_nonrel_judged_ret", "none", make=_plain("num_nonrel_judged_ret")),
    TrecSpec("rbp", "pairs", make=_make_rbp("rbp"), since=10),
    TrecSpec("rbp_resid", "pairs", make=_make_rbp("rbp_resid"), since=10),
    TrecSpec("unj", "long", (5, 10, 20), _cut("unj", "d"), since=10),
)
_SPEC = {s.name: s for s in TREC_SPECS}

_OFFICIAL = tuple(
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P".split()
)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    # measures.c trec_names; the order does not matter (output follows TREC_SPECS)
    "all_trec": _OFFICIAL
    + tuple(
        "relstring recall unj rbp rbp_resid infAP gm_bpref utility 11pt_avg ndcg relative_P "
        "Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P set_recall "
        "set_relative_P set_map set_F num_nonrel_judged_ret".split()
    ),
    "set": tuple(
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
        "set_map set_F".split()
    ),
}
# trec_eval measures judgeapp leaves out (other input formats, or not in all_trec)
UNSUPPORTED = {
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "yaap",
    "all_prefs",
    "prefs",
    "qrels_jg",
}


def _spec_params(spec: TrecSpec, raw: str) -> list:
    """Parse a trec_eval parameter string as meas_init.c does for the spec's style."""
    parts = raw.split(",")
    if spec.style == "long":
        values = sorted(c_atol(p) for p in parts)
        if values[0] <= 0:
            raise MeasureError(f"{spec.name}.{raw}: cutoffs must be positive")
        if len(set(values)) != len(values):
            raise MeasureError(f"{spec.name}.{raw}: duplicate cutoffs")
        return values
    if spec.style == "double":
        values = sorted(c_atof(p) for p in parts)
        if len(set(values)) != len(values):
            raise MeasureError(f"{spec.name}.{raw}: duplicate cutoffs")
        return values
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
    for spec in TREC_SPECS:
        if spec.name not in marked:
            continue
        raw = first_params(spec.name)
        computed_with = raw
        if spec.name in SHARED_PARAMS:
            shared_label = raw if raw is not None else shared_label
            raw, computed_with = shared_label, final_shared
        values = list(spec.default) if computed_with is None or spec.style == "none" else None
        if values is None:
            values = _spec_params(spec, computed_with)
        if spec.style == "none":
            raw = None
        out.extend(spec.make(spec, values, raw))
    return out


def _trec_split(arg: str) -> tuple[str, str | None] | None:
    """(name, params) if ``arg`` is trec_eval syntax (``P.5,10``, ``P_10``), else None."""
    name, dot, raw = arg.partition(".")
    if name in _SPEC or name in NICKNAMES or name in UNSUPPORTED:
        return name, (raw if dot else None)
    # the names trec_eval prints: P_10, ndcg_cut_20, iprec_at_recall_0.10, set_F_0.5
    for spec in sorted(TREC_SPECS, key=lambda s: -len(s.name)):
        if spec.style != "none" and arg.startswith(spec.name + "_"):
            return spec.name, arg[len(spec.name) + 1 :]
    return None


# -- ir_measures syntax -------------------------------------------------------------------

_IR = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(?:\((.*)\))?\s*(?:@\s*([^\s]+))?\s*$", re.S)


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
    family = name if name in FAMILIES else ALIASES.get(name)
    if family is None:
        raise MeasureError(f"unknown measure {name!r}")
    if name == "SetRelP":
        params.setdefault("relative", True)
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
        names = NICKNAMES.get(name, (name,))
        for n in names:
            if _SPEC[n].since > version:
                if name in NICKNAMES:
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
