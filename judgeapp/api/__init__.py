"""judgeapp from Python, shaped like ir_measures: switch by changing an import.

::

    import judgeapp
    from judgeapp import AP, nDCG, P

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    run = {"q1": {"d1": 1.2, "d2": 3.4, "d3": 0.5}}      # any order: sorted as trec_eval does
    judgeapp.calc_aggregate([AP, nDCG @ 10, "P@5"], qrels, run)   # {AP: ..., nDCG@10: ..., P@5: ...}
    for metric in judgeapp.iter_calc([AP], qrels, run):             # Metric(query_id, measure, value)
        ...
    ev = judgeapp.evaluator([AP, "ndcg_cut.10"], qrels)              # reusable over many runs
    ev.calc_aggregate(run)

Inputs (qrels and runs alike): dicts as pytrec_eval takes them (``{qid: {docno: grade}}``,
``{qid: {docno: score}}``), pandas DataFrames with ir_measures' columns (``query_id``,
``doc_id``, ``relevance`` / ``score``), iterables of ir_measures' namedtuples (``Qrel``,
``ScoredDoc``, or any tuple with those fields), ranx ``Qrels``/``Run`` objects, and paths
(TREC files, ranx JSON, Parquet; see :mod:`judgeapp.formats.interop`). Qids and
docnos that are not text are turned into text.

A run is put in trec_eval order whatever order it comes in: score descending, ties by docno
descending (with ``version=9`` scores are compared as C floats first, as trec_eval 9.x and
pytrec_eval do). Measures are :class:`~judgeapp.measures.Measure` objects, text in
ir_measures or trec_eval syntax, or ir_measures' own measure objects (read by their text).

Which topics are averaged (``topics=``):

- ``"qrels"`` (default, as ir_measures and ranx): every qrels topic; one the run lacks
  counts 0 (trec_eval ``-c``);
- ``"run"``: the topics in both (trec_eval 9.x and pytrec_eval without ``-c``);
- ``"strict"``: trec_eval 10.0 without ``-c``: a qrels topic missing from the run is an error.

Topics only in the run are never evaluated. Values equal trec_eval 10.0's (``version=9``:
9.x's, which differ in ``IPrec``/``11pt_avg`` only).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeVar, cast

import numpy as np

from judgeapp.api.inputs import (
    RunReader,
    frame_columns,
    is_frame,
    is_ranx,
    plain_dict,
    qrels_of,
)
from judgeapp.measures import (
    EvalOptions,
    Measure,
    MeasureError,
    Results,
    Vocabulary,
    parse_measures,
)
from judgeapp.measures import (
    Evaluator as Engine,
)

Topics = Literal["qrels", "run", "strict"]


class Metric(NamedTuple):
    """One topic's value of one measure (ir_measures' Metric)."""

    query_id: str
    measure: Measure
    value: float


class Qrel(NamedTuple):
    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    query_id: str
    doc_id: str
    score: float


class MeasureDict(dict):
    """``{Measure: value}``; also found by any text or object naming the measure
    (``result["nDCG@10"]``, ``result[ir_measures.nDCG@10]``)."""

    def __missing__(self, key: object) -> float:
        if not isinstance(key, Measure):
            try:
                found = parse_measures([str(key)])
            except MeasureError:
                found = []
            if len(found) == 1 and found[0] in self:
                return self[found[0]]
        raise KeyError(key)


@dataclass(frozen=True, slots=True)
class CalcResults:
    """What :meth:`Evaluator.calc` returns (ir_measures' CalcResults)."""

    aggregated: MeasureDict
    per_query: list[Metric]


# -- measures ------------------------------------------------------------------------------


def measures_of(measures: Iterable[object] | object, version: int = 10) -> list[Measure]:
    """judgeapp measures from Measure objects, text in either syntax, or objects whose text
    is a measure (ir_measures' measures)."""
    if isinstance(measures, str | Measure) or not isinstance(measures, Iterable):
        measures = [measures]
    out: list[Measure] = []
    for m in measures:
        found = [m] if isinstance(m, Measure) else _parse_text(str(m), version)
        out.extend(x for x in found if x not in out)
    return out


@functools.lru_cache(maxsize=1024)
def _parse_text(text: str, version: int) -> tuple[Measure, ...]:
    return tuple(parse_measures([text], version))


# -- evaluation ----------------------------------------------------------------------------


def _options(
    topics: Topics,
    version: int,
    relevance_level: int,
    judged_only: bool,
    max_docs: int | None,
    num_docs: int,
) -> EvalOptions:
    if topics not in ("qrels", "run", "strict"):
        raise ValueError(f"topics must be 'qrels', 'run' or 'strict', not {topics!r}")
    return EvalOptions(
        version=version,
        relevance_level=relevance_level,
        judged_only=judged_only,
        max_docs=max_docs,
        num_docs=num_docs,
        complete=topics == "qrels",
        missing="error" if topics == "strict" else "skip",
    )


class Evaluator:
    """Measures and qrels fixed, evaluated against any number of runs (ir_measures'
    ``evaluator``). Keyword options as trec_eval's: ``version`` (10 or 9),
    ``relevance_level`` (-l), ``judged_only`` (-J), ``max_docs`` (-M), ``num_docs`` (-N),
    ``topics`` (which topics are averaged; see the module docstring) and ``ties`` (the
    order of equal scores: ``trec_eval``, ``docno``, ``file`` or ``ranx``; see
    :mod:`judgeapp.formats.ties`)."""

    def __init__(
        self,
        measures: Iterable[object] | object,
        qrels: object,
        *,
        version: int = 10,
        topics: Topics = "qrels",
        relevance_level: int = 1,
        judged_only: bool = False,
        max_docs: int | None = None,
        num_docs: int = 0,
        ties: str = "trec_eval",
    ) -> None:
        self.options = _options(topics, version, relevance_level, judged_only, max_docs, num_docs)
        from judgeapp.formats.ties import check

        self.ties = check(ties)
        given = (
            [measures]
            if isinstance(measures, str) or not isinstance(measures, Iterable)
            else list(measures)
        )
        # measures the user defined (define, define_byquery): computed apart, on DataFrames
        self.custom = [m for m in given if isinstance(m, CustomMeasure)]
        given = [m for m in given if not isinstance(m, CustomMeasure)]
        self._qrels_input = qrels if self.custom else None
        self.measures = [m for m in measures_of(given, version) if m.aggregate != "text"]
        # measures given as other libraries' objects (ir_measures'): results are keyed by
        # those very objects, so code written for that library finds them
        self._given: dict[Measure, object] = {}
        for obj in given:
            if not isinstance(obj, str | Measure):
                found = measures_of([obj], version)
                if len(found) == 1:
                    self._given[found[0]] = obj
        for m in self.measures:
            m.check_complete()
        self.vocab = Vocabulary()
        plain = plain_dict(qrels)
        if plain is not None:
            # per-topic ids, no shared vocabulary: each topic's documents are numbered apart
            self.judgments, docs = plain
            unknown = max((len(d) for d in docs.values()), default=0)
            self._reader: RunReader | None = RunReader(
                docs, unknown, self.options.version, self.ties
            )
        else:
            self.judgments = qrels_of(qrels, self.vocab)
            self._reader = None
        self.topics = topics
        self._ideals: dict = {}  # ideal rankings, shared by the runs evaluated

    def results(self, runs: Mapping[str, object] | Iterable[object]) -> Results:
        """The engine's :class:`~judgeapp.measures.Results` of many runs at once
        (``{name: run}``, or runs named run0, run1, ...)."""
        items = runs.items() if isinstance(runs, Mapping) else enumerate(runs)
        if self._reader is None:
            self._reader = RunReader.for_judgments(
                self.vocab, self.judgments, self.options.version, self.ties
            )
        engine_runs = [self._reader.read(r, str(name)) for name, r in items]
        engine = Engine(
            self.judgments, engine_runs, self.measures, self.options, ideals=self._ideals
        )
        return engine.evaluate()

    def calc_aggregate(self, run: object) -> MeasureDict:
        """``{measure: value}`` over the topics (trec_eval's ``all`` line)."""
        return self.calc(run).aggregated

    def iter_calc(self, run: object) -> Iterator[Metric]:
        """Per-topic values: one Metric per qrels topic and measure (a topic the run lacks
        gives 0 with topics='qrels' and nothing otherwise), topics in trec_eval's order."""
        if not self.custom:
            res = self.results([run])
            yield from _metrics(res, 0, self.topics == "qrels", self._given)
            return
        yield from self.calc(run).per_query

    def calc(self, run: object) -> CalcResults:
        aggregated = MeasureDict()
        per_query: list[Metric] = []
        if self.measures:
            res = self.results([run])
            summary = res.summary()[:, 0].tolist()
            aggregated.update(
                (self._given.get(m, m), int(v) if m.is_count else float(v))
                for m, v in zip(res.measures, summary, strict=True)
            )
            per_query = list(_metrics(res, 0, self.topics == "qrels", self._given))
        for m in self.custom:
            found = self._custom(m, run)
            per_query.extend(found)
            aggregated[m] = float(np.mean([x.value for x in found])) if found else float("nan")
        return CalcResults(aggregated, per_query)

    def _custom(self, m: CustomMeasure, run: object) -> list[Metric]:
        """A user-defined measure's per-topic values, on the qrels and the run as
        ir_measures gives them (DataFrames; the run ranked by this evaluator's tie rule)."""
        qrels = _frame(self._qrels_input, "relevance")
        ranked = _frame(run, "score", self.ties)
        got = {str(q): float(v) for q, v in m.values(qrels, ranked)}
        have = set(ranked["query_id"])
        out = []
        for qid in sorted(self.judgments.topics):
            if qid in got:
                out.append(Metric(qid, cast(Measure, m), got[qid]))
            elif self.topics == "qrels" or qid in have:
                out.append(Metric(qid, cast(Measure, m), 0.0))
        return out


def _metrics(
    res: Results, r: int, zero_missing: bool, given: Mapping[Measure, object] | None = None
) -> Iterator[Metric]:
    given = given or {}
    values = res.values[:, r, :]
    for t, qid in enumerate(res.qids):
        if not res.evaluated[r, t] and not zero_missing:
            continue
        for i, m in enumerate(res.measures):
            if not m.info.per_topic:
                continue
            v = float(values[i, t]) if res.evaluated[r, t] else 0.0
            yield Metric(qid, cast(Measure, given.get(m, m)), int(v) if m.is_count else v)


def evaluator(measures: Iterable[object] | object, qrels: object, **options: Any) -> Evaluator:
    """An :class:`Evaluator` (reusable over runs), as ``ir_measures.evaluator``."""
    return Evaluator(measures, qrels, **options)


def calc_aggregate(
    measures: Iterable[object] | object, qrels: object, run: object, **options: Any
) -> MeasureDict:
    """``{measure: value}`` of one run, as ``ir_measures.calc_aggregate``."""
    return Evaluator(measures, qrels, **options).calc_aggregate(run)


def iter_calc(
    measures: Iterable[object] | object, qrels: object, run: object, **options: Any
) -> Iterator[Metric]:
    """Per-topic Metric(query_id, measure, value) of one run, as ``ir_measures.iter_calc``."""
    return Evaluator(measures, qrels, **options).iter_calc(run)


def calc(measures: Iterable[object] | object, qrels: object, run: object, **options: Any):
    """Aggregates and per-topic values at once (``ir_measures.calc``)."""
    return Evaluator(measures, qrels, **options).calc(run)


# -- ir_measures' readers and names --------------------------------------------------------

R = TypeVar("R")

GenericQrel = Qrel
GenericScoredDoc = ScoredDoc


def _parsed(
    file: object, parse: Callable[[Iterable[str]], Iterator[R]], *, gzipped: bool = False
) -> Iterator[R]:
    """`parse` over the lines of `file`: text with newlines, or a path (with `gzipped`, a
    path ending in .gz is decompressed)."""
    text = str(file)
    if "\n" in text:
        yield from parse(text.splitlines())
        return
    if gzipped and text.endswith(".gz"):
        import gzip

        with gzip.open(text, "rt", encoding="utf-8", errors="surrogateescape") as fh:
            yield from parse(fh)
        return
    with open(text, encoding="utf-8", errors="surrogateescape") as fh:
        yield from parse(fh)


def read_trec_qrels(file: object) -> Iterator[Qrel]:
    """Qrel(query_id, doc_id, relevance, iteration) rows of a qrels file (a path, or text
    with newlines), in file order, as ``ir_measures.read_trec_qrels``."""
    yield from _parsed(file, parse_trec_qrels)


def parse_trec_qrels(lines: Iterable[str]) -> Iterator[Qrel]:
    for n, line in enumerate(lines, 1):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 4:
            raise ValueError(f"qrels line {n}: 4 columns expected, got {len(cols)}: {line!r}")
        qid, it, doc, rel = cols
        yield Qrel(qid, doc, int(rel), it)


def read_trec_run(file: object) -> Iterator[ScoredDoc]:
    """ScoredDoc(query_id, doc_id, score) rows of a run file (a path, or text with
    newlines), in file order, as ``ir_measures.read_trec_run``."""
    yield from _parsed(file, parse_trec_run, gzipped=True)


def parse_trec_run(lines: Iterable[str]) -> Iterator[ScoredDoc]:
    for n, line in enumerate(lines, 1):
        cols = line.split()
        if not cols:
            continue
        if len(cols) < 6:
            raise ValueError(f"run line {n}: 6 columns expected, got {len(cols)}: {line!r}")
        yield ScoredDoc(cols[0], cols[2], float(cols[4]))


def parse_measure(text: str) -> Measure:
    """One measure from its text (ir_measures' or trec_eval's syntax)."""
    found = measures_of([text])
    if len(found) != 1:
        raise ValueError(f"{text!r} names {len(found)} measures; use parse_trec_measure")
    return found[0]


def parse_trec_measure(text: str) -> list[Measure]:
    """The measures a trec_eval name stands for (``ndcg_cut.10,20`` is two)."""
    return measures_of([text])


def convert_trec_name(text: str) -> list[Measure]:
    return parse_trec_measure(text)


# -- custom measures (ir_measures' define / define_byquery) ----------------------------------


class CustomMeasure:
    """A measure the user computes: ``impl(qrels, run)`` on pandas DataFrames (ir_measures'
    columns; the run sorted by query and ranked), giving ``(query_id, value)`` pairs. ``@ k``
    keeps the first k documents of each query first (when ``support_cutoff``)."""

    def __init__(
        self, impl: Any, name: str | None, support_cutoff: bool = True, cutoff: int | None = None
    ) -> None:
        self.impl, self.name, self.support_cutoff, self.cutoff = impl, name, support_cutoff, cutoff

    def __matmul__(self, k: int) -> CustomMeasure:
        if not self.support_cutoff:
            raise ValueError(f"{self!r} takes no cutoff")
        return CustomMeasure(self.impl, self.name, self.support_cutoff, int(k))

    def __repr__(self) -> str:
        base = self.name or f"custom<{id(self.impl):x}>"
        return base if self.cutoff is None else f"{base}@{self.cutoff}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CustomMeasure) and (other.impl, other.cutoff, other.name) == (
            self.impl,
            self.cutoff,
            self.name,
        )

    def __hash__(self) -> int:
        return hash(repr(self))

    def values(self, qrels: Any, run: Any) -> Iterable[tuple[str, float]]:
        if self.cutoff is not None:
            run = run.groupby("query_id", sort=False).head(self.cutoff).reset_index(drop=True)
        return self.impl(qrels, run)


