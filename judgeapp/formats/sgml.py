"""The loose SGML of TREC files: ``<DOC>`` documents and ``<top>`` topics.

:func:`iter_elements` streams the top-level ``<NAME>...</NAME>`` blocks of a file (of any
size) with the line each starts on; it insists that blocks are closed, not nested, no
longer than :data:`MAX_ELEMENT` (so that an unclosed ``<DOC>`` at the top of a gigabyte of
text is refused there, not held in memory), and that nothing but white space lies between
them. The helpers below clean a field's content:
markup removed (paragraph tags become line breaks), the basic character entities decoded,
line ends trimmed and runs of blank lines folded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import overload

import numpy as np

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_chunks

MAX_ELEMENT = 1 << 26  # 64 MiB: the largest document of the TREC collections is under 3 MB
_PARAGRAPH = re.compile(r"</?P(?:\s[^>]*)?>", re.I)
_MARKUP = re.compile(r"<[^>]*>")
_ENTITY = re.compile(r"&(amp|lt|gt|quot|apos|#\d+|#[xX][0-9a-fA-F]+);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_BLANKS = re.compile(r"\n{3,}")
_TRAILING = re.compile(r"[ \t\f\v\r]+\n")


def _entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name[0] != "#":
        return _ENTITIES[name]
    try:
        code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        return chr(code)
    except (ValueError, OverflowError):
        return match.group(0)


def clean(content: str) -> str:
    """Field text without markup: lines right-trimmed, at most one blank line in a row.
    Only the five XML entities and numeric references are decoded (TREC text is full of
    bare ``&`` such as ``AT&T``, and of private entities such as ``&hyph;``)."""
    if "<" not in content and "&" not in content and "\n" not in content:
        return content.strip()  # what the substitutions below leave of a plain line
    if "<" in content:
        content = _MARKUP.sub("", _PARAGRAPH.sub("\n", content))
    if "&" in content:
        content = _ENTITY.sub(_entity, content)
    return _BLANKS.sub("\n\n", _TRAILING.sub("\n", content)).strip()


# the same substitutions for many contents joined by NUL (which no text holds): a tag
# pattern must then not run on into the next content
_PARAGRAPH_JOINED = re.compile(r"</?P(?:\s[^>\x00]*)?>", re.I)
_MARKUP_JOINED = re.compile(r"<[^>\x00]*>")
_LT, _NL = 60, 10
_SPACE = np.zeros(256, dtype=bool)  # what _TRAILING removes before a line end
_SPACE[[9, 11, 12, 13, 32]] = True


def _utf8(text: str) -> np.ndarray:
    """The UTF-8 bytes of ``text`` and four zero bytes after them (so that the bytes after
    any ``<`` can be looked at without a bounds check), as an array that may be written."""
    raw = text.encode("utf-8", "surrogatepass")
    data = np.empty(len(raw) + 4, dtype=np.uint8)
    data[:-4] = np.frombuffer(raw, dtype=np.uint8)
    data[-4:] = 0
    return data


_OPENING = int.from_bytes(b"<P>", "little")  # the first three bytes of a word, read as
_CLOSING = int.from_bytes(b"</P>", "little")  # a little-endian uint32
_GONE = 0xFF  # a byte no UTF-8 text holds: marks what _without drops


def _bare_paragraphs(
    data: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Where each ``<P>`` and ``</P>`` of ``data`` (see _utf8) starts and how many of its
    bytes follow that ``<`` (2 or 3), with where the tags and the line ends are together
    (in order) and which of those are tags; None when some ``<`` starts anything else
    (then the patterns run)."""
    marks = np.flatnonzero((data == _LT) | (data == _NL))
    at_tag = data[marks] == _LT
    lt = marks[at_tag]
    # the four bytes from each '<' at once: a uint32 read at every byte offset
    words = np.ndarray((len(data) - 3,), dtype="<u4", buffer=data, strides=(1,))[lt]
    closing = words == _CLOSING
    if not (closing | ((words & 0xFFFFFF) == _OPENING)).all():
        return None
    return lt, np.where(closing, 3, 2), marks, at_tag


def _without(data: np.ndarray, tags: np.ndarray, after: np.ndarray, more: np.ndarray) -> str:
    """The text of ``data`` (see _utf8) with each of ``tags`` made one line end (the bytes
    ``after`` it dropped) and the bytes at ``more`` dropped (marked, then all taken out
    by one bytes.replace: many times faster than a boolean mask). ``data`` is spoilt."""
    data[tags + 1] = _GONE
    data[tags + 2] = _GONE
    data[tags[after == 3] + 3] = _GONE
    data[tags] = _NL
    data[more] = _GONE  # after the tags: a tag's line end may be one dropped
    return data[:-4].tobytes().replace(b"\xff", b"").decode("utf-8", "surrogatepass")


_NONE = np.zeros(0, dtype=np.intp)
_NUL_REFERENCE = re.compile(r"&#(?:0+|[xX]0+);")  # decodes to the NUL between contents


