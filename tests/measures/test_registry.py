"""The measure registry: every registered name parses, round-trips, evaluates and prints.

Walks every family, alias, trec_eval name (with its printed names and a parameterised form)
and nickname the registry holds. On a small case built here each must parse, come back
equal from its canonical text (and from its trec_eval label), evaluate to finite values and
print through the trec_eval formatter. On trec_eval's own test files (../shared/data), each
trec_eval name alone, each -m argument of trec_eval's meas_params test alone, and each
family and alias that equals a trec_eval measure must print what trec_eval printed.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

from judgeapp.measures import (
    EvalOptions,
    Evaluator,
    Judgments,
    Measure,
    Results,
    Run,
    Vocabulary,
    families,
    format_results,
    format_trec,
    parse_measure,
    parse_measures,
)
from judgeapp.measures.family import Family
from judgeapp.measures.parse import SHARED_PARAMS, UNSUPPORTED
from judgeapp.measures.registry import (
    ALIASES,
    FAMILIES,
    FAMILY_MODULES,
    KERNELS,
    REGISTRATIONS,
    TREC_NAMES,
    RegistryError,
    build,
    trec_specs,
)
from judgeapp.measures.spec import NICKNAMES, Alias, Registration, TrecSpec

# -- the names to walk ---------------------------------------------------------------------


def _required_at(family: Family) -> float | None:
    """For a family that needs an @ value: a cutoff its trec_eval name computes by default
    (P: 5, success: 1, Rprec_mult: 0.2), so the example is a trec_eval measure too; else 5
    (or the recall level 0.5)."""
    if not family.at_required:
        return None
    for spec in REGISTRATIONS[family.name].trec:
        if spec.style in ("long", "double"):
            return spec.default[0]
    return 5 if family.at_kind is int else 0.5


def _family_examples(name: str) -> list[str]:
    family = FAMILIES[name]
    texts = [str(Measure(name, _required_at(family)))]
    if family.at == "cutoff" and not family.at_required and family.at_default is None:
        texts.append(str(Measure(name, 5)))  # AP@5, nDCG@5, RR@5, ...
    return texts


def _alias_example(alias: str) -> str:
    at = _required_at(FAMILIES[ALIASES[alias].family])
    return alias if at is None else f"{alias}@{at:g}"


def _parameterised(spec: TrecSpec) -> str:
    """The trec_eval name with explicit parameters (``P.5,10``, ``ndcg.1=3,2=9``)."""
    if spec.style in ("long", "double", "dparams"):
        values = spec.default if spec.style == "dparams" else spec.default[:2]
        return f"{spec.name}." + ",".join(f"{v:g}" for v in values)
    if spec.style == "pairs":
        params = {p.name for p in FAMILIES[spec.family].params}
        pairs = (["1=3", "2=9"] if "gains" in params else []) + (["p=0.8"] if "p" in params else [])
        return f"{spec.name}." + ",".join(pairs)
    return spec.name


def _printed_names(spec: TrecSpec) -> list[str]:
    """The names trec_eval prints for a cutoff measure's defaults (P_5, ..., P_1000)."""
    if spec.style not in ("long", "double"):
        return []
    return [m.label or "" for m in parse_measures([spec.name])]


WALK: list[str] = sorted(
    {text for name in FAMILIES for text in _family_examples(name)}
    | {_alias_example(alias) for alias in ALIASES}
    | {spec.name for spec in trec_specs()}
    | {_parameterised(spec) for spec in trec_specs()}
    | {label for spec in trec_specs() for label in _printed_names(spec)}
    | set(NICKNAMES)
)


# -- the registry is consistent ------------------------------------------------------------


def test_every_family_has_one_kernel_and_every_kernel_is_registered():
    assert set(FAMILIES) == set(KERNELS) == set(REGISTRATIONS)
    assert all(callable(k) for k in KERNELS.values())
    defined = {
        f"{module.__name__}.{name}": fn
        for module in FAMILY_MODULES
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if name.startswith("k_") and fn.__module__ == module.__name__
    }
    registered = set(KERNELS.values())
    unregistered = sorted(name for name, fn in defined.items() if fn not in registered)
    assert not unregistered, f"kernels without a registered family: {unregistered}"


def test_the_registry_lists_every_family_module():
    """A family module left out of registry.FAMILY_MODULES would register nothing, silently
    (importing a family module registers nothing by design)."""
    package = Path(families.__file__).parent
    on_disk = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    assert on_disk == {m.__name__.rsplit(".", 1)[1] for m in FAMILY_MODULES}
    assert all(len(list(m.REGISTRATIONS)) > 0 for m in FAMILY_MODULES)


