"""The one error type every reader raises (:class:`judgeapp.errors.FormatError`, which the
store raises too, for a docno twice in a stream of documents): it names the file, the line
and the problem."""

from __future__ import annotations

from judgeapp.errors import FormatError as FormatError


def quoted(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters: a message quotes the offending
    token, and a token can be a megabyte long."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


class Irregular(Exception):
    """Something the bulk reader (judgeapp.formats.bulk) leaves to the line-precise reader."""
