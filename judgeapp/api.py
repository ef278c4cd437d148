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

import itertools
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from judgeapp.measures import (
    EvalOptions,
    Judgments,
    Measure,
    MeasureError,
    Results,
    Run,
    TopicJudgments,
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
        found = [m] if isinstance(m, Measure) else parse_measures([str(m)], version)
        out.extend(x for x in found if x not in out)
    return out


# -- inputs --------------------------------------------------------------------------------


def _is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


def _is_frame(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] in ("pandas", "polars") and hasattr(obj, "columns")


def _ranx(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] == "ranx"


def _columns(obj: Any, value: str) -> tuple[list[str], list[str], np.ndarray]:
    """(qids, docnos, values) of a DataFrame or an iterable of namedtuples/records."""
    if _is_frame(obj):
        missing = {"query_id", "doc_id", value} - set(obj.columns)
        if missing:
            raise ValueError(f"the DataFrame lacks the column(s) {', '.join(sorted(missing))}")
        qids = [str(q) for q in obj["query_id"].to_list()]
        docs = [str(d) for d in obj["doc_id"].to_list()]
        return qids, docs, np.asarray(obj[value].to_numpy())
    qids, docs, vals = [], [], []
    for row in obj:
        try:
            qids.append(str(row.query_id))
            docs.append(str(row.doc_id))
            vals.append(getattr(row, value))
        except AttributeError as exc:
            raise TypeError(
                f"rows must have query_id, doc_id and {value} (ir_measures' namedtuples); got "
                f"{row!r}"
            ) from exc
    return qids, docs, np.asarray(vals)


def _integer_grades(values: object, where: str) -> np.ndarray:
    grades = np.asarray(values)
    if grades.size and not np.issubdtype(grades.dtype, np.integer):
        as_float = grades.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or not np.all(as_float == np.trunc(as_float)):
            raise ValueError(f"{where}: relevance grades must be integers")
        grades = as_float
    return grades.astype(np.int64)


def qrels_of(qrels: object, vocab: Vocabulary) -> Judgments:
    """Judgments from any qrels input (see the module docstring)."""
    if isinstance(qrels, Judgments):
        return qrels
    if _ranx(qrels):
        qrels = qrels.to_dict()
    if _is_path(qrels):
        from judgeapp.formats.interop import read_qrels_any

        qrels = read_qrels_any(qrels)
        return Judgments.from_qrels(qrels, vocab)  # type: ignore[arg-type]
    if isinstance(qrels, Mapping):
        topics = {}
        for qid, docs in qrels.items():
            qid = str(qid)
            ids = vocab.ids(str(d) for d in docs)
            grades = _integer_grades(list(docs.values()), f"qrels topic {qid}")
            topics[qid] = TopicJudgments.build(ids, grades, qid)
        return Judgments(topics)
    qids, docs, values = _columns(qrels, "relevance")
    grades = _integer_grades(values, "qrels")
    by_topic: dict[str, tuple[list[str], list[int]]] = {}
    for q, d, g in zip(qids, docs, grades.tolist(), strict=True):
        entry = by_topic.setdefault(q, ([], []))
        entry[0].append(d)
        entry[1].append(g)
    return Judgments(
        {
            q: TopicJudgments.build(vocab.ids(ds), np.asarray(gs, dtype=np.int64), q)
            for q, (ds, gs) in by_topic.items()
        }
    )


def _ordered_run(
    name: str,
    qids: list[str],
    docnos: list[str],
    scores: np.ndarray,
    vocab: Vocabulary,
    version: int,
    *,
    check: bool = True,
) -> Run:
    """A run from parallel columns in any order: grouped by topic, each topic in trec_eval
    order; documents the judgments do not name share one id (they are all 'not judged')."""
    from judgeapp.formats.runs import trec_order

    scores = np.asarray(scores, dtype=np.float64)
    if version < 10:  # trec_eval 9.x keeps scores as C floats
        scores = scores.astype(np.float32).astype(np.float64)
    n = len(qids)
    if n and any(qids[i] != qids[i + 1] for i in range(n - 1)) and len(set(qids)) > 1:
        codes = {q: k for k, q in enumerate(dict.fromkeys(qids))}
        order = np.argsort(np.fromiter((codes[q] for q in qids), np.int64, n), kind="stable")
        pick = order.tolist()
        qids = [qids[i] for i in pick]
        docnos = [docnos[i] for i in pick]
        scores = scores[order]
    starts = [0] + [i + 1 for i in range(n - 1) if qids[i] != qids[i + 1]]
    bounds = np.array([*starts, n], dtype=np.int64)
    docnos, scores, _ = trec_order(docnos, scores, np.zeros(n, dtype=np.int64), bounds)
    ids = vocab.ids(docnos, add=False)
    ids[ids < 0] = len(vocab)
    topics: dict[str, np.ndarray] = {}
    for k, lo in enumerate(starts):
        qid = qids[lo]
        hi = int(bounds[k + 1])
        if qid in topics:
            raise ValueError(f"run {name}: topic {qid} given twice")
        topics[qid] = ids[lo:hi]
        seen = docnos[lo:hi]
        if check and len(set(seen)) != hi - lo:
            dup = next(d for d in seen if seen.count(d) > 1)
            raise ValueError(f"run {name}: document {dup} twice for topic {qid}")
    return Run(name, topics, name)


def run_of(run: object, vocab: Vocabulary, *, version: int = 10, name: str = "run") -> Run:
    """An engine run from any run input (see the module docstring), in trec_eval order."""
    if isinstance(run, Run):
        return run
    if _ranx(run):
        name = getattr(run, "name", None) or name
        run = run.to_dict()
    if _is_path(run):
        from judgeapp.formats.interop import read_run_any

        run_file = read_run_any(run)
        qids = [q for q, t in run_file.topics.items() for _ in t.docnos]
        docnos = [d for t in run_file.topics.values() for d in t.docnos]
        scores = np.concatenate([t.scores for t in run_file.topics.values()] or [np.zeros(0)])
        return _ordered_run(name, qids, docnos, scores, vocab, version, check=False)
    if isinstance(run, Mapping):
        qids: list[str] = []
        docnos: list[str] = []
        for qid, docs in run.items():
            qids.extend(itertools.repeat(str(qid), len(docs)))
            docnos.extend(str(d) for d in docs)
        scores = np.fromiter(
            itertools.chain.from_iterable(d.values() for d in run.values()),
            np.float64,
            len(docnos),
        )
        return _ordered_run(name, qids, docnos, scores, vocab, version, check=False)
    qids, docnos, scores = _columns(run, "score")
    return _ordered_run(name, qids, docnos, scores, vocab, version)


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
        missing={"qrels": "skip", "run": "skip", "strict": "error"}[topics],
    )


