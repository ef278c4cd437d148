"""Runs and qrels in the formats of other evaluation libraries, and diversity qrels.

- ranx's JSON (``Run.save("run.json")``, ``Qrels.save("qrels.json")``): one object
  ``{qid: {docno: score or grade}}``;
- Parquet (through pyarrow, installed with ``pip install judgeapp[interop]``) with
  ir_measures' column names ``query_id``, ``doc_id``, ``score`` / ``relevance`` (ranx's
  ``q_id`` is read as ``query_id``);
- TREC diversity qrels (Web track ``qrels.diversity``): ``qid subtopic docno grade``.

The format is told from the content (Parquet's ``PAR1`` magic, a JSON object), never from
the file name; anything else goes to the TREC readers. Runs come out in trec_eval order as
from :func:`judgeapp.formats.read_run`; a docno twice for one topic cannot happen in JSON and
is an error in Parquet.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping

import numpy as np

from judgeapp.formats.columns import GRADE_LIMIT
from judgeapp.formats.errors import FormatError
from judgeapp.formats.jsonrecords import check_characters
from judgeapp.formats.qrels import read_qrels
from judgeapp.formats.run_lines import trec_order
from judgeapp.formats.runs import read_run
from judgeapp.formats.textio import PathArg, open_text
from judgeapp.outputs import writing
from judgeapp.records import QrelsFile, RankedTopic, RunFile


def sniff(path: PathArg) -> str:
    """'parquet', 'json' or 'text' from the first bytes ('text' also when the file cannot be
    read: the TREC readers then say why, naming the file)."""
    import gzip
    import zlib

    from judgeapp.formats.textio import open_bytes  # a pipe or FIFO: read once

    try:
        with open_bytes(path) as fh:
            head = fh.read(64)
        if head[:4] == b"PAR1":
            return "parquet"
        if head[:2] == b"\x1f\x8b":
            with open_bytes(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as fh:
                head = fh.read(64)
    except (OSError, EOFError, zlib.error, FormatError):  # zlib.error: corrupt gzip data
        return "text"
    return "json" if head.lstrip()[:1] == b"{" else "text"


def _load_json(path: str) -> Mapping[str, Mapping[str, object]]:
    with open_text(path) as fh:
        try:
            text = "".join(fh)
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
        except RecursionError:  # a hostile file nesting brackets thousands deep
            raise FormatError(path, None, "JSON nested too deeply") from None
        except ValueError as exc:  # e.g. an integer with too many digits
            raise FormatError(path, None, f"not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise FormatError(path, 1, "expected a JSON object {qid: {docno: value}} (ranx's format)")
    check_characters(path, 1, text, data)
    return data


def _parquet_columns(path: str, value: str) -> tuple[list[str], list[str], np.ndarray]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise FormatError(
            path, None, "reading Parquet needs pyarrow (pip install pyarrow)"
        ) from exc
    table = pq.read_table(path)
    names = {n: n for n in table.column_names}
    if "q_id" in names and "query_id" not in names:
        names["query_id"] = "q_id"
    missing = [c for c in ("query_id", "doc_id", value) if c not in names]
    if missing:
        raise FormatError(
            path, None, f"Parquet file lacks column(s) {', '.join(missing)} (ir_measures' names)"
        )
    qids = [str(q) for q in table.column(names["query_id"]).to_pylist()]
    docs = [str(d) for d in table.column(names["doc_id"]).to_pylist()]
    values = table.column(names[value]).to_numpy()
    return qids, docs, np.asarray(values)


def run_from_columns(
    path: str, qids: list[str], docnos: list[str], scores: np.ndarray, tag: str
) -> RunFile:
    """A RunFile (topics in byte order of qid, each in trec_eval order) from columns in
    any order; a docno twice for one topic is a FormatError."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size and not np.all(np.isfinite(scores)):
        raise FormatError(path, None, "scores must be finite numbers")
    order = sorted(range(len(qids)), key=qids.__getitem__)
    qids = [qids[i] for i in order]
    docnos = [docnos[i] for i in order]
    scores = scores[np.asarray(order, dtype=np.int64)] if order else scores
    lines = np.asarray(order, dtype=np.int64) + 1
    starts = [0] + [i for i in range(1, len(qids)) if qids[i] != qids[i - 1]]
    bounds = np.array([*starts, len(qids)], dtype=np.int64) if qids else np.zeros(1, np.int64)
    docnos, scores, lines = trec_order(docnos, scores, lines, bounds)
    topics: dict[str, RankedTopic] = {}
    for k, lo in enumerate(starts if qids else []):
        hi = int(bounds[k + 1])
        docs = docnos[lo:hi]
        if len(set(docs)) != len(docs):
            dup = next(d for d in docs if docs.count(d) > 1)
            raise FormatError(path, None, f"docno {dup} twice for topic {qids[lo]}")
        topics[qids[lo]] = RankedTopic(docs, scores[lo:hi], lines[lo:hi])
    ordered = dict(sorted(topics.items(), key=lambda kv: kv[0].encode("utf-8", "surrogateescape")))
    return RunFile(path, tag, ordered, len(qids))


