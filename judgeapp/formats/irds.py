"""Topics, documents and qrels of an ir_datasets dataset (``irds:DATASET_ID``).

ir_datasets (``pip install judgeapp[irds]``) reads its local cache (``~/.ir_datasets``, or
``IR_DATASETS_HOME``); a dataset not there yet is downloaded by ir_datasets itself when the
network allows; offline, a dataset not there is refused in one paragraph saying how to make
it available (`_unavailable`). Records are mapped to judgeapp's:
a query's ``title``/``description``/``narrative`` (or its ``text`` as the title), a
document's ``title`` and ``text`` (or ``body``), other fields kept in ``fields``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from judgeapp.formats.errors import FormatError
from judgeapp.records import Document, QrelsFile, Topic

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


def _unavailable(source: str, exc: BaseException) -> FormatError:
    """One paragraph instead of ir_datasets' traceback when a dataset's files are neither in
    its local copy nor downloadable (offline, or a source gone): which dataset, where
    ir_datasets looks, and how to make it available."""
    try:
        from ir_datasets.util import home_path

        home = str(home_path())
    except Exception:  # an older ir_datasets: its documented default
        home = "~/.ir_datasets"
    reason = " ".join(str(exc.args[0] if exc.args else exc).split())[:200]
    return FormatError(
        source,
        None,
        f"ir_datasets could not read dataset {source[len(PREFIX) :]!r}: its files are not in "
        f"ir_datasets' local copy ({home}; IR_DATASETS_HOME names another folder) and "
        f"getting them failed ({reason}; no network?). To use it offline: run this "
        "command once on a machine with the network and copy that folder here (pointing "
        "IR_DATASETS_HOME at it), or put a copy of the file where ir_datasets' [INFO] "
        "lines above say, or import the file itself (import topics|docs|qrels DB FILE). "
        "Nothing was imported.",
    )


# what ir_datasets raises when a file is missing and cannot be downloaded: RuntimeError
# ("All download sources failed"), or an OSError (requests' ConnectionError is one)
UNAVAILABLE = (RuntimeError, OSError)


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
    try:
        queries = list(ds.queries_iter())
    except UNAVAILABLE as exc:
        raise _unavailable(source, exc) from exc
    for q in queries:
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
    docs = iter(ds.docs_iter())
    while True:
        try:
            d = next(docs)
        except StopIteration:
            return
        except UNAVAILABLE as exc:
            raise _unavailable(source, exc) from exc
        yield Document(str(d.doc_id), _text(d, "title"), _text(d, "text", "body"), _extra(d, used))


def irds_qrels(source: str) -> QrelsFile:
    ds = _dataset(source)
    if not ds.has_qrels():
        raise FormatError(source, None, "the dataset has no qrels")
    qids, docnos, grades = [], [], []
    try:
        for r in ds.qrels_iter():
            qids.append(str(r.query_id))
            docnos.append(str(r.doc_id))
            grades.append(int(r.relevance))
    except UNAVAILABLE as exc:
        raise _unavailable(source, exc) from exc
    qrels = QrelsFile(
        source, qids, docnos, np.asarray(grades, dtype=np.int64), np.arange(1, len(qids) + 1)
    )
    from judgeapp.formats.qrels_lines import check_duplicates

    check_duplicates(qrels)
    return qrels