class Evaluator:
    """Measures and qrels fixed, evaluated against any number of runs (ir_measures'
    ``evaluator``). Keyword options as trec_eval's: ``version`` (10 or 9),
    ``relevance_level`` (-l), ``judged_only`` (-J), ``max_docs`` (-M), ``num_docs`` (-N),
    and ``topics`` (which topics are averaged; see the module docstring)."""

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
    ) -> None:
        self.options = _options(topics, version, relevance_level, judged_only, max_docs, num_docs)
        self.measures = [m for m in measures_of(measures, version) if m.aggregate != "text"]
        for m in self.measures:
            m.check_complete()
        self.vocab = Vocabulary()
        self.judgments = qrels_of(qrels, self.vocab)
        self.topics = topics

    def results(self, runs: Mapping[str, object] | Iterable[object]) -> Results:
        """The engine's :class:`~judgeapp.measures.Results` of many runs at once
        (``{name: run}``, or runs named run0, run1, ...)."""
        items = runs.items() if isinstance(runs, Mapping) else enumerate(runs)
        engine_runs = [
            run_of(r, self.vocab, version=self.options.version, name=str(name)) for name, r in items
        ]
        return Engine(self.judgments, engine_runs, self.measures, self.options).evaluate()

    def calc_aggregate(self, run: object) -> MeasureDict:
        """``{measure: value}`` over the topics (trec_eval's ``all`` line)."""
        res = self.results([run])
        summary = res.summary()[:, 0]
        return MeasureDict(
            (m, int(v) if m.is_count else float(v))
            for m, v in zip(res.measures, summary.tolist(), strict=True)
        )

    def iter_calc(self, run: object) -> Iterator[Metric]:
        """Per-topic values: one Metric per qrels topic and measure (a topic the run lacks
        gives 0 with topics='qrels' and nothing otherwise), topics in trec_eval's order."""
        res = self.results([run])
        yield from _metrics(res, 0, self.topics == "qrels")

    def calc(self, run: object) -> CalcResults:
        res = self.results([run])
        summary = res.summary()[:, 0].tolist()
        return CalcResults(
            MeasureDict(
                (m, int(v) if m.is_count else float(v))
                for m, v in zip(res.measures, summary, strict=True)
            ),
            list(_metrics(res, 0, self.topics == "qrels")),
        )


def _metrics(res: Results, r: int, zero_missing: bool) -> Iterator[Metric]:
    values = res.values[:, r, :]
    for t, qid in enumerate(res.qids):
        if not res.evaluated[r, t] and not zero_missing:
            continue
        for i, m in enumerate(res.measures):
            if not m.info.per_topic:
                continue
            v = float(values[i, t]) if res.evaluated[r, t] else 0.0
            yield Metric(qid, m, int(v) if m.is_count else v)


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
