"""Topics, documents and qrels of an ir_datasets dataset (``irds:DATASET_ID``).

ir_datasets (``pip install judgeapp[irds]``) reads its local cache (``~/.ir_datasets``, or
``IR_DATASETS_HOME``); a dataset not there yet is downloaded by ir_datasets itself when the
network allows, else its own error says what is missing. Records are mapped to judgeapp's:
a query's ``title``/``description``/``narrative`` (or its ``text`` as the title), a
document's ``title`` and ``text`` (or ``body``), other fields kept in ``fields``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from judgeapp.formats.errors import FormatError
from judgeapp.formats.model import Document, QrelsFile, Topic

PREFIX = "irds:"


def is_irds(source: object) -> bool:
    return isinstance(source, str) and source.startswith(PREFIX)


def _dataset(source: str) -> Any:
    try:
        import ir_datasets
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise FormatError(
            source, None, "irds: sources need ir_datasets (pip install ir-datasets)"
        ) from exc
    name = source[len(PREFIX) :]
    try:
        return ir_datasets.load(name)
    except KeyError as exc:
        raise FormatError(source, None, f"ir_datasets has no dataset {name!r}") from exc


def _text(record: Any, *names: str) -> str:
    for name in names:
        value = getattr(record, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _extra(record: Any, used: set[str]) -> dict[str, Any]:
    return {
        k: v
        for k, v in record._asdict().items()
        if k not in used and isinstance(v, str | int | float)
    }


def irds_topics(source: str) -> list[Topic]:
    ds = _dataset(source)
    if not ds.has_queries():
        raise FormatError(source, None, "the dataset has no queries")
    out = []
    for q in ds.queries_iter():
        title = _text(q, "title", "text", "query")
        used = {"query_id", "title", "text", "query", "description", "narrative"}
        out.append(
            Topic(
                str(q.query_id),
                title,
                _text(q, "description"),
                _text(q, "narrative"),
                _extra(q, used),
            )
        )
    return out


def irds_documents(source: str) -> Iterator[Document]:
    ds = _dataset(source)
    if not ds.has_docs():
        raise FormatError(source, None, "the dataset has no documents")
    used = {"doc_id", "title", "text", "body"}
    for d in ds.docs_iter():
        yield Document(str(d.doc_id), _text(d, "title"), _text(d, "text", "body"), _extra(d, used))


def irds_qrels(source: str) -> QrelsFile:
    ds = _dataset(source)
    if not ds.has_qrels():
        raise FormatError(source, None, "the dataset has no qrels")
    qids, docnos, grades = [], [], []
    for r in ds.qrels_iter():
        qids.append(str(r.query_id))
        docnos.append(str(r.doc_id))
        grades.append(int(r.relevance))
    qrels = QrelsFile(
        source, qids, docnos, np.asarray(grades, dtype=np.int64), np.arange(1, len(qids) + 1)
    )
    from judgeapp.formats.qrels_lines import check_duplicates

    check_duplicates(qrels)
    return qrels
