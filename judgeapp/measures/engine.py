"""The evaluation engine: many runs, many measures, topic by topic, recomputable per topic.

:class:`Evaluator` holds judgments, runs, measures and options. ``evaluate()`` computes
every topic; ``set_topic_judgments(qid, docids, grades)`` followed by
``recompute_topic(qid)`` redoes one topic for every run (what the judging GUI needs after
each judgment). Results come back as numpy arrays (measure x run x topic) with summaries
aggregated exactly as trec_eval aggregates them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from judgeapp.measures.batch import (
    MIN_GEO_MEAN,
    NONPOOL,
    PAD,
    UNJUDGED,
    BatchView,
    KernelContext,
    TopicStats,
)
from judgeapp.measures.data import Judgments, Run, TopicJudgments
from judgeapp.measures.families.counts import relstrings
from judgeapp.measures.family import EvaluationError, MeasureError
from judgeapp.measures.ideal import BatchIdeal, Ideal, build_ideal
from judgeapp.measures.measure import Measure
from judgeapp.measures.parse import parse_measures
from judgeapp.measures.registry import KERNELS

# topics evaluated together are stacked into one (topics x runs, depth) matrix; this caps
# its cells (and so the memory of one pass) while keeping numpy's per-call cost amortised
BATCH_CELLS = 4_000_000

Missing = Literal["error", "zero", "skip"]


class MissingTopicError(EvaluationError):
    """A run lacks topics of the judgments (trec_eval 10.0 stops; use complete/-c)."""


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """trec_eval's evaluation options.

    - ``version``: 10 (trec_eval 10.0, default) or 9 (9.x: what pytrec_eval computes).
    - ``relevance_level`` (-l): lowest grade counted relevant.
    - ``judged_only`` (-J): drop unjudged documents from each ranking first.
    - ``max_docs`` (-M): use only the first n documents of each ranking.
    - ``num_docs`` (-N): collection size (utility, Fallout, Acc).
    - ``complete`` (-c): average over every topic of the judgments; a run's missing topic
      counts as 0 (10.0 also reports it per topic).
    - ``missing``: what a run's missing topic does; default as trec_eval: 10.0 without -c
      ``"error"``, with -c ``"zero"``; 9.x ``"skip"``. The GUI passes ``"zero"`` or
      ``"skip"`` explicitly.
    """

    version: int = 10
    relevance_level: int = 1
    judged_only: bool = False
    max_docs: int | None = None
    num_docs: int = 0
    complete: bool = False
    missing: Missing | None = None

    def __post_init__(self) -> None:
        if self.version not in (9, 10):
            raise EvaluationError(f"trec_eval version must be 9 or 10, not {self.version}")
        if self.relevance_level < 0:
            # below 0 trec_eval counts unjudged documents as relevant in some measures and
            # not in others; judgeapp does not imitate that
            raise EvaluationError(
                f"the relevance level must be 0 or more, not {self.relevance_level}"
            )

    @property
    def missing_policy(self) -> Missing:
        if self.missing is not None:
            return self.missing
        if self.version >= 10:
            return "zero" if self.complete else "error"
        return "skip"


@dataclass(slots=True)
class Results:
    """Per-topic values and trec_eval-style summaries.

    ``values`` is (measures, runs, topics), NaN where a run's topic was not evaluated;
    ``evaluated`` is (runs, topics). Text measures (runid, relstring) are NaN in ``values``
    and live in ``texts``.
    """

    measures: tuple[Measure, ...]
    run_names: tuple[str, ...]
    runids: tuple[str, ...]
    qids: tuple[str, ...]
    values: np.ndarray
    evaluated: np.ndarray
    texts: dict[int, list[list[str]]]  # measure index -> [run][topic] ('' if not evaluated)
    complete: bool = False
    complete_num_rel: int = 0  # trec_eval -c: num_rel summed over every qrels line > 0
    zscore: bool = False  # values are trec_eval -Z z-scores (judgeapp.measures.zscores)
    _summary: np.ndarray | None = field(default=None, repr=False)

    @staticmethod
    def concat(parts: Sequence[Results]) -> Results:
        """Results of the same judgments and measures for different runs, side by side."""
        first = parts[0]
        if len(parts) == 1:
            return first
        texts = {i: [row for part in parts for row in part.texts[i]] for i in first.texts}
        return Results(
            measures=first.measures,
            run_names=tuple(name for part in parts for name in part.run_names),
            runids=tuple(runid for part in parts for runid in part.runids),
            qids=first.qids,
            values=np.concatenate([part.values for part in parts], axis=1),
            evaluated=np.concatenate([part.evaluated for part in parts], axis=0),
            texts=texts,
            complete=first.complete,
            complete_num_rel=first.complete_num_rel,
        )

    def index(self, measure: Measure | str) -> int:
        """Row of a measure, given as a Measure, its canonical text, its trec_eval name or
        any spelling the parser reads (``P(rel=1)@10`` finds ``P@10``)."""
        key = str(measure)
        for i, m in enumerate(self.measures):
            if str(m) == key or m.name == key:
                return i
        if isinstance(measure, str):
            try:
                parsed = parse_measures([measure])
            except MeasureError:
                parsed = []
            if len(parsed) == 1 and parsed[0] in self.measures:
                return self.measures.index(parsed[0])
        raise KeyError(f"no measure {measure!r} in these results")

    def run_index(self, run: str) -> int:
        return self.run_names.index(run)

    @property
    def num_topics(self) -> np.ndarray:
        """Topics each run is averaged over (trec_eval num_q)."""
        if self.complete:
            return np.full(len(self.run_names), len(self.qids), dtype=np.int64)
        return self.evaluated.sum(axis=1)

    def summary(self) -> np.ndarray:
        """(measures, runs): what trec_eval prints on its ``all`` lines (NaN for text)."""
        if self._summary is None:
            self._summary = self._aggregate()
        return self._summary

    def _aggregate(self) -> np.ndarray:
        n_measures, n_runs = len(self.measures), len(self.run_names)
        out = np.full((n_measures, n_runs), np.nan)
        denom = self.num_topics.astype(np.float64)
        n_eval = self.evaluated.sum(axis=1).astype(np.float64)
        # topics on axis 0: numpy then adds topic by topic, as trec_eval accumulates
        by_topic = np.moveaxis(self.values, 2, 0)
        mask = self.evaluated.T[:, None, :]
        plain = np.where(mask, by_topic, 0.0).sum(axis=0)
        logs = np.where(mask, np.log(np.maximum(by_topic, MIN_GEO_MEAN)), 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            for i, m in enumerate(self.measures):
                agg = m.aggregate
                if agg == "mean":
                    out[i] = np.where(denom > 0, plain[i] / denom, plain[i])
                elif agg == "sum":
                    out[i] = plain[i]
                    if self.complete and m.family == "NumRel":
                        out[i] = self.complete_num_rel
                elif agg == "gmean":
                    missing = (denom - n_eval) * math.log(MIN_GEO_MEAN)
                    out[i] = np.where(denom > 0, np.exp((logs[i] + missing) / denom), 0.0)
                elif agg == "count":
                    out[i] = denom
        return out

    def mean(self, measure: Measure | str) -> np.ndarray:
        """Summary value of one measure for every run."""
        return self.summary()[self.index(measure)]

    def per_topic(self, measure: Measure | str) -> np.ndarray:
        """(runs, topics) values of one measure."""
        return self.values[self.index(measure)]

    def value(self, measure: Measure | str, run: str, qid: str | None = None) -> float:
        """One number: a topic's value, or the summary with ``qid=None``."""
        r = self.run_index(run)
        if qid is None:
            return float(self.summary()[self.index(measure), r])
        return float(self.values[self.index(measure), r, self.qids.index(qid)])

    def table(self) -> dict[str, dict[str, float]]:
        """{run name: {measure text: summary}} for the numeric measures."""
        summ = self.summary()
        return {
            run: {
                str(m): float(summ[i, r])
                for i, m in enumerate(self.measures)
                if m.aggregate != "text"
            }
            for r, run in enumerate(self.run_names)
        }


