"""JSON records: JSON Lines (one object per line) or one JSON array of objects.

:func:`iter_objects` yields ``(line, object)`` and turns every problem into a FormatError with
the line: invalid JSON (with json's own reason and column), a value nested too deeply for
the parser (it recurses), a number with more digits than Python converts, a value that is
not an object. A file read as one JSON value (an array, or a pretty-printed object) is held
whole in memory, so it may be at most :data:`MAX_WHOLE_JSON` bytes: JSON Lines has no limit
but that of a line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_text

_decoder = json.JSONDecoder()
MAX_WHOLE_JSON = 1 << 28
MAX_DEPTH = 64  # records are flat; a field may hold a list or an object or two
# a \\uD800-\\uDFFF escape: JSON lets one stand alone, which is no character at all
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _bad_json(path: PathArg, line: int, exc: json.JSONDecodeError) -> FormatError:
    return FormatError(path, line, f"not valid JSON: {exc.msg} (column {exc.colno})")


def _unparsable(path: PathArg, line: int, exc: Exception) -> FormatError:
    """json's other failures: RecursionError (nesting) and ValueError (digits)."""
    if isinstance(exc, RecursionError):
        return FormatError(path, line, "not valid JSON here: a value nested too deeply")
    return FormatError(path, line, f"not valid JSON here: {str(exc).split(':')[0]}")


def _loads(path: PathArg, line: int, text: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad_json(path, line, exc) from None
    except (RecursionError, ValueError) as exc:
        raise _unparsable(path, line, exc) from None
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(path, line, value)
    check_characters(path, line, text, value)
    return value


def check_characters(path: PathArg, line: int, text: str, value: Any) -> None:
    """Refuse a string of `value` (parsed from `text`) holding a lone surrogate
    (`"\\ud800"` with no low half after it): valid JSON, but not a character, so no UTF-8
    file or database can store it. Looked for only where `text` has such an escape."""
    if not _SURROGATE_ESCAPE.search(text):
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(item[exc.start])
                raise FormatError(
                    path,
                    line,
                    f"a lone surrogate \\u{code:04x} in a JSON string: not a character "
                    "(write the character itself, or both halves of its pair)",
                ) from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_depth(path: PathArg, line: int, value: Any) -> None:
    """Refuse a value nested deeper than MAX_DEPTH: what the store writes it with (json
    again, and SQLAlchemy) recurses too, with less of the stack left."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise FormatError(
                path, line, f"not valid JSON here: a value nested more than {MAX_DEPTH} deep"
            )
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


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
                    text = _read_whole(path, line_no, line, lines)
                    yield from _whole(path, "\n" * (line_no - 1) + text)
                    return
            yield line_no, _loads(path, line_no, stripped)


def _read_whole(path: PathArg, line_no: int, line: str, lines: Iterator[str]) -> str:
    parts = [line]
    size = len(line)
    for more in lines:
        parts.append(more)
        size += len(more)
        if size > MAX_WHOLE_JSON:
            raise FormatError(
                path,
                line_no,
                f"a JSON value over {MAX_WHOLE_JSON >> 20} MiB; write the records as JSON "
                "Lines (one object per line) instead",
            )
    return "".join(parts)


def _whole(path: PathArg, text: str) -> Iterator[tuple[int, Any]]:
    """One JSON value: an array gives its elements (with their lines); an object itself."""
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "[":
        line = text.count("\n", 0, start) + 1
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _bad_json(path, exc.lineno, exc) from None
        except (RecursionError, ValueError) as exc:
            raise _unparsable(path, line, exc) from None
        _check_depth(path, line, value)
        check_characters(path, line, text, value)
        yield line, value
        return
    pos = start + 1
    n = len(text)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
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
        except (RecursionError, ValueError) as exc:
            raise _unparsable(path, line, exc) from None
        _check_depth(path, line, value)
        if surrogates:
            check_characters(path, line, text, value)
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
