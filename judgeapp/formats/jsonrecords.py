"""JSON records: JSON Lines (one object per line) or one JSON array of objects.

:func:`iter_objects` yields ``(line, object)`` and turns every problem into a FormatError with
the line: invalid JSON (with json's own reason and column), a value that is not an object.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_text

_decoder = json.JSONDecoder()


def _bad_json(path: PathArg, line: int, exc: json.JSONDecodeError) -> FormatError:
    return FormatError(path, line, f"not valid JSON: {exc.msg} (column {exc.colno})")


def iter_objects(path: PathArg) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for each record. A file whose first character is ``[`` is one JSON
    array, one whose first line is a lone ``{`` one pretty-printed JSON value; otherwise it is
    JSON Lines, blank lines skipped."""
    with open_text(path) as lines:
        first_line = 0
        for line_no, line in enumerate(lines, 1):
            stripped = line.strip()
            if not stripped:
                continue
            if first_line == 0:
                first_line = line_no
                if stripped.startswith("[") or stripped == "{":
                    rest = "".join(lines)
                    yield from _whole(path, "\n" * (line_no - 1) + line + rest)
                    return
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise _bad_json(path, line_no, exc) from None
            yield line_no, value


def _whole(path: PathArg, text: str) -> Iterator[tuple[int, Any]]:
    """One JSON value: an array gives its elements (with their lines); an object itself."""
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "[":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _bad_json(path, exc.lineno, exc) from None
        yield text.count("\n", 0, start) + 1, value
        return
    pos = start + 1
    n = len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos < n and text[pos] == "]":
            pos += 1
            break
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = _decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _bad_json(path, exc.lineno, exc) from None
        yield line, value
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos < n and text[pos] == ",":
            pos += 1
        elif pos < n and text[pos] == "]":
            pos += 1
            break
        else:
            line = text.count("\n", 0, pos) + 1
            raise FormatError(path, line, "not valid JSON: expected ',' or ']' in the array")
    if text[pos:].strip():
        line = text.count("\n", 0, pos) + 1
        raise FormatError(path, line, "not valid JSON: extra data after the array")


def pick(obj: dict[str, Any], keys: Sequence[str]) -> tuple[str | None, Any]:
    """The first of ``keys`` present in ``obj`` and its value."""
    for key in keys:
        if key in obj:
            return key, obj[key]
    return None, None


def as_id(path: PathArg, line: int, value: Any, key: str) -> str:
    """An id as a string: JSON strings as written, integers in decimal."""
    if isinstance(value, str):
        ident = value.strip()
    elif isinstance(value, int) and not isinstance(value, bool):
        ident = str(value)
    else:
        raise FormatError(path, line, f"{key!r} must be a string or an integer, found {value!r}")
    if not ident or any(c.isspace() for c in ident):
        raise FormatError(path, line, f"{key} {value!r} is empty or contains white space")
    return ident


def as_text(path: PathArg, line: int, value: Any, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FormatError(path, line, f"{key!r} must be text, found {type(value).__name__}")
    return value
