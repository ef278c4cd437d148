"""The root of every error a user can act on (bad file, unknown run, database too new, ...).

The CLI prints these as `judgeapp: error: MESSAGE` without a traceback, and the GUI shows
them in a message box; anything else is a bug and keeps its traceback."""

from __future__ import annotations

from os import PathLike


class UserError(Exception):
    """A problem in what the user gave or asked for, explained by its message."""

    # the command line's exit status: 1 for a bad file (an input, the project file, an
    # output that cannot be written), 2 for a request that cannot be honoured
    exit_code = 2


class NoProject(UserError, ValueError):
    """Nothing is at a project path that was to be opened (not created): a mistyped path,
    a moved file. Creating a project there is asked for explicitly (`init`, New project)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"no project at {path}")
        self.path = path


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


def duplicate_error(path: str, what: str, ident: str, first: int, line: int) -> FormatError:
    """The error for an id met twice in one file, naming both lines."""
    return FormatError(path, line, f"duplicate {what} {ident} at lines {first} and {line}")