def define(
    impl: Any, name: str | None = None, support_cutoff: bool = True, **_: Any
) -> CustomMeasure:
    """A measure from ``impl(qrels, run) -> [(query_id, value), ...]`` over all queries at
    once (``ir_measures.define``; its optional descriptive keywords are accepted)."""
    return CustomMeasure(impl, name, support_cutoff)


def define_byquery(
    impl: Any, name: str | None = None, support_cutoff: bool = True, **_: Any
) -> CustomMeasure:
    """A measure from ``impl(qrels, run) -> value`` called once per query
    (``ir_measures.define_byquery``)."""

    def each(qrels: Any, run: Any) -> Iterator[tuple[str, float]]:
        for qid, part in run.groupby("query_id", sort=False):
            yield qid, impl(qrels[qrels["query_id"] == qid], part)

    return CustomMeasure(each, name or getattr(impl, "__name__", repr(impl)), support_cutoff)


def _frame(obj: object, value: str, ties: str | None = None) -> Any:
    """A DataFrame (query_id, doc_id, value) of qrels or a run input; a run (``ties``
    given) is sorted by query id and, within each query, ranked by that tie rule."""
    import pandas as pd

    if is_ranx(obj):
        obj = cast(Any, obj).to_dict()
    if isinstance(obj, str | os.PathLike):
        if value == "score":
            from judgeapp.formats.interop import read_run_any
            from judgeapp.formats.ties import in_file_order

            rf = read_run_any(obj)
            obj = {
                q: dict(zip(d, s.tolist(), strict=True))
                for q, (d, s, _) in ((q, in_file_order(t)) for q, t in rf.topics.items())
            }
        else:
            from judgeapp.formats.interop import read_qrels_any

            qf = read_qrels_any(obj)
            obj = pd.DataFrame({"query_id": qf.qids, "doc_id": qf.docnos, "relevance": qf.grades})
    if isinstance(obj, Mapping):
        rows = [(str(q), str(d), v) for q, docs in obj.items() for d, v in docs.items()]
        columns: tuple[Any, Any, Any] = (
            tuple(list(c) for c in zip(*rows, strict=True)) if rows else ([], [], [])  # type: ignore[assignment]
        )
    else:
        columns = frame_columns(obj if is_frame(obj) else list(cast(Any, obj)), value)
    qids, docs, vals = columns
    frame = pd.DataFrame({"query_id": qids, "doc_id": docs, value: np.asarray(vals)})
    if ties is None:
        return frame
    from judgeapp.formats.ties import order

    parts = []
    for _, part in frame.groupby("query_id", sort=True):
        o = order(part["doc_id"].tolist(), part["score"].to_numpy(dtype=np.float64), ties)
        parts.append(part.iloc[o])
    if not parts:
        return frame
    return pd.concat(parts, ignore_index=True)