def clean_many(contents: list[str]) -> list[str]:
    """``[clean(c) for c in contents]``, each step run once over all of them joined: the
    markup (bare ``<P>`` tags, TREC's usual, found by numpy), the entities (the pattern,
    where there is an ``&``), then line ends trimmed and folded. Line ends and tags are
    found by numpy over the bytes and everything they drop goes in one pass (the string
    searches for those steps were most of the time of reading)."""
    if not contents:
        return []
    text = "\x00".join(contents)
    tags = None  # bare <P> tags (see _bare_paragraphs) when data is still the text's
    if "<" in text:
        data = _utf8(text)
        found = _bare_paragraphs(data)
        if found is None:
            text = _MARKUP_JOINED.sub("", _PARAGRAPH_JOINED.sub("\n", text))
        elif "&" in text:  # entities after the markup, before the line ends, as in clean()
            text = _without(data, found[0], found[1], _NONE)
        else:
            tags = found
    if "&" in text:
        if _NUL_REFERENCE.search(text):  # it would split a content in two
            return [clean(c) for c in contents]
        text = _ENTITY.sub(_entity, text)
    if tags is None:
        if "\n" not in text:
            return [piece.strip() for piece in text.split("\x00")]
        data = _utf8(text)
        lt = after = _NONE
        ends = np.flatnonzero(data == _NL)
        at_tag = None
    else:
        lt, after, ends, at_tag = tags  # the tags are line ends too
        data[lt] = _NL
    if _SPACE[data[ends - 1]].any():  # white space before a line end (rare): the patterns
        text = _TRAILING.sub("\n", _without(data, lt, after, _NONE))
        return [piece.strip() for piece in _BLANKS.sub("\n\n", text).split("\x00")]
    # a line end is the third (or later) of a run when the two before it are line ends
    # next to it once the tags' other bytes are gone
    step = np.ones(len(ends), dtype=np.intp)  # to the next byte kept
    if at_tag is not None:
        step[at_tag] += after
    joined = np.zeros(len(ends), dtype=bool)
    joined[1:] = ends[1:] == ends[:-1] + step[:-1]
    third = np.zeros(len(ends), dtype=bool)
    third[2:] = joined[2:] & joined[1:-1]
    if len(lt) or third.any():
        text = _without(data, lt, after, ends[third])
    return [piece.strip() for piece in text.split("\x00")]


def one_line(content: str) -> str:
    """Field text on one line (titles)."""
    return " ".join(clean(content).split())


_ATTRIBUTE = re.compile(r"""([\w.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def attributes(tag_text: str) -> dict[str, str]:
    """``name=value`` pairs of an opening tag (quoted or not)."""
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTRIBUTE.finditer(tag_text)
    }


# a match of a whole block at a position of a text, or None (see iter_elements)
Quick = Callable[[str, int], re.Match[str] | None]


@overload
def iter_elements(
    path: PathArg, name: str, quick: None = None
) -> Iterator[tuple[int, dict[str, str], str]]: ...


@overload
def iter_elements(
    path: PathArg, name: str, quick: Quick
) -> Iterator[tuple[int, dict[str, str], str | re.Match[str]]]: ...


def iter_elements(
    path: PathArg, name: str, quick: Quick | None = None
) -> Iterator[tuple[int, dict[str, str], str | re.Match[str]]]:
    """``(line, attributes, body)`` for each top-level ``<name>...</name>`` block (tag case
    ignored).

    ``quick(text, pos)``, tried wherever a block may start, is a match of white space and
    then a whole block at ``text[pos:]``, or None; its group 1 is the opening tag. It must
    only match blocks that the scan below would take as they are (so that nothing but the
    speed depends on it): such a block comes as ``(line, {}, match)``."""
    tag = re.compile(rf"<(/?){name}(\s[^>]*)?>", re.I)
    search = tag.search
    shown = f"<{name}>"
    inside = False
    opened = 0
    attrs: dict[str, str] = {}
    parts: list[str] = []
    size = 0  # characters in parts
    with open_chunks(path) as chunks:
        for chunk in chunks:
            text = chunk.text
            pos = 0
            line = chunk.first_line
            counted = 0  # text[:counted] is accounted for in `line`
            fast = quick if quick is not None and len(text) <= MAX_ELEMENT else None
            while True:
                if fast is not None and not inside:
                    while (block := fast(text, pos)) is not None:
                        start = block.start(1)
                        line += text.count("\n", counted, start)
                        counted = start
                        yield line, {}, block
                        pos = block.end()
                if (match := search(text, pos)) is None:
                    break
                start = match.start()
                line += text.count("\n", counted, start)
                counted = start
                between = text[pos:start]
                if inside:
                    parts.append(between)
                    size += len(between)
                    if size > MAX_ELEMENT:
                        raise _too_long(path, name, opened)
                elif between and not between.isspace():
                    raise _outside(path, name, text, pos, chunk.first_line)
                if match.group(1):  # closing tag
                    if not inside:
                        raise FormatError(path, line, f"</{name}> without an open {shown}")
                    yield opened, attrs, "".join(parts)
                    inside = False
                else:
                    if inside:
                        raise FormatError(
                            path,
                            line,
                            f"{shown} opened at line {opened} is not closed before the next "
                            f"{shown} (missing </{name}>)",
                        )
                    inside, opened, parts, size = True, line, [], 0
                    found = match.group(2)
                    attrs = attributes(found) if found else {}
                pos = match.end()
            rest = text[pos:]
            if inside:
                parts.append(rest)
                size += len(rest)
                if size > MAX_ELEMENT:
                    raise _too_long(path, name, opened)
            elif rest.strip():
                raise _outside(path, name, text, pos, chunk.first_line)
    if inside:
        raise FormatError(
            path, opened, f"{shown} opened at line {opened} is never closed (missing </{name}>)"
        )


def _too_long(path: PathArg, name: str, opened: int) -> FormatError:
    return FormatError(
        path, opened, f"<{name}> opened at line {opened} is longer than {MAX_ELEMENT >> 20} MiB"
    )


def _outside(path: PathArg, name: str, text: str, pos: int, first_line: int) -> FormatError:
    """Text between blocks: name the line of its first non-blank character."""
    rest = text[pos:]
    start = pos + len(rest) - len(rest.lstrip())
    line = first_line + text.count("\n", 0, start)
    snippet = text[start:].split("\n", 1)[0].strip()[:40]
    return FormatError(path, line, f"text outside <{name}> ... </{name}>: {snippet!r}")
