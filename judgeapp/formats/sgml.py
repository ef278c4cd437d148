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
from collections.abc import Iterator

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
_LT, _GT, _SLASH, _P, _NL = 60, 62, 47, 80, 10
_SPACE = np.zeros(256, dtype=bool)  # what _TRAILING removes before a line end
_SPACE[[9, 11, 12, 13, 32]] = True


def _bare_paragraphs(data: np.ndarray) -> np.ndarray | None:
    """``data`` (UTF-8 bytes, four zero bytes after the text) with every ``<P>`` and
    ``</P>`` made a line end, as a mask of the bytes kept after setting each tag's ``<``
    to a line end; None when some ``<`` starts anything else (then the patterns run)."""
    lt = np.flatnonzero(data == _LT)
    one, two, three = data[lt + 1], data[lt + 2], data[lt + 3]
    opening = (one == _P) & (two == _GT)
    closing = (one == _SLASH) & (two == _P) & (three == _GT)
    if not (opening | closing).all():
        return None
    keep = np.ones(len(data), dtype=bool)
    keep[lt + 1] = False
    keep[lt + 2] = False
    keep[lt[closing] + 3] = False
    data[lt] = _NL
    return keep


def _fold_lines(data: np.ndarray, keep: np.ndarray | None) -> str:
    """The text of ``data[keep]`` (UTF-8, the four zero bytes after it left out) with
    ``_BLANKS.sub("\\n\\n", _TRAILING.sub("\\n", text))`` done by numpy: white space
    before a line end dropped, runs of line ends cut to two."""
    if keep is not None:
        data = data[keep]
    data = data[:-4]
    if len(data) and _SPACE[data[np.flatnonzero(data[1:] == _NL)]].any():
        # white space before a line end (rare): the pattern removes it
        text = _TRAILING.sub("\n", data.tobytes().decode("utf-8", "surrogatepass"))
        data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    newline = data == _NL
    third = np.zeros(len(data), dtype=bool)  # the third and later line end of a run
    third[2:] = newline[2:] & newline[1:-1] & newline[:-2]
    if third.any():
        data = data[~third]
    return data.tobytes().decode("utf-8", "surrogatepass")


def clean_many(contents: list[str]) -> list[str]:
    """``[clean(c) for c in contents]``, each step run once over all of them joined: the
    markup (bare ``<P>`` tags, TREC's usual, as a vector operation), the entities (the
    pattern, where there is an ``&``), then line ends trimmed and folded by numpy over
    the bytes (the string searches for those steps were most of the time of reading)."""
    if not contents:
        return []
    text = "\x00".join(contents)
    raw = text.encode("utf-8", "surrogatepass")
    data = np.frombuffer(raw + bytes(4), dtype=np.uint8).copy()
    keep = _bare_paragraphs(data) if "<" in text else None
    if "<" in text and keep is None:
        text = _MARKUP_JOINED.sub("", _PARAGRAPH_JOINED.sub("\n", text))
        data = np.frombuffer(text.encode("utf-8", "surrogatepass") + bytes(4), dtype=np.uint8)
    if "&" in text:  # after the markup, before the line ends, as in clean()
        if keep is not None:
            data, keep = data[keep], None
        text = _ENTITY.sub(_entity, data[:-4].tobytes().decode("utf-8", "surrogatepass"))
        data = np.frombuffer(text.encode("utf-8", "surrogatepass") + bytes(4), dtype=np.uint8)
    return [piece.strip() for piece in _fold_lines(data, keep).split("\x00")]


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


def iter_elements(path: PathArg, name: str) -> Iterator[tuple[int, dict[str, str], str]]:
    """``(line, attributes, body)`` for each top-level ``<name>...</name>`` block (tag case
    ignored)."""
    tag = re.compile(rf"<(/?){name}(\s[^>]*)?>", re.I)
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
            for match in tag.finditer(text):
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
