"""Streaming, validated readers and writers for topics, documents, runs and qrels.

Every reader accepts a path (str or PathLike) to a plain or compressed file (gzip, bzip2,
xz: recognised by content), requires UTF-8, detects the format from the content unless
``fmt`` names it, and raises :class:`FormatError` naming the file, the line and the
problem. Ids are kept as written (``"01"`` and ``"1"`` differ) except where a classic
collection's documented rule says otherwise (:mod:`judgeapp.formats.qrels`,
:mod:`judgeapp.formats.smart`).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgeapp.formats.detect import FORMATS, detect_format
    from judgeapp.formats.documents import iter_documents, read_documents
    from judgeapp.formats.errors import FormatError
    from judgeapp.formats.qrels import read_qrels, write_qrels
    from judgeapp.formats.runs import read_run
    from judgeapp.formats.textio import open_text
    from judgeapp.formats.topics import read_topics
    from judgeapp.records import Document, QrelsFile, RankedTopic, RunFile, Topic

# each name's module (the records the readers produce live in judgeapp.records), imported
# when the name is first asked for: a command that reads runs and qrels (evaluate) does not
# load the documents' and topics' readers (0.06 s of its start)
_MODULE_OF = {
    "FORMATS": "judgeapp.formats.detect",
    "detect_format": "judgeapp.formats.detect",
    "iter_documents": "judgeapp.formats.documents",
    "read_documents": "judgeapp.formats.documents",
    "FormatError": "judgeapp.formats.errors",
    "Document": "judgeapp.records",
    "QrelsFile": "judgeapp.records",
    "RankedTopic": "judgeapp.records",
    "RunFile": "judgeapp.records",
    "Topic": "judgeapp.records",
    "read_qrels": "judgeapp.formats.qrels",
    "write_qrels": "judgeapp.formats.qrels",
    "read_run": "judgeapp.formats.runs",
    "open_text": "judgeapp.formats.textio",
    "read_topics": "judgeapp.formats.topics",
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "FORMATS",
    "Document",
    "FormatError",
    "QrelsFile",
    "RankedTopic",
    "RunFile",
    "Topic",
    "detect_format",
    "iter_documents",
    "open_text",
    "read_documents",
    "read_qrels",
    "read_run",
    "read_topics",
    "write_qrels",
]