# -- ir_measures' providers -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Provider:
    """ir_measures' providers, where choosing one changes a number: they compute the same
    measures but rank tied scores differently (and pytrec_eval is trec_eval 9.x). Each is
    judgeapp with that provider's tie rule and version: ``judgeapp.cwl_eval.calc_aggregate(
    measures, qrels, run)`` gives what ``ir_measures.cwl_eval.calc_aggregate`` gives."""

    name: str
    ties: str
    version: int = 10

    def evaluator(self, measures: object, qrels: object, **options: Any) -> Evaluator:
        options = {"ties": self.ties, "version": self.version, **options}
        return Evaluator(measures, qrels, **options)

    def calc_aggregate(self, measures: object, qrels: object, run: object, **options: Any):
        return self.evaluator(measures, qrels, **options).calc_aggregate(run)

    def iter_calc(self, measures: object, qrels: object, run: object, **options: Any):
        return self.evaluator(measures, qrels, **options).iter_calc(run)

    def calc(self, measures: object, qrels: object, run: object, **options: Any):
        return self.evaluator(measures, qrels, **options).calc(run)


PROVIDERS = {
    p.name: p
    for p in (
        Provider("pytrec_eval", "trec_eval", 9),
        Provider("gdeval", "trec_eval"),
        Provider("cwl_eval", "file"),
        Provider("pyndeval", "file"),
        Provider("accuracy", "file"),
        Provider("judged", "docno"),
        Provider("compat", "docno"),
        Provider("msmarco", "docno"),
        Provider("ranx", "ranx"),
    )
}
# ir_measures' provider chain: judgeapp has one engine, with trec_eval's tie order
DefaultPipeline = Provider("default", "trec_eval")


class providers:  # named as ir_measures' module
    """``ir_measures.providers.registry`` (the providers above, by name)."""

    registry = PROVIDERS