def test_names_resolve_and_do_not_collide():
    for alias in ALIASES.values():
        assert alias.family in FAMILIES and alias.name not in FAMILIES
        assert set(alias.params) <= {p.name for p in FAMILIES[alias.family].params}
    orders = [s.order for s in trec_specs()]
    assert len(set(orders)) == len(orders) == len(TREC_NAMES)
    for spec in trec_specs():
        assert spec.family in FAMILIES, spec.name
        assert set(spec.nicknames) <= set(NICKNAMES)
        assert (spec.style == "dparams") == (spec.read is not None), spec.name
        if spec.style == "long":
            assert spec.default and all(int(v) == v > 0 for v in spec.default), spec.name
    assert set(SHARED_PARAMS) <= set(TREC_NAMES)
    assert not UNSUPPORTED & (set(TREC_NAMES) | set(FAMILIES) | set(ALIASES))


def test_conflicting_registrations_fail_and_leave_the_registry_unchanged():
    before = (dict(FAMILIES), dict(ALIASES), dict(TREC_NAMES))

    def kernel(v, ms, ctx):
        return np.zeros((len(ms), v.n_rows))

    def with_extra(family: Family, **names) -> None:
        build([*REGISTRATIONS.values(), Registration(family, kernel, **names)])

    with_extra(Family("AP1", "a new name"), aliases=(Alias("MAP1"),), trec=(TrecSpec("ap1", 99),))
    with pytest.raises(RegistryError, match="registered twice"):
        with_extra(Family("AP", "again"))
    with pytest.raises(RegistryError, match="already a measure name"):
        with_extra(Family("AP2", "an alias taken"), aliases=(Alias("MAP"),))
    with pytest.raises(RegistryError, match="share output place"):
        with_extra(Family("AP3", "a place taken"), trec=(TrecSpec("map3", 5),))
    with pytest.raises(RegistryError, match="registered twice"):
        with_extra(Family("AP4", "a trec name taken"), trec=(TrecSpec("map", 99),))
    with pytest.raises(RegistryError, match="dparams"):
        with_extra(Family("AP5", "no reader"), trec=(TrecSpec("ap5", 99, "dparams", (1.0,)),))
    assert (dict(FAMILIES), dict(ALIASES), dict(TREC_NAMES)) == before


def test_the_walk_covers_every_registered_name():
    assert set(FAMILIES) <= {m.family for t in WALK for m in parse_measures([t])}
    assert {s.name for s in trec_specs()} <= set(WALK)
    assert {a for a in ALIASES} <= {t.split("@")[0] for t in WALK}


# -- every name on a small case ------------------------------------------------------------

# topic 1: grades 0-3, a pooled but unjudged document (-1), documents no judgment names,
# a relevant one never retrieved; topic 2: nothing relevant; topic 3: short lists
SMALL_QRELS = {
    "1": ([0, 1, 2, 3, 4, 5, 7, 20, 21], [2, 0, 1, -1, 3, 0, 1, 1, 0]),
    "2": ([0, 1, 2], [0, 0, -1]),
    "3": ([5, 6, 30], [1, 2, 1]),
}
SMALL_RUNS = {
    "a": {"1": list(range(10)), "2": [2, 0, 5], "3": [6, 7, 5, 1]},
    "b": {"1": [9, 7, 4, 3, 2, 1, 0], "2": [1], "3": [30, 9, 6]},
}


def _small_results(measures: list[Measure]) -> Results:
    runs = [
        Run.from_arrays(name, {q: np.array(ids) for q, ids in topics.items()})
        for name, topics in SMALL_RUNS.items()
    ]
    evaluator = Evaluator(
        Judgments.from_arrays(SMALL_QRELS), runs, measures, EvalOptions(num_docs=1000)
    )
    return evaluator.evaluate()


@pytest.mark.parametrize("text", WALK)
def test_every_name_parses_round_trips_evaluates_and_prints(text):
    measures = parse_measures([text])
    assert measures
    for m in measures:
        assert parse_measure(str(m)) == m
        if m.label is not None:
            assert parse_measure(m.label) == m
    results = _small_results(measures)
    assert results.measures == tuple(measures)
    summary = results.summary()
    lines = format_trec(results, per_topic=True).splitlines()
    expected_lines = 0
    for i, m in enumerate(measures):
        info = m.info
        topics = np.flatnonzero(results.evaluated[0])
        if m.aggregate == "text":
            if m.family == "relstring":
                for r, run in enumerate(SMALL_RUNS.values()):
                    for t in topics:
                        relstring = results.texts[i][r][t]
                        assert len(relstring) == min(m.at, len(run[results.qids[t]]))
                        assert set(relstring) <= set("0123456789-.<>")
        else:
            values = results.values[i][results.evaluated]
            assert np.isfinite(values).all(), m
            assert np.isfinite(summary[i]).all(), m
        per_topic = len(topics) if info.per_topic else 0
        expected_lines += len(SMALL_RUNS) * (per_topic + (m.family != "relstring"))
    assert len(lines) == expected_lines
    per_run = expected_lines // len(SMALL_RUNS)  # format_trec prints one run after another
    for k, line in enumerate(lines):
        r = k // per_run
        name, qid, value = line.split("\t")
        i = next(i for i, m in enumerate(measures) if m.name == name.rstrip())
        m = measures[i]
        assert name == f"{m.name:<22}"
        if m.family == "runid":
            assert (qid, value) == ("all", results.runids[r])
        elif m.family == "relstring":
            assert value == f"'{results.texts[i][r][results.qids.index(qid)]}'"
        else:
            number = (
                summary[i, r] if qid == "all" else results.values[i, r, results.qids.index(qid)]
            )
            if m.info.integer:
                assert value == str(int(number))
            else:
                assert len(value.split(".")[1]) == 4 and abs(float(value) - number) <= 5e-5
    data = json.loads(format_results(results, "json", per_topic=True))
    numeric = {m.name for m in measures if m.aggregate != "text"}
    assert all(set(run["summary"]) == numeric for run in data["runs"])


