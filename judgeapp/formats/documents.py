"""Document collections, streamed one document at a time (collections can be gigabytes).

Formats:

- ``trec``: TREC SGML, ``<DOC> <DOCNO>id</DOCNO> ... </DOC>`` (or ``<DOC id="...">`` without
  a DOCNO, as in AQUAINT-2; the DOC tag's other attributes go to ``fields``). The title is
  the first of
  ``HEADLINE``, ``TITLE``, ``HEAD``, ``HL``, ``TI``, ``DOCTITLE`` (looked for at the top level
  first, then inside other elements such as FBIS's ``<HEADER>``); the text is every
  ``TEXT``, ``BODY``, ``LP``, ``LEADPARA`` or ``ABSTRACT`` element in order, plus any text not
  inside an element; every other element goes to ``fields`` under its lower-cased tag name
  (``docid``, ``date``, ``byline``, ``dateline``, ``section``, further title elements, ...).
  Markup inside values is removed (``<P>`` becomes a line break).
- ``jsonl``: one JSON object per line (or one JSON array). The id is the first of the keys
  ``docno``, ``doc_id``, ``docid``, ``id``, ``_id``; the text the first of ``text``,
  ``contents``, ``body``, ``abstract``; the title ``title``; all other keys go to ``fields``.
- ``tsv``: ``docno<TAB>text``, ``docno<TAB>title<TAB>text`` or, as in MS MARCO's document
  collection, ``docno<TAB>url<TAB>title<TAB>text``; the first line fixes the layout.
- ``smart``: the ``.I .T .A .B .W ...`` files of Cranfield, CISI and CACM
  (:mod:`judgeapp.formats.smart`).

A docno must be non-empty and free of white space (runs and qrels could not name it
otherwise), and may appear once per file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from judgeapp.formats.checks import unique_records
from judgeapp.formats.detect import resolve_format
from judgeapp.formats.errors import FormatError
from judgeapp.formats.jsonrecords import as_id, as_text, iter_objects, pick
from judgeapp.formats.sgml import clean, clean_many, iter_elements
from judgeapp.formats.smart import read_smart_documents
from judgeapp.formats.textio import PathArg, open_text
from judgeapp.records import Document

TITLE_TAGS = ("HEADLINE", "TITLE", "HEAD", "HL", "TI", "DOCTITLE")
TEXT_TAGS = ("TEXT", "BODY", "LP", "LEADPARA", "ABSTRACT")
ID_KEYS = ("docno", "doc_id", "docid", "id", "_id")
TEXT_KEYS = ("text", "contents", "body", "abstract")

_OPEN_TAG = re.compile(r"<([A-Za-z][\w.-]*)(?:\s[^>]*)?>")
_CLOSE_END = re.compile(r"\s*>")
_DOCNO = re.compile(r"<DOCNO(?:\s[^>]*)?>(.*?)</DOCNO\s*>", re.S | re.I)
_NESTED_TITLE = re.compile(
    r"<(" + "|".join(TITLE_TAGS) + r")(?:\s[^>]*)?>(.*?)</\1\s*>", re.S | re.I
)
# documents cleaned together (see clean_many), by characters of their bodies: enough to
# make the passes long, few enough that the batch's buffers stay under glibc's 128 KiB
# mmap threshold. Larger buffers are given back to the system after each batch and fault
# in again for the next (measured: 256 documents of 3 KB, 3 page faults a document and
# 18% of the reading time; 32 KiB, none)
_BATCH_CHARS = 1 << 15


def _check_docno(path: str, line: int, docno: str) -> str:
    if not docno:
        raise FormatError(path, line, "empty docno")
    if len(docno.split()) != 1:
        raise FormatError(path, line, f"docno {docno!r} contains white space")
    return docno


@dataclass(slots=True)
class _RawDocument:
    """A document whose field contents wait for clean_many: indexes into the batch's
    contents, counted from ``base`` (title -1: none), attribute values kept as they are."""

    docno: str
    line: int
    base: int
    title: int
    texts: Sequence[int]
    fields: Mapping[str, Sequence[str | int]]


_TITLES = frozenset(TITLE_TAGS)
_TEXTS = frozenset(TEXT_TAGS)


def _parse_trec(
    path: str, line: int, attrs: dict[str, str], body: str, contents: list[str]
) -> tuple[_RawDocument, tuple[str, ...] | None]:
    r"""The elements of a document are the matches that ``finditer`` would give of
    ``<(NAME)(\s[^>]*)?>(.*?)</NAME\s*>`` (re.S, the name's case kept), found with
    ``str.find`` for the closing tag instead of trying the pattern's lazy ``.*?`` at every
    character of the content; an opening tag never closed is passed over (the scan goes
    on after its ``<``). Contents wait in ``contents`` for clean_many.

    Also returns the names of the elements in order when the document is plain enough
    for a :class:`_Layout` (its first element DOCNO, no attributes, nothing but white
    space between elements), else None."""
    found = _DOCNO.search(body)
    if found is not None:
        docno = clean(found.group(1))
    elif "id" in attrs:  # <DOC id="APW_ENG_19980601.0001" type="story"> (AQUAINT-2)
        docno = attrs["id"].strip()
    else:
        raise FormatError(path, line, "document has no <DOCNO> (nor an id attribute)")
    docno = _check_docno(path, line, docno)

    base = len(contents)
    title = -1
    texts: list[int] = []
    fields: dict[str, list[str | int]] = {k: [v] for k, v in attrs.items() if k != "id" or found}
    rest: list[str] = []  # the text between elements
    names: list[str] = []
    plain = not attrs
    pos = scan = 0
    search, find, close_end = _OPEN_TAG.search, body.find, _CLOSE_END.match
    while (opening := search(body, scan)) is not None:
        tag = opening.group(1)
        closing = "</" + tag
        at = inner = opening.end()
        while (shut := find(closing, at)) >= 0:
            end = close_end(body, shut + len(closing))
            if end is not None:
                break
            at = shut + 1
        else:
            scan = opening.start() + 1  # never closed: the scan goes on after its '<'
            continue
        rest.append(body[pos : opening.start()])
        pos = scan = end.end()
        names.append(tag)
        plain = plain and inner - opening.start() == len(tag) + 2  # no attributes
        name = tag.upper()
        if name == "DOCNO":
            continue
        contents.append(body[inner:shut])
        if name in _TITLES and title < 0:
            title = len(contents) - 1 - base
        elif name in _TEXTS:
            texts.append(len(contents) - 1 - base)
        else:
            fields.setdefault(name.lower(), []).append(len(contents) - 1 - base)
    rest.append(body[pos:])
    loose = "".join(rest)
    if loose and not loose.isspace():  # text outside any element is still the text
        contents.append(loose)
        texts.append(len(contents) - 1 - base)
        plain = False
    if title < 0:
        nested = _NESTED_TITLE.search(body)
        if nested is not None:
            contents.append(nested.group(2))
            title = len(contents) - 1 - base
    raw = _RawDocument(docno, line, base, title, texts, fields)
    return raw, tuple(names) if plain and names and names[0].upper() == "DOCNO" else None


@dataclass(frozen=True, slots=True)
class _Layout:
    r"""The elements of a plain document (see _parse_trec), in order, as one pattern that
    takes a document of exactly that layout at once and gives each element's content as
    _parse_trec would (its first ``</NAME\s*>``, white space between elements), with
    where each content goes (indexes among the contents, DOCNO's left out).

    ``block`` takes white space and then a whole ``<DOC>`` block of that layout out of a
    file's text (see iter_elements' ``quick``): the same pattern between ``(<DOC>)`` and
    ``</DOC>``, whose contents hold nothing that could be a DOC tag (such a block is left
    to the scan for DOC tags, which would end the block there)."""

    pattern: re.Pattern[str]
    block: re.Pattern[str]
    title: int
    texts: tuple[int, ...]
    fields: Mapping[str, tuple[int, ...]]

    @classmethod
    def of(cls, names: tuple[str, ...]) -> _Layout:
        title = -1
        texts: list[int] = []
        fields: dict[str, list[int]] = {}
        at = 0  # index of the next content
        groups = []
        for tag in names[1:]:
            name = tag.upper()
            if name == "DOCNO":
                groups.append("(?:")
            else:
                groups.append("(")
                if name in _TITLES and title < 0:
                    title = at
                elif name in _TEXTS:
                    texts.append(at)
                else:
                    fields.setdefault(name.lower(), []).append(at)
                at += 1

        def body(no_doc_tag: str) -> str:
            first = re.escape(names[0])
            parts = [rf"\s*+<{first}>([^<]*+)</{first}\s*>"]  # DOCNO: as _DOCNO takes it
            for tag, group in zip(names[1:], groups, strict=True):
                t = re.escape(tag)
                parts.append(
                    rf"\s*+<{t}>{group}[^<]*+(?:<(?!/{t}\s*>{no_doc_tag})[^<]*+)*+)</{t}\s*>"
                )
            parts.append(r"\s*+")
            return "".join(parts)

        return cls(
            re.compile(body("")),
            re.compile(r"\s*+(<DOC>)" + body(r"|(?i:/?doc)[\s>]") + "</DOC>"),
            title,
            tuple(texts),
            {k: tuple(v) for k, v in fields.items()},
        )


def _parse_by_layout(
    path: str,
    line: int,
    groups: Sequence[str],
    layout: _Layout,
    contents: list[str],
    body: str,
    start: int = 0,
    end: int | None = None,
) -> _RawDocument:
    """What _parse_trec gives for a document that ``layout`` matches: ``groups`` are the
    match's groups from the docno on, ``body[start:end]`` the document."""
    docno = _check_docno(path, line, clean(groups[0]))
    base = len(contents)
    contents.extend(groups[1:])
    title = layout.title
    if title < 0:
        nested = _NESTED_TITLE.search(body, start, len(body) if end is None else end)
        if nested is not None:
            contents.append(nested.group(2))
            title = len(contents) - 1 - base
    return _RawDocument(docno, line, base, title, layout.texts, layout.fields)


def _finish(raw: list[_RawDocument], contents: list[str]) -> Iterator[Document]:
    cleaned = clean_many(contents)
    for doc in raw:
        base = doc.base
        fields = {
            key: cleaned[base + values[0]]
            if len(values) == 1 and isinstance(values[0], int)
            else "\n".join(v if isinstance(v, str) else cleaned[base + v] for v in values)
            for key, values in doc.fields.items()
        }
        texts = doc.texts
        if len(texts) == 1:
            text = cleaned[base + texts[0]]
        else:
            text = "\n\n".join(t for t in (cleaned[base + i] for i in texts) if t)
        yield Document(
            docno=doc.docno,
            title=" ".join(cleaned[base + doc.title].split()) if doc.title >= 0 else "",
            text=text,
            fields=fields,
            line=doc.line,
        )


# layouts learnt per file: a collection has a few (elements present or not), a file of
# hand-made documents could have one per document
_MAX_LAYOUTS = 64


def _trec(path: str) -> Iterator[Document]:
    """TREC SGML documents: each parsed where it stands (errors in file order), their
    fields cleaned a batch at a time. A document of the layout of the last plain one is
    taken by that layout's pattern (one match instead of a search per element)."""
    raw: list[_RawDocument] = []
    contents: list[str] = []
    size = 0
    layouts: dict[tuple[str, ...], _Layout] = {}
    layout: _Layout | None = None

    def quick(text: str, pos: int) -> re.Match[str] | None:
        return None if layout is None else layout.block.match(text, pos)

    try:
        for line, attrs, body in iter_elements(path, "DOC", quick):
            if not isinstance(body, str):  # a whole block of the current layout
                assert layout is not None
                groups = body.groups()[1:]
                whole = body.string
                raw.append(
                    _parse_by_layout(
                        path, line, groups, layout, contents, whole, body.start(1), body.end()
                    )
                )
                size += body.end() - body.start(1)
            else:
                match = None if layout is None or attrs else layout.pattern.fullmatch(body)
                if match is not None and layout is not None:
                    raw.append(_parse_by_layout(path, line, match.groups(), layout, contents, body))
                else:
                    doc, names = _parse_trec(path, line, attrs, body, contents)
                    raw.append(doc)
                    if names is not None:
                        layout = layouts.get(names)
                        if layout is None and len(layouts) < _MAX_LAYOUTS:
                            layout = layouts[names] = _Layout.of(names)
                size += len(body)
            if size >= _BATCH_CHARS:
                yield from _finish(raw, contents)
                raw, contents, size = [], [], 0
    except FormatError:
        yield from _finish(raw, contents)  # the documents before the bad one come first
        raise
    yield from _finish(raw, contents)


def _jsonl(path: str) -> Iterator[Document]:
    for line, obj in iter_objects(path):
        if not isinstance(obj, dict):
            raise FormatError(path, line, f"expected a JSON object, found {type(obj).__name__}")
        id_key, ident = pick(obj, ID_KEYS)
        if id_key is None:
            raise FormatError(
                path, line, f"no document id (expected one of the keys {', '.join(ID_KEYS)})"
            )
        docno = as_id(path, line, ident, id_key)
        text_key, text = pick(obj, TEXT_KEYS)
        title = as_text(path, line, obj.get("title"), "title")
        fields = {k: v for k, v in obj.items() if k not in (id_key, text_key, "title")}
        yield Document(
            docno=docno,
            title=title,
            text=as_text(path, line, text, text_key or "text"),
            fields=fields,
            line=line,
        )


_TSV_LAYOUTS = {2: ("text",), 3: ("title", "text"), 4: ("url", "title", "text")}


def _tsv(path: str) -> Iterator[Document]:
    width = 0
    with open_text(path) as lines:
        for line_no, line in enumerate(lines, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            cols = line.split("\t")
            if width == 0:
                width = len(cols)
                if width not in _TSV_LAYOUTS:
                    raise FormatError(
                        path,
                        line_no,
                        f"expected 2 to 4 tab-separated columns (docno, [url,] "
                        f"[title,] text), found {width}",
                    )
            elif len(cols) != width:
                raise FormatError(
                    path,
                    line_no,
                    f"expected {width} tab-separated columns (as on the first "
                    f"line), found {len(cols)}",
                )
            values = dict(zip(_TSV_LAYOUTS[width], cols[1:], strict=True))
            yield Document(
                docno=_check_docno(path, line_no, cols[0].strip()),
                title=values.get("title", "").strip(),
                text=values["text"].strip(),
                fields={"url": values["url"]} if "url" in values else {},
                line=line_no,
            )


_READERS = {"trec": _trec, "jsonl": _jsonl, "tsv": _tsv, "smart": read_smart_documents}


def iter_documents(
    path: PathArg, fmt: str | None = None, *, unique: bool = True
) -> Iterator[Document]:
    """Documents one by one, in file order (``fmt`` detected from the content if None).

    Errors surface while iterating; a docno seen twice stops the stream with both lines
    (kept of each document: 8 bytes). ``unique=False``: the caller checks, as
    `store.documents.put` does with the same message."""
    path = os.fspath(path)
    reader = _READERS[resolve_format(path, "docs", fmt)]
    # a file read again finds the first line of a docno that comes twice, so only hashes
    # of the docnos need be kept (a pipe cannot be read again: its docnos are kept)
    again = (lambda: reader(path)) if os.path.isfile(path) else None
    empty = "no documents found (empty file)"
    return unique_records(path, reader(path), "docno", empty, unique=unique, again=again)


def read_documents(path: PathArg, fmt: str | None = None) -> list[Document]:
    """All documents of a file as a list (see :func:`iter_documents`)."""
    return list(iter_documents(path, fmt))
