"""Which format a file is in, decided from its first non-empty lines (never from its name).

Kinds and their formats:

- topics: ``trec`` (SGML ``<top>``; also ``<DOC><DOCNO>`` topic files such as Anserini's
  CACM queries), ``xml`` (Web track ``<topic number=...>`` with subtopics, TREC-COVID),
  ``tsv`` (``qid<TAB>text``), ``jsonl`` (JSON Lines or a JSON array), ``smart``
  (``.I``/``.W`` query files of Cranfield, CISI, CACM);
- docs: ``trec`` (``<DOC><DOCNO>``), ``jsonl``, ``tsv``, ``smart``;
- run: ``trec``;
- qrels: ``trec``, ``cranqrel``, ``cisi``, ``cacm``.

The classic relevance files are told apart by shape: three integer columns is Cranfield's
``cranqrel``; four columns ending in a decimal number (``1 28 0 0.000000``) is ``CISI.REL``;
four integer columns whose last two are always ``0 0`` is CACM's ``qrels.text`` (in TREC
qrels the third column is the docno, which cannot be ``0`` on every line without repeating).
"""

from __future__ import annotations

import os
import re

from judgeapp.formats.columns import has_odd_space, split_fields
from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import MAX_COLUMN_LINE, MAX_LINE, PathArg, head_text

FORMATS: dict[str, tuple[str, ...]] = {
    "topics": ("trec", "xml", "tsv", "jsonl", "smart"),
    "docs": ("trec", "jsonl", "tsv", "smart"),
    "run": ("trec",),
    "qrels": ("trec", "cranqrel", "cisi", "cacm"),
}

EXPECTED = {
    "topics": "TREC SGML topics (<top> ... </top>), Web-track or COVID XML "
    "(<topic number=...>), TSV (qid<TAB>text), JSON Lines or a JSON array of topics, or a "
    "SMART query file (.I n / .W)",
    "docs": "TREC SGML documents (<DOC><DOCNO>...), JSON Lines, TSV (docno<TAB>text) or a "
    "SMART collection (.I n / .T / .W)",
    "run": "a TREC run: 6 columns (qid iter docno rank score tag)",
    "qrels": "qrels: TREC (qid iter docno grade), Cranfield cranqrel (query doc code), "
    "CISI.REL (query doc 0 0.000000) or CACM qrels.text (query doc 0 0)",
}

EMPTY = {
    "topics": "no topics found",
    "docs": "no documents found",
    "run": "no run lines found",
    "qrels": "no qrels lines found",
}

_SAMPLE = 200
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w.-]*)")
_SMART = re.compile(r"\.I(\s|$)")
_INT = re.compile(r"[-+]?\d+")
_DECIMAL = re.compile(r"[-+]?\d*\.\d+([eE][-+]?\d+)?")


def _data_lines(text: str, skip_comments: bool, first: int = 1) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(text.split("\n"), first):
        stripped = line.strip()
        if not stripped or (skip_comments and stripped.startswith("#")):
            continue
        out.append((i, line))
        if len(out) >= _SAMPLE:
            break
    return out


def detect_format(path: PathArg, kind: str) -> str:
    """The format name of ``path`` for ``kind`` ("topics", "docs", "run" or "qrels")."""
    path = os.fspath(path)
    if kind not in FORMATS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(FORMATS)}")
    columns = kind in ("run", "qrels")
    # the line limit of the reader that will read it: a run or qrels file with a 50 MB
    # line is refused here, at 1 MiB, not held whole to look at its first line
    first, text = head_text(
        path, comments=columns, max_line=MAX_COLUMN_LINE if columns else MAX_LINE
    )
    lines = _data_lines(text, skip_comments=columns, first=first)
    if not lines:
        why = "empty file or only comments" if kind in ("run", "qrels") else "empty file"
        raise FormatError(path, None, f"{EMPTY[kind]} ({why}); expected {EXPECTED[kind]}")
    found = {"topics": _topics, "docs": _docs, "run": _run, "qrels": _qrels}[kind](text, lines)
    if found is None:
        line, first_text = lines[0]
        shown = first_text.strip()
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise FormatError(
            path, line, f"cannot tell the format from {shown!r}; expected {EXPECTED[kind]}"
        )
    return found


def resolve_format(path: str, kind: str, fmt: str | None) -> str:
    """``fmt`` checked against the formats of ``kind``, or detected when None."""
    if fmt is None:
        return detect_format(path, kind)
    if fmt not in FORMATS[kind]:
        known = ", ".join(FORMATS[kind])
        raise FormatError(path, None, f"unknown {kind} format {fmt!r} (known: {known})")
    return fmt


def first_tag(text: str) -> str | None:
    """The first element name in the text, skipping <?xml>, <!DOCTYPE> and comments."""
    for match in _TAG.finditer(re.sub(r"<!--.*?-->|<![^>]*>|<\?.*?\?>", "", text, flags=re.S)):
        if not match.group(1):
            return match.group(2).lower()
    return None


def _markup(text: str, first: str) -> str | None:
    if not first.lstrip().startswith("<"):
        return None
    return first_tag(text)


# the first element of an SGML/XML file decides its format
_MARKUP_FORMATS = {
    "topics": {"top": "trec", "doc": "trec", "topics": "xml", "topic": "xml"},
    "docs": {"doc": "trec"},
}


def _text_format(kind: str, text: str, lines: list[tuple[int, str]]) -> str | None:
    first = lines[0][1].lstrip()
    tag = _markup(text, first)
    if tag is not None:
        if kind == "topics" and tag.startswith("webtrack"):
            return "xml"
        return _MARKUP_FORMATS[kind].get(tag)
    if first.startswith(("{", "[")):
        return "jsonl"
    if _SMART.match(first):
        return "smart"
    if "\t" in first:
        return "tsv"
    return None


def _topics(text: str, lines: list[tuple[int, str]]) -> str | None:
    return _text_format("topics", text, lines)


def _docs(text: str, lines: list[tuple[int, str]]) -> str | None:
    return _text_format("docs", text, lines)


def _columns(text: str, lines: list[tuple[int, str]]) -> list[list[str]]:
    odd = has_odd_space(text)
    return [split_fields(line, odd) for _, line in lines]


def _run(text: str, lines: list[tuple[int, str]]) -> str | None:
    # mostly six or more columns: a run (the reader then names any bad line exactly)
    wide = sum(len(fields) >= 6 for fields in _columns(text, lines))
    return "trec" if wide * 2 > len(lines) else None


def _qrels(text: str, lines: list[tuple[int, str]]) -> str | None:
    rows = _columns(text, lines)
    if all(len(r) == 3 and all(_INT.fullmatch(x) for x in r) for r in rows):
        return "cranqrel"
    four = [r for r in rows if len(r) == 4]
    if len(four) * 2 <= len(rows):
        return None
    ids_numeric = all(r[0].isdigit() and r[1].isdigit() for r in four)
    # CISI.REL: `query doc 0 0.000000`; a TREC qrels with grades written `1.0` has its
    # docnos in the third column (read as TREC, its reader names the grade that is no
    # integer instead of every judgment landing on docno "0")
    if ids_numeric and all(r[2] == "0" and _DECIMAL.fullmatch(r[3]) for r in four):
        return "cisi"
    if ids_numeric and len(four) > 1 and all(r[2] == "0" and r[3] == "0" for r in four):
        return "cacm"
    # otherwise TREC; the reader names any bad line exactly
    return "trec"
