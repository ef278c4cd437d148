"""SMART-style files of the classic collections (Cranfield, CISI, CACM).

A record starts with ``.I id`` and holds fields, each opened by a line with a single marker
(``.T`` title, ``.A`` authors, ``.B`` bibliographic source, ``.W`` text, ``.K`` keywords,
``.C`` categories, ``.N`` entry note, ``.X`` cross-references); a field's text is the lines
up to the next marker. A marker repeated within one record (Cranfield has a few damaged
records, CISI lists each author under its own ``.A``) adds its lines to the same field.
Cranfield's CRLF line ends are handled by the text layer.

Documents keep their id as written: ``.I 1`` is document ``"1"``. Cranfield's documents 471
and 995 have markers but no text and are kept as empty documents.

Queries are numbered by position: the n-th query of the file is topic ``str(n)``, and the
``.I`` as written is kept in ``fields["smart_id"]``. This is the rule the relevance files
follow: ``cran.qry`` numbers its queries 1, 2, 4, 8, 9, ... while ``cranqrel`` calls them
1..225 in file order. In CISI and CACM position and ``.I`` coincide. A final record with no
fields at all is an end marker, not a record (CACM's ``query.text`` ends with ``.I 0``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_text
from judgeapp.records import Document, Topic

FIELD_NAMES = {
    "T": "title",
    "W": "text",
    "A": "authors",
    "B": "bibliography",
    "K": "keywords",
    "C": "categories",
    "N": "note",
    "X": "cross_references",
}

_RECORD = re.compile(r"\.I(?:[ \t]+(\S+))?[ \t]*\n?")
_MARKER = re.compile(r"\.([A-Z])[ \t]*\n?")


@dataclass(slots=True)
class SmartRecord:
    smart_id: str
    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)  # marker letter -> lines

    def text(self, letter: str) -> str:
        return "\n".join(self.fields.get(letter, ())).strip()


def iter_records(path: PathArg) -> Iterator[SmartRecord]:
    """Every ``.I`` record of the file with its fields' raw lines."""
    path = os.fspath(path)
    current: SmartRecord | None = None
    letter: str | None = None
    with open_text(path) as lines:
        for line_no, line in enumerate(lines, 1):
            if line.startswith("."):
                if line.startswith(".I") and (len(line) == 2 or line[2] in " \t\n"):
                    match = _RECORD.fullmatch(line)
                    if match is None or match.group(1) is None:
                        raise FormatError(
                            path, line_no, f"expected '.I <id>', found {line.strip()!r}"
                        )
                    if current is not None:
                        yield current
                    current = SmartRecord(match.group(1), line_no)
                    letter = None
                    continue
                marker = _MARKER.fullmatch(line)
                if marker is not None:
                    if current is None:
                        raise FormatError(path, line_no, f"field .{marker.group(1)} before any .I")
                    letter = marker.group(1)
                    current.fields.setdefault(letter, [])
                    continue
            if current is None or letter is None:
                if line.strip():
                    where = "before the first .I" if current is None else "after .I"
                    raise FormatError(
                        path, line_no, f"text {where} without a field marker (.T, .W, ...)"
                    )
                continue
            current.fields[letter].append(line.rstrip())
    # a last record without any field is an end marker (CACM query.text ends with ".I 0")
    if current is not None and current.fields:
        yield current


def _title(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _extra(record: SmartRecord, skip: tuple[str, ...], names: dict[str, str]) -> dict:
    return {
        names.get(letter, FIELD_NAMES.get(letter, letter)): record.text(letter)
        for letter in record.fields
        if letter not in skip
    }


def read_smart_documents(path: PathArg) -> Iterator[Document]:
    for rec in iter_records(path):
        yield Document(
            docno=rec.smart_id,
            title=_title(rec.fields.get("T", [])),
            text=rec.text("W"),
            fields=_extra(rec, ("T", "W"), {}),
            line=rec.line,
        )


def read_smart_topics(path: PathArg) -> list[Topic]:
    topics = []
    for n, rec in enumerate(iter_records(path), 1):
        fields = {"smart_id": rec.smart_id}
        # a query's .T is the title of the paper it came from (CISI), not a topic title
        fields.update(_extra(rec, ("W",), {"T": "source_title"}))
        topics.append(
            Topic(qid=str(n), title=" ".join(rec.text("W").split()), fields=fields, line=rec.line)
        )
    if not topics:
        raise FormatError(path, None, "no topics found (no .I records)")
    return topics
