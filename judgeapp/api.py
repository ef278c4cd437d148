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
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeVar, cast

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
        found = [m] if isinstance(m, Measure) else _parse_text(str(m), version)
        out.extend(x for x in found if x not in out)
    return out


@functools.lru_cache(maxsize=1024)
def _parse_text(text: str, version: int) -> tuple[Measure, ...]:
    return tuple(parse_measures([text], version))


# -- inputs --------------------------------------------------------------------------------


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


def _plain_dict(qrels: object) -> tuple[Judgments, dict[str, dict[str, int]]] | None:
    """pytrec_eval-style qrels ``{qid: {docno: grade}}`` as judgments whose documents are
    numbered per topic (0, 1, ... in the dict's order), and those numbers; None for any other
    input."""
    if not isinstance(qrels, Mapping) or _nested(qrels):
        return None
    topics: dict[str, TopicJudgments] = {}
    numbers: dict[str, dict[str, int]] = {}
    for qid, docs in qrels.items():
        qid = str(qid)
        keys = list(docs)
        if keys and type(keys[0]) is not str:
            keys = [str(d) for d in keys]
        grades = _integer_grades(list(docs.values()), f"qrels topic {qid}")
        numbers[qid] = dict(zip(keys, range(len(keys)), strict=True))
        if len(numbers[qid]) != len(keys):
            raise ValueError(f"qrels topic {qid}: a docno twice")
        topics[qid] = TopicJudgments(np.arange(len(keys), dtype=np.int64), grades)
    return Judgments(topics), numbers


def _nested(qrels: Mapping) -> bool:
    """{qid: {subtopic: {docno: grade}}} rather than {qid: {docno: grade}}."""
    for docs in qrels.values():
        for value in docs.values():
            return isinstance(value, Mapping)
    return False


def _iterations(obj: Any, n: int) -> list[str] | None:
    """The iteration (subtopic) column of a DataFrame or of namedtuples, if there is one."""
    if _is_frame(obj):
        return [str(x) for x in obj["iteration"].to_list()] if "iteration" in obj.columns else None
    rows = obj if isinstance(obj, list) else None
    if rows and all(hasattr(r, "iteration") for r in rows):
        return [str(r.iteration) for r in rows]
    return None


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
        qrels = cast(Any, qrels).to_dict()
    if isinstance(qrels, str | os.PathLike):
        from judgeapp.formats.interop import read_qrels_any
        from judgeapp.formats.irds import irds_qrels, is_irds

        found = irds_qrels(str(qrels)) if is_irds(qrels) else read_qrels_any(qrels)
        return Judgments.from_qrels(found, vocab)
    if isinstance(qrels, Mapping) and _nested(qrels):
        return Judgments.from_subtopics(
            {
                str(q): {
                    str(s): {str(d): int(g) for d, g in docs.items()} for s, docs in subs.items()
                }
                for q, subs in qrels.items()
            },
            vocab,
        )
    if isinstance(qrels, Mapping):
        topics = {}
        for qid, docs in qrels.items():
            qid = str(qid)
            keys = list(docs)
            if keys and type(keys[0]) is not str:
                keys = [str(d) for d in keys]
            grades = _integer_grades(list(docs.values()), f"qrels topic {qid}")
            topics[qid] = TopicJudgments.build(vocab.ids(keys), grades, qid)
        return Judgments(topics)
    if not _is_frame(qrels):
        qrels = list(cast(Iterable[Any], qrels))
    qids, docs, values = _columns(qrels, "relevance")
    grades = _integer_grades(values, "qrels")
    iterations = _iterations(qrels, len(qids))
    if iterations is not None and len(set(zip(qids, iterations, strict=True))) > len(set(qids)):
        # more than one iteration value in a topic: they are subtopics (ir_measures' rule)
        nested: dict[str, dict[str, dict[str, int]]] = {}
        for q, it, d, g in zip(qids, iterations, docs, grades.tolist(), strict=True):
            nested.setdefault(q, {}).setdefault(it, {})[d] = g
        return Judgments.from_subtopics(nested, vocab)
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