# -- against trec_eval's own output --------------------------------------------------------


def _trec_eval_output(path: Path) -> dict[str, list[str]]:
    """Lines of a trec_eval output file by measure name, in file order."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        out.setdefault(line.split("\t")[0].rstrip(), []).append(line)
    return out


@pytest.fixture(scope="module")
def trec_case(shared_data):
    folder = shared_data / "trec_eval-10.0" / "test"
    vocab = Vocabulary()
    judgments = Judgments.from_file(folder / "qrels.test", vocab)
    run = Run.from_file(folder / "results.test", vocab, name="results.test")
    return folder, judgments, run


def _trec_lines(trec_case, measures: list[Measure]) -> list[str]:
    _, judgments, run = trec_case
    results = Evaluator(judgments, [run], measures, EvalOptions()).evaluate()
    return format_trec(results, per_topic=True).splitlines()


IN_ALL_TREC = [s.name for s in trec_specs() if "all_trec" in s.nicknames]


# the nicknames of the preference and judgment-group measures print other files' lines
# (out.test.prefs, out.test.qrels_jg: tests/measures/test_trec_eval_formats.py)
QRELS_NICKNAMES = [n for n in NICKNAMES if n not in ("all_prefs", "prefs", "qrels_jg")]


@pytest.mark.parametrize("name", IN_ALL_TREC + QRELS_NICKNAMES)
def test_each_trec_name_alone_prints_what_trec_eval_printed(trec_case, name):
    """One trec_eval name (or nickname) at a time prints its lines of trec_eval's
    ``-m all_trec -q`` output."""
    folder = trec_case[0]
    measures = parse_measures([name])
    expected = _trec_eval_output(folder / "out.test.aq")
    labels = {m.name for m in measures}
    assert labels <= set(expected)
    wanted = [
        line
        for line in (folder / "out.test.aq").read_text().splitlines()
        if line.split("\t")[0].rstrip() in labels
    ]
    assert _trec_lines(trec_case, measures) == wanted


# the -m arguments of trec_eval's meas_params test (test_trec_eval_suite.MEAS_PARAMS)
MEAS_PARAMS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "ndcg.1=3,2=9,4=4.5",
    "ndcg_cut.10,20,23.4",
    "success.2,5,20",
]


@pytest.mark.parametrize("arg", MEAS_PARAMS)
def test_each_parameterised_name_prints_what_trec_eval_printed(trec_case, arg):
    folder = trec_case[0]
    measures = parse_measures([arg])
    labels = {m.name for m in measures}
    lines = (folder / "out.test.meas_params").read_text().splitlines()
    wanted = [line for line in lines if line.split("\t")[0].rstrip() in labels]
    assert len({line.split("\t")[0] for line in wanted}) == len(measures)
    assert _trec_lines(trec_case, measures) == wanted
    # the same measures in ir_measures syntax compute the same values
    plain = [parse_measure(str(m)) for m in measures]
    assert all(m.label is None for m in plain)
    assert [line.split("\t")[1:] for line in _trec_lines(trec_case, plain)] == [
        line.split("\t")[1:] for line in wanted
    ]


def test_families_and_aliases_in_ir_measures_syntax_equal_trec_eval(trec_case):
    """Each family example, alias and canonical text that names a trec_eval measure
    evaluates, unlabelled, to the values trec_eval printed for that measure."""
    folder = trec_case[0]
    expected = _trec_eval_output(folder / "out.test.aq")
    trec_measures = {m: m.name for m in parse_measures(["all_trec"])}
    texts = (
        [t for name in FAMILIES for t in _family_examples(name)]
        + [_alias_example(a) for a in ALIASES]
        + [str(m) for m in trec_measures]
    )
    checked = set()
    for text in texts:
        m = parse_measure(text)
        if m not in trec_measures:
            continue
        got = [line.split("\t")[1:] for line in _trec_lines(trec_case, [m.with_label(None)])]
        assert got == [line.split("\t")[1:] for line in expected[trec_measures[m]]], text
        checked.add(text)
    in_all_trec = {s.family for s in trec_specs() if "all_trec" in s.nicknames}
    for name in in_all_trec:
        assert set(_family_examples(name)[:1]) <= checked, name
    for alias, info in ALIASES.items():
        if info.family in in_all_trec:
            assert _alias_example(alias) in checked, alias
    assert {str(m) for m in trec_measures} <= checked
