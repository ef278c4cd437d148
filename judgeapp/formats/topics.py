"""Topic files.

Formats:

- ``trec``: TREC SGML ``<top> ... </top>`` in all its variants (ad hoc 51-550 including the
  Tipster ``<head> <num> <dom> <title> <desc> <smry> <narr> <con> <fac> <def>`` style,
  Robust04/05, Terabyte, Core17, and Core18 with closing tags). The qid is the ``<num>``
  value as written, without its ``Number:`` label (``<num> Number: 051`` is topic
  ``"051"``). ``title``, ``desc`` and ``narr`` lose their labels (``Topic:``,
  ``Description:``, ``Narrative:``); every other tag (``head``, ``dom``, ``smry``, ``con``,
  ``fac``, ``def``, ``nat``, ``time``, ...) is kept in ``fields`` under its lower-cased name,
  label removed. Topic files in ``<DOC><DOCNO>n</DOCNO> text </DOC>`` form (Anserini's
  CACM queries) are read too: the docno is the qid, the text the title.
- ``xml``: Web track (``<topic number= type=>`` with ``<query>``, ``<description>`` and
  ``<subtopic number= type=>``) and TREC-COVID (``<query>``, ``<question>``,
  ``<narrative>``). query -> title, description/question -> description, narrative ->
  narrative; subtopics go to ``fields["subtopics"]`` as a list of ``{"number", "type",
  "text"}``, the topic's other attributes (``type``) to ``fields``.
- ``tsv``: ``qid<TAB>text`` (TREC DL); the text is the title.
- ``jsonl``: JSON Lines or a JSON array of objects. qid: the first of ``qid``, ``query_id``,
  ``topic_id``, ``id``, ``_id``, ``number``, ``num``; title: ``title``, ``query`` or
  ``text``; description: ``description``, ``desc`` or ``question``; narrative:
  ``narrative`` or ``narr``; the rest to ``fields``.
- ``smart``: query files of the classic collections, numbered by position
  (:mod:`judgeapp.formats.smart`); the query text is the title.

A qid defined twice in one file is an error naming both lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any
from xml.parsers import expat

from judgeapp.formats.checks import unique_records
from judgeapp.formats.detect import first_tag, resolve_format
from judgeapp.formats.errors import FormatError
from judgeapp.formats.jsonrecords import as_id, as_text, iter_objects, pick
from judgeapp.formats.sgml import clean, iter_elements, one_line
from judgeapp.formats.smart import read_smart_topics
from judgeapp.formats.textio import PathArg, head_text, open_chunks, open_text
from judgeapp.records import Topic

# labels written after a tag, stripped from its value; ":" is optional only when the label
# ends its line (Core18 writes "<narr> Narrative" on a line of its own)
_LABELS = {
    "num": r"number",
    "title": r"topic",
    "desc": r"description",
    "narr": r"narrative",
    "smry": r"summary",
    "dom": r"domain",
    "con": r"concepts?|concept\(s\)",
    "fac": r"factors?|factor\(s\)",
    "def": r"definitions?|definition\(s\)",
    "nat": r"nationality",
    "time": r"time",
    "price": r"price",
}
_LABEL_RE = {
    tag: re.compile(rf"\s*(?:{label})(?:[ \t]*:|[ \t]*(?=\n|$))", re.I)
    for tag, label in _LABELS.items()
}
_MAIN = ("title", "desc", "narr")
_TOP_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)(?:\s[^>]*)?>")


def _unlabel(tag: str, value: str) -> str:
    label = _LABEL_RE.get(tag)
    if label is not None:
        match = label.match(value)
        if match is not None:
            return value[match.end() :]
    return value


def _sgml_top(path: str, line: int, body: str) -> Topic:
    values: dict[str, list[str]] = {}
    current: str | None = None
    pos = 0
    for match in _TOP_TAG.finditer(body):
        if current is not None:
            values[current].append(body[pos : match.start()])
        if match.group(1):
            current = None
        else:
            current = match.group(2).lower()
            values.setdefault(current, [])
        pos = match.end()
    if current is not None:
        values[current].append(body[pos:])
    if "num" not in values:
        raise FormatError(path, line, "topic has no <num>")
    number = clean(_unlabel("num", "".join(values.pop("num")))).split()
    if not number:
        raise FormatError(path, line, "empty <num> (no topic number)")
    text = {tag: clean(_unlabel(tag, "".join(parts))) for tag, parts in values.items()}
    fields = {tag: value for tag, value in text.items() if value and tag not in _MAIN}
    title = " ".join(text.get("title", "").split())
    return Topic(
        qid=number[0],
        title=title,
        description=text.get("desc", ""),
        narrative=text.get("narr", ""),
        fields=fields,
        line=line,
    )


def _sgml_doc(path: str, line: int, body: str) -> Topic:
    match = re.search(r"<DOCNO>(.*?)</DOCNO>", body, re.S | re.I)
    if match is None:
        raise FormatError(path, line, "topic <DOC> has no <DOCNO>")
    qid = clean(match.group(1))
    if not qid or len(qid.split()) != 1:
        raise FormatError(path, line, f"bad topic number {qid!r} in <DOCNO>")
    rest = body[: match.start()] + body[match.end() :]
    return Topic(qid=qid, title=one_line(rest), line=line)


def _trec(path: str) -> list[Topic]:
    if first_tag(head_text(path)[1]) == "doc":
        return [_sgml_doc(path, line, body) for line, _, body in iter_elements(path, "DOC")]
    return [_sgml_top(path, line, body) for line, _, body in iter_elements(path, "top")]


_XML_TITLE = ("query", "title")
_XML_DESCRIPTION = ("description", "question", "desc")
_XML_NARRATIVE = ("narrative", "narr")


class _XmlTopics:
    """expat handlers collecting <topic> elements at any depth."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.topics: list[Topic] = []
        self.parser = expat.ParserCreate()
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.data
        self.topic: dict[str, Any] | None = None
        self.child: str | None = None
        self.child_attrs: dict[str, str] = {}
        self.buf: list[str] = []

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "topic":
            line = self.parser.CurrentLineNumber
            number = attrs.get("number", attrs.get("id", "")).strip()
            if not number:
                raise FormatError(self.path, line, "<topic> without a number attribute")
            extra = {k: v for k, v in attrs.items() if k not in ("number", "id")}
            self.topic = {"qid": number, "line": line, "fields": extra}
        elif self.topic is not None:
            self.child, self.child_attrs, self.buf = name, dict(attrs), []

    def data(self, text: str) -> None:
        if self.child is not None:
            self.buf.append(text)

    def end(self, name: str) -> None:
        topic = self.topic
        if topic is None:
            return
        if name == "topic":
            fields = topic["fields"]
            self.topics.append(
                Topic(
                    qid=topic["qid"],
                    title=topic.get("title", ""),
                    description=topic.get("description", ""),
                    narrative=topic.get("narrative", ""),
                    fields=fields,
                    line=topic["line"],
                )
            )
            self.topic = None
        elif name == self.child:
            value = " ".join("".join(self.buf).split())
            if name == "subtopic":
                entry = {"number": self.child_attrs.get("number", ""), **self.child_attrs}
                entry["text"] = value
                topic["fields"].setdefault("subtopics", []).append(entry)
            elif name in _XML_TITLE and "title" not in topic:
                topic["title"] = value
            elif name in _XML_DESCRIPTION and "description" not in topic:
                topic["description"] = value
            elif name in _XML_NARRATIVE and "narrative" not in topic:
                topic["narrative"] = value
            else:
                topic["fields"][name] = value
            self.child = None


