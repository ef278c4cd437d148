"""Every file judgeapp writes is written whole or not at all.

The content goes to a temporary file beside the target (``.NAME.XXXXXXXX.tmp.SUFFIX``, in
the same folder so that the rename cannot cross file systems), is flushed to the disk, and
is renamed over the target only when complete. A full disk, a file-size limit, an error in
the middle or a kill leaves the old file as it was, or no file; never a truncated one. A
target that is not a regular file (``/dev/stdout``, a pipe) is written directly: nothing
can be renamed over it. A symbolic link is followed: the file it points to is replaced.

Failures say which file, in one line: :class:`OutputError`.

    with writing("out.qrels") as fh:            # text; or writing(path, "wb")
        fh.write(...)
    with replacing("plot.png") as tmp:          # a path for a library that wants one
        figure.savefig(tmp)
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgeapp.errors import UserError


class OutputError(UserError, ValueError):
    """An output that cannot be written: the message names the file and why."""

    exit_code = 1


def _problem(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _target(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """(the file to replace, whether it can be replaced by a rename) after the checks
    that give a clear message before anything is written."""
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        info = target.stat()
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise OutputError(f"cannot write {path}: no such directory") from None
        return target, True
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_problem(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"cannot write {path}: it is a directory")
    return target, stat.S_ISREG(info.st_mode)


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside `path` (with the same suffix, for libraries that choose a
    format by it); whatever is written there replaces `path` when the block ends without
    an error, and is removed otherwise."""
    target, renamable = _target(path)
    if not renamable:
        yield target
        return
    tmp = _fresh(target, path)
    try:
        yield tmp
        _sync(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(f"cannot write {path}: {_problem(exc)}") from None
    except BaseException:
        _remove(tmp)
        raise


@contextlib.contextmanager
def writing(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[Any]:  # a TextIO, or a BinaryIO with mode "wb"
    """An open file (text, or binary with mode "wb") whose content replaces `path` when
    the block ends without an error (see the module doc)."""
    if "b" in mode:
        encoding = None
    with replacing(path) as tmp:
        try:
            fh = open(tmp, mode, encoding=encoding, newline=newline)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_problem(exc)}") from None
        with fh:
            yield fh


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise OutputError now if `path` could not be written (before long work whose result
    would then be lost): a temporary file is made beside it and removed."""
    target, renamable = _target(path)
    if renamable:
        _remove(_fresh(target, path))


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with writing(path) as fh:
        fh.write(text)


def _fresh(target: Path, shown: str | os.PathLike[str]) -> Path:
    """Create an empty temporary file beside `target` (the user's umask applies)."""
    # os.urandom, not the secrets module: that one loads OpenSSL (3.5 MB of resident memory
    # in every command that writes a file) for the same four random bytes
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp{target.suffix}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"cannot write {shown}: {_problem(exc)}") from None
        return tmp
    raise OutputError(f"cannot write {shown}: no free temporary name beside it")


def _sync(path: Path) -> None:
    """The content on the disk before the rename makes it the file (a crash then leaves
    the old file or the new one, whole)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


# What a terminal would act on instead of showing: C0 and C1 controls and DEL (ESC starts a
# colour or cursor sequence, CSI is C1's 0x9b), bidirectional overrides and isolates (which
# reorder the rest of the line), and lone surrogates (no character at all); each written as
# a Python escape.
_UNSHOWN = [
    *range(0x20),
    *range(0x7F, 0xA0),
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    *range(0xD800, 0xE000),
]
_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSHOWN}


def shown(text: str, keep: str = "") -> str:
    """`text` as a terminal can show it safely: each control character, bidirectional
    control and lone surrogate written as a Python escape (``\\x1b``, ``\\u202e``), every
    other character (and those in `keep`, such as a table's tabs and line ends) as it is.
    Names from files and databases (runs, topics, assessors) go through this before they
    are printed."""
    table = _ESCAPES if not keep else {c: e for c, e in _ESCAPES.items() if chr(c) not in keep}
    return text.translate(table)


def finite_json(value: Any) -> Any:
    """`value` with every float that is not finite (NaN, infinity: a statistic with nothing
    to compute on, a score no file should hold) made None, which JSON writes as null; JSON
    has no NaN, and a file holding a bare `NaN` is read by no strict parser."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def json_text(value: Any, **options: Any) -> str:
    """`json.dumps` that never writes NaN or Infinity (see `finite_json`)."""
    return json.dumps(finite_json(value), allow_nan=False, **options)