def _reset_after_bogus(m: Measure) -> bool:
    """Whether trec_eval.c resets this value after scoring a missing topic's bogus ranking.
    It matches printed names (strcmp "num_ret", "utility", "relstring", "rbp_resid";
    strncmp "unj"), so parameterised ones (utility_2,-1,0,0) keep the bogus value; measures
    given in ir_measures syntax are reset by family."""
    if m.label is None:
        return m.family in ("NumRet", "utility", "relstring", "unj", "rbp_resid")
    return m.label in ("num_ret", "utility", "relstring", "rbp_resid") or m.label.startswith("unj")


def _topic_stats(tj: TopicJudgments) -> TopicStats:
    return TopicStats(tj.grades[tj.grades >= 0], int(tj.grades.size))


class Evaluator:
    """Evaluate runs against judgments; keep per-topic results and recompute one topic.

    ``measures`` are Measure objects or text in either syntax (``"AP"``, ``"P@10"``,
    ``"ndcg_cut.10"``; see :func:`judgeapp.measures.parse.parse_measures`).
    """

    def __init__(
        self,
        judgments: Judgments,
        runs: Sequence[Run],
        measures: Iterable[Measure | str],
        options: EvalOptions | None = None,
        *,
        ideals: dict[tuple, Ideal] | None = None,
    ) -> None:
        """``ideals``: a cache of ideal rankings to share between evaluators of the same
        judgments (the Python API builds one evaluator per run)."""
        self.options = options or EvalOptions()
        resolved: list[Measure] = []
        texts: list[str] = []  # consecutive texts parse together (trec_eval's order rules)
        for m in [*measures, None]:
            if isinstance(m, str):
                texts.append(m)
                continue
            if texts:
                resolved.extend(parse_measures(texts, self.options.version))
                texts = []
            if m is not None:
                resolved.append(m)
        self.measures: tuple[Measure, ...] = tuple(dict.fromkeys(resolved))  # first of equals
        for m in self.measures:
            m.check_complete()
        self.runs = list(runs)
        self.judgments = judgments
        self._qids: list[str] = judgments.qids
        self._topic_index = {q: i for i, q in enumerate(self._qids)}
        top = max(
            [judgments.max_doc_id()]
            + [int(a.max()) for run in self.runs for a in run.topics.values() if a.size]
        )
        self._pad_id = top + 1
        # trec_eval 10.0 -c evaluates a run's missing topic on a one-document "bogus"
        # ranking whose document no judgment names: that document is this id
        self._bogus_id = top + 2
        self._table = np.full(top + 3, NONPOOL, dtype=np.int32)
        self._table[self._pad_id] = PAD
        self._matrices: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._plan = self._make_plan()
        n_t, n_m, n_r = len(self._qids), len(self.measures), len(self.runs)
        self._values = np.full((n_t, n_m, n_r), np.nan)
        self._evaluated = np.zeros((n_t, n_r), dtype=bool)
        self._texts: dict[int, list[list[str]]] = {
            i: [[""] * n_t for _ in range(n_r)]
            for i, m in enumerate(self.measures)
            if m.family == "relstring"
        }
        self._ideals: dict[tuple, Ideal] = {} if ideals is None else ideals
        # what each topic's judgments say whatever the runs: kept while they stay, and
        # shared by the evaluators of evaluate_stream's batches (see _judged)
        self._judged_cache: dict[str, tuple[TopicStats, np.ndarray]] = {}
        self._done = np.zeros(n_t, dtype=bool)
        self._text_rows = [i for i, m in enumerate(self.measures) if m.aggregate == "text"]
        # trec_eval.c's clean-up after the bogus ranking of a missing topic
        self._bogus_reset = np.array(
            [i for i, m in enumerate(self.measures) if _reset_after_bogus(m)], dtype=np.intp
        )

    # -- planning ------------------------------------------------------------------------
    def _make_plan(self) -> list[tuple[tuple[int, bool], list[tuple[str, list[int]]]]]:
        """Measures grouped by context (level, judged_only), then by family and parameters:
        a kernel computes one group (all its cutoffs) in one call."""
        contexts: dict[tuple[int, bool], dict[tuple, list[int]]] = {}
        for i, m in enumerate(self.measures):
            level = m["rel"] if "rel" in {p.name for p in m.info.params} else None
            if level is None:
                level = self.options.relevance_level
            judged_only = self.options.judged_only or bool(
                "judged_only" in {p.name for p in m.info.params} and m["judged_only"]
            )
            groups = contexts.setdefault((int(level), judged_only), {})
            groups.setdefault((m.family, m.params), []).append(i)
        return [
            (ctx, [(family, idx) for (family, _), idx in groups.items()])
            for ctx, groups in contexts.items()
        ]

    # -- inputs per topic ----------------------------------------------------------------
    def _matrix(self, qid: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(runs x depth) document ids with the pad id past each list, list lengths, and
        whether each run has the topic at all."""
        found = self._matrices.get(qid)
        if found is not None:
            return found
        limit = self.options.max_docs
        bogus = np.array([self._bogus_id]) if self.options.missing_policy == "zero" else None
        lists = []
        present = np.ones(len(self.runs), dtype=bool)
        for r, run in enumerate(self.runs):
            ids = run.topics.get(qid)
            if ids is None:
                present[r] = False
                ids = bogus
            if ids is not None and limit is not None and limit >= 0:
                ids = ids[:limit]
            lists.append(ids)
        num_ret = np.array([0 if ids is None else ids.size for ids in lists], dtype=np.int64)
        depth = int(num_ret.max(initial=0))
        dtype = np.int32 if self._bogus_id < 2**31 - 1 else np.int64
        mat = np.full((len(self.runs), depth), self._pad_id, dtype=dtype)
        for r, ids in enumerate(lists):
            if ids is not None and ids.size:
                mat[r, : ids.size] = ids
        found = (mat, num_ret, present)
        self._matrices[qid] = found
        return found

    def _judged(self, qid: str) -> tuple[TopicStats, np.ndarray]:
        """The topic's statistics and the relevance code of each judged document (its
        grade, or UNJUDGED for a negative grade), in the order of its docids."""
        found = self._judged_cache.get(qid)
        if found is None:
            tj = self.judgments.topics[qid]
            code = np.where(tj.grades < 0, UNJUDGED, tj.grades).astype(np.int32)
            found = self._judged_cache[qid] = (_topic_stats(tj), code)
        return found

    def _codes(self, qid: str, mat: np.ndarray) -> np.ndarray:
        """trec_eval's relevance codes of every retrieved document: the grade, -1 not in
        the judgments, -2 judged with a negative grade (pooled, unjudged), PAD past the end."""
        ids = self.judgments.topics[qid].docids
        code = self._judged(qid)[1]
        if ids.size and ids[-1] >= self._pad_id:  # judged since, and retrieved by no run
            inside = ids < self._pad_id
            ids, code = ids[inside], code[inside]
        table = self._table
        table[ids] = code
        codes = np.take(table, mat)  # faster than table[mat]
        table[ids] = NONPOOL
        return codes

    def _ideal(self, t: int, stats: TopicStats, gains: tuple | None, dcg: str) -> Ideal:
        key = (t, gains, dcg)
        found = self._ideals.get(key)
        if found is None:
            found = self._ideals[key] = build_ideal(stats.grades, gains, dcg)
        return found

    # -- computation ---------------------------------------------------------------------
    def _compute(self, ts: Sequence[int]) -> None:
        """Evaluate topics ``ts`` for every run in one pass (rows = topic x run)."""
        n_runs, n_topics = len(self.runs), len(ts)
        qids = [self._qids[t] for t in ts]
        mats = [self._matrix(q) for q in qids]
        policy = self.options.missing_policy
        if policy == "error":
            for qid, (_, _, present) in zip(qids, mats, strict=True):
                if not present.all():
                    missing = [self.runs[r].name for r in np.flatnonzero(~present)]
                    raise MissingTopicError(
                        f"topic {qid} of the judgments is missing from run(s) "
                        f"{', '.join(missing)} (trec_eval 10.0 stops here; -c counts missing "
                        "topics as 0)"
                    )
        stats = [self._judged(q)[0] for q in qids]
        if n_topics == 1:
            codes = self._codes(qids[0], mats[0][0])
        else:
            depth = max(m[0].shape[1] for m in mats)
            codes = np.full((n_topics * n_runs, depth), PAD, dtype=np.int32)
            for i, (qid, (mat, _, _)) in enumerate(zip(qids, mats, strict=True)):
                codes[i * n_runs : (i + 1) * n_runs, : mat.shape[1]] = self._codes(qid, mat)
        num_ret = np.concatenate([m[1] for m in mats])
        present = np.concatenate([m[2] for m in mats])
        row_topic = np.repeat(np.arange(n_topics), n_runs)
        values = np.zeros((len(self.measures), n_topics * n_runs))
        ideals: dict[tuple, BatchIdeal] = {}

        def ideal(gains: tuple | None, dcg: str) -> BatchIdeal:
            if (gains, dcg) not in ideals:
                ideals[gains, dcg] = BatchIdeal(
                    [self._ideal(t, st, gains, dcg) for t, st in zip(ts, stats, strict=True)],
                    row_topic,
                )
            return ideals[gains, dcg]

        index_cache: list[np.ndarray] = []

        def judged_index() -> np.ndarray:
            if not index_cache:
                out = np.full((n_topics * n_runs, codes.shape[1]), -1, dtype=np.int64)
                for i, (qid, (mat, _, _)) in enumerate(zip(qids, mats, strict=True)):
                    ids = self.judgments.topics[qid].docids
                    if ids.size and mat.size:
                        at = np.minimum(np.searchsorted(ids, mat), ids.size - 1)
                        found = np.where(ids[at] == mat, at, -1)
                        out[i * n_runs : (i + 1) * n_runs, : mat.shape[1]] = found
                index_cache.append(out)
            return index_cache[0]

        ctx = KernelContext(
            self.options.version,
            self.options.num_docs,
            ideal,
            qids=qids,
            judgments=self.judgments,
            judged_index=judged_index,
        )
        for (level, judged_only), groups in self._plan:
            view = BatchView(codes, num_ret, row_topic, stats, level, judged_only)
            for family, idx in groups:
                values[idx] = KERNELS[family](view, [self.measures[i] for i in idx], ctx)
                if family == "relstring":
                    for i in idx:
                        width = self.measures[i].at
                        assert width is not None  # relstring's @ defaults to 10
                        strings = relstrings(view, int(width))
                        keep = not _reset_after_bogus(self.measures[i])
                        for row, text in enumerate(strings):
                            t, r = ts[row // n_runs], row % n_runs
                            self._texts[i][r][t] = text if present[row] or keep else ""
        evaluated = present.copy()
        if not present.all():
            absent = ~present
            if policy == "zero":
                # trec_eval 10.0 -c scored the bogus ranking, then resets what it misleads
                values[np.ix_(self._bogus_reset, absent)] = 0.0
                evaluated[:] = True
            else:
                values[:, absent] = np.nan
        values[self._text_rows] = np.nan
        self._values[list(ts)] = values.reshape(-1, n_topics, n_runs).transpose(1, 0, 2)
        self._evaluated[list(ts)] = evaluated.reshape(n_topics, n_runs)
        self._done[list(ts)] = True

    def evaluate(self) -> Results:
        """Compute every topic (those not yet computed) and return the results."""
        batch: list[int] = []
        cells = 0
        for t in np.flatnonzero(~self._done).tolist():
            mat = self._matrix(self._qids[t])[0]
            if batch and cells + mat.size > BATCH_CELLS:
                self._compute(batch)
                batch, cells = [], 0
            batch.append(t)
            cells += mat.size
        if batch:
            self._compute(batch)
        return self.results()

    def results(self) -> Results:
        values = np.moveaxis(self._values, 0, 2)  # (measures, runs, topics), a view
        complete_num_rel = (
            sum(int(np.count_nonzero(tj.grades > 0)) for tj in self.judgments.topics.values())
            if self.options.complete
            else 0
        )
        return Results(
            measures=self.measures,
            run_names=tuple(run.name for run in self.runs),
            runids=tuple(run.tag for run in self.runs),
            qids=tuple(self._qids),
            values=values,
            evaluated=self._evaluated.T,
            texts=self._texts,
            complete=self.options.complete,
            complete_num_rel=complete_num_rel,
        )

    # -- incremental use -----------------------------------------------------------------
    def set_topic_judgments(self, qid: str, docids: object, grades: object) -> None:
        """Replace one topic's judgments (a new qid becomes a new topic)."""
        self.judgments.set_topic(qid, docids, grades)
        self._judged_cache.pop(qid, None)
        # documents no run retrieved change R and the ideal ranking, not the codes
        self._ideals = {k: v for k, v in self._ideals.items() if k[0] != self._topic_index.get(qid)}
        if qid not in self._topic_index:
            self._add_topic(qid)
        else:
            self._done[self._topic_index[qid]] = False

    def _add_topic(self, qid: str) -> None:
        qids = self.judgments.qids
        t = qids.index(qid)
        self._qids = qids
        self._topic_index = {q: i for i, q in enumerate(qids)}
        n_m, n_r = len(self.measures), len(self.runs)
        self._values = np.insert(self._values, t, np.full((n_m, n_r), np.nan), axis=0)
        self._evaluated = np.insert(self._evaluated, t, False, axis=0)
        self._done = np.insert(self._done, t, False)
        for rows in self._texts.values():
            for row in rows:
                row.insert(t, "")
        self._ideals = {}

    def remove_topic(self, qid: str) -> None:
        """Forget a topic (its judgments are gone): trec_eval would not see it at all."""
        t = self._topic_index.get(qid)
        if t is None:
            return
        del self.judgments.topics[qid]
        self._judged_cache.pop(qid, None)
        self._qids = self.judgments.qids
        self._topic_index = {q: i for i, q in enumerate(self._qids)}
        self._values = np.delete(self._values, t, axis=0)
        self._evaluated = np.delete(self._evaluated, t, axis=0)
        self._done = np.delete(self._done, t)
        for rows in self._texts.values():
            for row in rows:
                del row[t]
        self._matrices.pop(qid, None)
        self._ideals = {}

    def recompute_topic(self, qid: str) -> Results:
        """Recompute one topic for every run and return the updated results."""
        self._compute([self._topic_index[qid]])
        return self.results()

    @property
    def qids(self) -> list[str]:
        return list(self._qids)