def _xml(path: str) -> list[Topic]:
    reader = _XmlTopics(path)
    try:
        with open_chunks(path) as chunks:  # fed piece by piece: expat keeps no copy
            for chunk in chunks:
                reader.parser.Parse(chunk.text, False)
        reader.parser.Parse("", True)
    except expat.ExpatError as exc:
        raise FormatError(
            path, exc.lineno, f"XML error: {expat.errors.messages[exc.code]}"
        ) from None
    return reader.topics


def _tsv(path: str) -> list[Topic]:
    topics = []
    with open_text(path) as lines:
        for line_no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            qid, tab, text = line.rstrip("\n").partition("\t")
            qid = qid.strip()
            if not tab:
                raise FormatError(path, line_no, "expected qid<TAB>text, found no tab")
            if not qid or len(qid.split()) != 1:
                raise FormatError(path, line_no, f"bad qid {qid!r} (empty or with spaces)")
            topics.append(Topic(qid=qid, title=" ".join(text.split()), line=line_no))
    return topics


_JSON_ID = ("qid", "query_id", "topic_id", "id", "_id", "number", "num")
_JSON_TITLE = ("title", "query", "text")


def _json(path: str) -> list[Topic]:
    topics = []
    for line, obj in iter_objects(path):
        if not isinstance(obj, dict):
            raise FormatError(path, line, f"expected a JSON object, found {type(obj).__name__}")
        key, ident = pick(obj, _JSON_ID)
        if key is None:
            if obj and all(isinstance(v, dict) and "reader_class" in v for v in obj.values()):
                raise FormatError(
                    path,
                    line,
                    "this is an Anserini topic registry (names of topic sets, each with "
                    "a path and a reader_class), not topics: import the topic files it names",
                )
            raise FormatError(
                path, line, f"no topic id (expected one of the keys {', '.join(_JSON_ID)})"
            )
        used = {key}
        parts = {}
        for name, keys in (
            ("title", _JSON_TITLE),
            ("description", _XML_DESCRIPTION),
            ("narrative", _XML_NARRATIVE),
        ):
            k, value = pick(obj, keys)
            if k is not None:
                used.add(k)
                parts[name] = " ".join(as_text(path, line, value, k).split())
        fields = {k: v for k, v in obj.items() if k not in used}
        topics.append(Topic(qid=as_id(path, line, ident, key), fields=fields, line=line, **parts))
    return topics


_READERS: dict[str, Callable[[str], list[Topic]]] = {
    "trec": _trec,
    "xml": _xml,
    "tsv": _tsv,
    "jsonl": _json,
    "smart": read_smart_topics,
}


def read_topics(path: PathArg, fmt: str | None = None) -> list[Topic]:
    """All topics of a file in file order (``fmt`` detected from the content if None)."""
    path = os.fspath(path)
    topics = _READERS[resolve_format(path, "topics", fmt)](path)
    return list(unique_records(path, topics, "topic", "no topics found"))
