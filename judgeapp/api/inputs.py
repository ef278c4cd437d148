"""What the Python API takes as qrels and runs (judgeapp.api): dicts as pytrec_eval takes
them, pandas DataFrames with ir_measures' columns, iterables of ir_measures' namedtuples,
ranx objects and paths, turned into the engine's judgments and runs (a run in trec_eval's
order whatever order it comes in)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from typing import Any, cast

import numpy as np

from judgeapp.measures import Judgments, Run, TopicJudgments, Vocabulary


def is_frame(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] in ("pandas", "polars") and hasattr(obj, "columns")


def is_ranx(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] == "ranx"


def frame_columns(obj: Any, value: str) -> tuple[list[str], list[str], np.ndarray]:
    """(qids, docnos, values) of a DataFrame or an iterable of namedtuples/records."""
    if is_frame(obj):
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


def plain_dict(qrels: object) -> tuple[Judgments, dict[str, dict[str, int]]] | None:
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
    if is_frame(obj):
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
    if is_ranx(qrels):
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
    if not is_frame(qrels):
        qrels = list(cast(Iterable[Any], qrels))
    qids, docs, values = frame_columns(qrels, "relevance")
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
        if is_ranx(run):
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
        q, d, sc = frame_columns(run, "score")
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
