"""The one error type every reader raises: it names the file, the line and the problem."""

from __future__ import annotations

from os import PathLike

from judgeapp.errors import UserError


class FormatError(UserError, ValueError):
    """Bad input in a file.

    ``str(err)`` reads ``FILE:LINE: PROBLEM`` (or ``FILE: byte N: PROBLEM`` when the problem
    has no line, such as a truncated gzip stream), so a user can jump straight to the place.
    """

    exit_code = 1

    def __init__(
        self,
        path: str | PathLike[str],
        line: int | None,
        problem: str,
        *,
        byte: int | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.byte = byte
        if line is not None:
            where = f"{self.path}:{line}"
        elif byte is not None:
            where = f"{self.path}: byte {byte}"
        else:
            where = self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self) -> tuple:
        # rebuilt from its parts (a reader in a forked process sends it to the parent)
        return (_rebuild, (type(self), self.path, self.line, self.problem, self.byte))


def _rebuild(
    cls: type[FormatError], path: str, line: int | None, problem: str, byte: int | None
) -> FormatError:
    return cls(path, line, problem, byte=byte)


def quoted(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters: a message quotes the offending
    token, and a token can be a megabyte long."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


class Irregular(Exception):
    """Something the bulk reader (judgeapp.formats.bulk) leaves to the line-precise reader."""