# runs evaluated together by evaluate_stream: enough to amortise numpy's cost per call,
# few enough that memory stays that of one batch (10 runs of 50 topics x 1000 documents)
STREAM_ENTRIES = 200_000


def evaluate_stream(
    judgments: Judgments,
    runs: Iterable[Run],
    measures: Iterable[Measure | str],
    options: EvalOptions | None = None,
    *,
    batch_entries: int = STREAM_ENTRIES,
) -> Results:
    """Evaluate runs as they come, a batch of about ``batch_entries`` ranked entries at a
    time, and put the results side by side: memory follows the batch, not the number of
    runs (``runs`` may be a generator reading files). The same numbers as one
    :class:`Evaluator` over all the runs; the ideal rankings are built once."""
    parts: list[Results] = []
    resolved: list[Measure | str] = list(measures)
    ideals: dict[tuple, Ideal] = {}
    judged: dict[str, tuple[TopicStats, np.ndarray]] = {}
    for batch in _batches(runs, batch_entries):
        evaluator = Evaluator(judgments, batch, resolved, options)
        resolved = list(evaluator.measures)  # parsed once
        evaluator._ideals = ideals
        evaluator._judged_cache = judged
        parts.append(evaluator.evaluate())
        del batch, evaluator
    if not parts:
        raise EvaluationError("no runs to evaluate")
    return Results.concat(parts)


def _batches(runs: Iterable[Run], batch_entries: int) -> Iterator[list[Run]]:
    batch: list[Run] = []
    entries = 0
    for run in runs:
        batch.append(run)
        entries += run.num_entries
        if entries >= batch_entries:
            yield batch
            batch, entries = [], 0
    if batch:
        yield batch