class RunReader:
    """Turns run inputs into engine runs against a fixed vocabulary (the qrels'), in
    trec_eval order.

    Documents the judgments do not name all share one id: they are all 'not judged', so
    only their places matter. Sorting is numeric (score, then a docno key); docno text is
    compared only where a score tie mixes judged documents with others, which is what
    decides the order trec_eval evaluates."""

    def __init__(
        self,
        topic_docs: Mapping[str, Mapping[str, int]],
        unknown: int,
        version: int = 10,
        ties: str = "trec_eval",
    ) -> None:
        """``topic_docs``: per topic, docno -> id of its judged documents; ``unknown``: an
        id no judged document has; ``ties``: the order of equal scores
        (:mod:`judgeapp.formats.ties`)."""
        from judgeapp.formats.ties import check

        self.version = version
        self.ties = check(ties)
        self.unknown = unknown
        # a document not judged for a topic evaluates as one not judged at all there, so it
        # takes the shared id
        self.topic_docs = topic_docs

    @classmethod
    def for_judgments(
        cls, vocab: Vocabulary, judgments: Judgments, version: int = 10, ties: str = "trec_eval"
    ) -> RunReader:
        docs = {
            qid: dict(zip(vocab.docnos(tj.docids), tj.docids.tolist(), strict=True))
            for qid, tj in judgments.topics.items()
        }
        return cls(docs, len(vocab), version, ties)

    def read(self, run: object, name: str = "run") -> Run:
        if isinstance(run, Run):
            return run
        if _ranx(run):
            name = getattr(run, "name", None) or name
            run = cast(Any, run).to_dict()
        if isinstance(run, str | os.PathLike) or type(run).__name__ == "RunFile":
            from judgeapp.formats.interop import read_run_any

            rf: Any = run if type(run).__name__ == "RunFile" else read_run_any(cast(Any, run))
            qids = list(rf.topics)
            counts = [len(t.docnos) for t in rf.topics.values()]
            if self.ties == "trec_eval":
                docnos = [d for t in rf.topics.values() for d in t.docnos]
                scores = [t.scores for t in rf.topics.values()]
            else:  # the file's order: the tie rule ranks from there
                from judgeapp.formats.ties import in_file_order

                back = [in_file_order(t) for t in rf.topics.values()]
                docnos = [d for b in back for d in b[0]]
                scores = [b[1] for b in back]
            return self._build(name, qids, counts, docnos, scores)
        if isinstance(run, Mapping):
            qids, counts, docnos, scores = [], [], [], []
            for qid, docs in run.items():
                qids.append(str(qid))
                counts.append(len(docs))
                keys = list(docs)
                if keys and type(keys[0]) is not str:
                    keys = [str(d) for d in keys]
                docnos.extend(keys)
                scores.append(np.fromiter(docs.values(), np.float64, len(docs)))
            return self._build(name, qids, counts, docnos, scores)
        q, d, sc = _columns(run, "score")
        if len(set(zip(q, d, strict=True))) != len(q):
            seen: set[tuple[str, str]] = set()
            for pair in zip(q, d, strict=True):
                if pair in seen:
                    raise ValueError(f"run {name}: document {pair[1]} twice for topic {pair[0]}")
                seen.add(pair)
        codes = {x: k for k, x in enumerate(dict.fromkeys(q))}
        topic = np.fromiter((codes[x] for x in q), np.int64, len(q))
        order = np.argsort(topic, kind="stable")
        counts = np.bincount(topic, minlength=len(codes)).tolist()
        pick = order.tolist()
        return self._build(
            name,
            list(codes),
            counts,
            [d[i] for i in pick],
            [np.asarray(sc, dtype=np.float64)[order]],
        )

    def _build(
        self,
        name: str,
        qids: list[str],
        counts: list[int],
        docnos: list[str],
        scores: list[np.ndarray],
    ) -> Run:
        score = np.concatenate(scores) if scores else np.zeros(0)
        score = np.asarray(score, dtype=np.float64)
        if score.size and not np.all(np.isfinite(score)):
            raise ValueError(f"run {name}: scores must be finite numbers")
        if self.version < 10:  # trec_eval 9.x keeps scores as C floats
            score = score.astype(np.float32).astype(np.float64)
        if self.ties != "trec_eval":
            docnos, score = self._tie_ranked(qids, counts, docnos, score)
        topics: dict[str, np.ndarray] = {}
        lo = 0
        unknown, none = self.unknown, itertools.repeat(self.unknown)
        for qid, n in zip(qids, counts, strict=True):
            hi = lo + n
            if qid in topics:
                raise ValueError(f"run {name}: topic {qid} given twice")
            docs = docnos[lo:hi]
            judged = self.topic_docs.get(qid)
            if judged is None:
                topics[qid] = np.full(n, unknown, dtype=np.int64)
            else:
                ids = np.fromiter(map(judged.get, docs, none), np.int64, n)
                s = -score[lo:hi]
                if n > 1 and (s[1:] < s[:-1]).any():  # not yet in score order
                    order = np.argsort(s, kind="stable")
                    ids, s = ids[order], s[order]
                else:
                    order = np.arange(n)
                tied = s[1:] == s[:-1]
                if tied.any():
                    ids = ids[self._tie_order(qid, ids, tied, order, docs)]
                topics[qid] = ids
            lo = hi
        return Run(name, topics, name)

    def _tie_ranked(
        self, qids: list[str], counts: list[int], docnos: list[str], score: np.ndarray
    ) -> tuple[list[str], np.ndarray]:
        """Each topic ranked by the tie rule, its scores replaced by n, n-1, ..., 1 so that
        the trec_eval-order sort below keeps that ranking."""
        from judgeapp.formats.ties import order

        out_docs: list[str] = []
        out_scores = np.empty_like(score)
        lo = 0
        for n in counts:
            o = order(docnos[lo : lo + n], score[lo : lo + n], self.ties)
            out_docs.extend(docnos[lo + i] for i in o.tolist())
            out_scores[lo : lo + n] = np.arange(n, 0, -1)
            lo += n
        del qids
        return out_docs, out_scores

    def _tie_order(
        self, qid: str, ids: np.ndarray, tied: np.ndarray, order: np.ndarray, docnos: list[str]
    ) -> np.ndarray:
        """Positions putting each stretch of equal scores in docno-descending order, as far
        as it matters: only stretches holding a judged document are ordered (the others hold
        documents that all evaluate alike)."""
        stretch = np.concatenate(([0], np.cumsum(~tied)))
        known = ids != self.unknown
        size = np.bincount(stretch)
        with_known = np.bincount(stretch, weights=known) > 0
        need = (size[stretch] > 1) & with_known[stretch]
        if not need.any():
            return np.arange(ids.size)
        # the docnos of those entries, ranked among themselves (Python compares code points,
        # as trec_eval compares bytes): within a stretch that is the docno order
        at = np.flatnonzero(need)
        texts = [docnos[i] for i in order[at].tolist()]
        ranked = np.asarray(sorted(range(len(texts)), key=texts.__getitem__), dtype=np.int64)
        key = np.zeros(ids.size, dtype=np.int64)
        key[at[ranked]] = np.arange(1, len(texts) + 1)
        return np.lexsort((-key, stretch))


def run_of(
    run: object, vocab: Vocabulary, judgments: Judgments, *, version: int = 10, name: str = "run"
) -> Run:
    """An engine run from any run input (see the module docstring), in trec_eval order,
    for evaluation against ``judgments`` (whose docnos ``vocab`` holds)."""
    return RunReader.for_judgments(vocab, judgments, version).read(run, name)


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
        plain = _plain_dict(qrels)
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

    if _ranx(obj):
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
        columns = _columns(obj if _is_frame(obj) else list(cast(Any, obj)), value)
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