def qrels_from_columns(
    path: str, qids: Iterable[str], docnos: Iterable[str], grades: np.ndarray
) -> QrelsFile:
    qids, docnos = list(qids), list(docnos)
    g = np.asarray(grades)
    if g.size and not np.issubdtype(g.dtype, np.integer):
        as_float = g.astype(np.float64)
        if not np.all(np.isfinite(as_float) & (as_float == np.trunc(as_float))):
            raise FormatError(path, None, "relevance grades must be integers")
    if g.size and np.any(np.abs(g.astype(np.float64)) > GRADE_LIMIT):
        raise FormatError(
            path, None, f"relevance grades must be within -{GRADE_LIMIT} to {GRADE_LIMIT}"
        )
    qrels = QrelsFile(
        path, qids, docnos, g.astype(np.int64), np.arange(1, len(qids) + 1, dtype=np.int64)
    )
    from judgeapp.formats.qrels_lines import check_duplicates

    check_duplicates(qrels)
    return qrels


def read_run_any(path: PathArg) -> RunFile:
    """A run in TREC, ranx JSON or Parquet format (told from the content)."""
    path = os.fspath(path)
    kind = sniff(path)
    if kind == "text":
        return read_run(path)
    tag = os.path.basename(path).split(".")[0] or "run"
    if kind == "json":
        data = _load_json(path)
        qids = [str(q) for q, docs in data.items() for _ in docs]
        docs = [str(d) for v in data.values() for d in v]
        try:
            scores = np.array([float(s) for v in data.values() for s in v.values()])  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise FormatError(path, None, f"a score is not a number: {exc}") from exc
        return run_from_columns(path, qids, docs, scores, tag)
    qids, docs, scores = _parquet_columns(path, "score")
    return run_from_columns(path, qids, docs, scores, tag)


def read_qrels_any(path: PathArg) -> QrelsFile:
    """Qrels in TREC (or a classic format), ranx JSON or Parquet format."""
    path = os.fspath(path)
    kind = sniff(path)
    if kind == "text":
        return read_qrels(path)
    if kind == "json":
        data = _load_json(path)
        qids = [str(q) for q, docs in data.items() for _ in docs]
        docs = [str(d) for v in data.values() for d in v]
        grades = np.array([g for v in data.values() for g in v.values()])
        if grades.size and (grades.dtype.kind not in "iubf" or grades.ndim != 1):
            raise FormatError(path, None, "relevance grades must be integers")
        return qrels_from_columns(path, qids, docs, grades)
    qids, docs, grades = _parquet_columns(path, "relevance")
    return qrels_from_columns(path, qids, docs, grades)


def write_run_json(run: RunFile, out: PathArg) -> None:
    """ranx's JSON run format."""
    data = {
        qid: dict(zip(t.docnos, t.scores.tolist(), strict=True)) for qid, t in run.topics.items()
    }
    for qid, t in run.topics.items():
        if not np.isfinite(t.scores).all():  # JSON has no NaN or infinity
            bad = float(t.scores[~np.isfinite(t.scores)][0])
            raise FormatError(
                out, None, f"topic {qid}: score {bad} is no number JSON can hold; nothing written"
            )
    with writing(out) as fh:  # whole or not at all
        json.dump(data, fh, allow_nan=False)


def read_subtopic_qrels(path: PathArg) -> dict[str, dict[str, dict[str, int]]]:
    """Diversity qrels ``qid subtopic docno grade`` (TREC Web track, ndeval's input) as
    ``{qid: {subtopic: {docno: grade}}}``; comment lines (``#``) and blank lines skipped."""
    path = os.fspath(path)
    out: dict[str, dict[str, dict[str, int]]] = {}
    with open_text(path) as fh:
        for n, line in enumerate(fh, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 4:
                raise FormatError(path, n, "expected 4 columns: qid subtopic docno grade")
            qid, sub, docno, grade = fields
            try:
                g = int(grade)
            except ValueError as exc:
                raise FormatError(path, n, f"grade {grade!r} is not an integer") from exc
            topic = out.setdefault(qid, {}).setdefault(sub, {})
            if docno in topic:
                raise FormatError(path, n, f"docno {docno} twice for topic {qid} subtopic {sub}")
            topic[docno] = g
    return out
