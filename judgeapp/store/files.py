"""The project file itself: what is refused before SQLite is let near it, and what SQLite's
own failures mean to a user.

A path that is a directory, a device or a pipe, an empty file (unless a project is being
created) or a file that does not start with SQLite's header is refused with a message naming
it, before any connection: SQLite would otherwise turn an empty file into a project, or fail
later with less to say. Failures SQLite reports while a project is open (a damaged page, a
full disk, a read-only file, an I/O error) become a `ProjectFileError` naming the file, by an
engine hook (`translate`), wherever in judgeapp the statement ran. Writes are refused before
anything is written after a crash until the file passes `PRAGMA quick_check`
(`judgeapp.store.base`; `session_mark` says when a check is due).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
import threading
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from judgeapp.errors import UserError

SQLITE_HEADER = b"SQLite format 3\x00"
REPAIR_HINT = "restore it from a backup (or a copy made with `judgeapp copy`)"


class ProjectFileError(UserError, RuntimeError):
    """The project file cannot be used: not a project, damaged, read-only, disk full, ...
    The message names the file."""

    exit_code = 1


# The project files (device, inode) this process has open through SQLite. Closing any
# descriptor of a file drops every POSIX lock the process holds on it, SQLite's included
# (SQLite's "How To Corrupt" 2.2): another process may then take this one's WAL to be
# unused, checkpoint and reset it under its readers, and the file reads as malformed. So
# judgeapp opens such a file itself only while no store of this process has it open.
_held: Counter[tuple[int, int]] = Counter()
_held_lock = threading.Lock()


def hold(path: Path) -> tuple[int, int] | None:
    """Note that a store of this process opens `path` (None if it does not exist yet)."""
    try:
        info = path.stat()
    except OSError:
        return None
    key = (info.st_dev, info.st_ino)
    with _held_lock:
        _held[key] += 1
    return key


def release(key: tuple[int, int] | None) -> None:
    if key is None:
        return
    with _held_lock:
        _held[key] -= 1
        if _held[key] <= 0:
            del _held[key]


def check_project_file(path: Path, *, create: bool) -> None:
    """Refuse what is not a project file (see the module doc). A missing file is left to
    the caller (created with `create`, else "no project"). A file a store of this process
    has open passed these checks then and is not opened again (see `hold`)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if create and not path.parent.is_dir():
            raise ProjectFileError(f"{path}: no such directory: {path.parent}") from None
        return
    except OSError as exc:
        raise ProjectFileError(f"{path}: cannot open: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ProjectFileError(f"{path}: is a directory, not a project")
    if not stat.S_ISREG(info.st_mode):
        raise ProjectFileError(f"{path}: not a project file (a device, pipe or socket)")
    if info.st_size == 0:
        if create:
            return
        raise ProjectFileError(f"{path}: an empty file, not a project")
    with _held_lock:
        if (info.st_dev, info.st_ino) in _held:
            return
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise ProjectFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if head[: len(SQLITE_HEADER)] != SQLITE_HEADER:
        raise ProjectFileError(f"{path}: not a judgeapp project (not an SQLite database)")
    if info.st_size < 512 or info.st_size < _size_in_header(head, path):
        raise ProjectFileError(f"{path}: the project file is damaged (cut short); {REPAIR_HINT}")
    _peek_schema(path, create=create)


def _peek_schema(path: Path, *, create: bool) -> None:
    """An SQLite database that is not in WAL mode (bytes 18-19 of its header are 1) is looked
    at read-only before judgeapp's own connection, which would switch it to WAL, touches it:
    another program's database, or an empty one a command would not make a project of, is
    refused and stays as it was, to the byte. (judgeapp's projects are in WAL mode, and a
    WAL file is not read this way: its newest pages may be in the -wal file beside it.)"""
    try:
        with open(path, "rb") as fh:
            fh.seek(18)
            versions = fh.read(2)
    except OSError:
        return
    if versions != b"\x01\x01":
        return
    uri = f"file:{quote(str(path))}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            tables = {
                name
                for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
    except sqlite3.Error:
        return  # the engine's own connection says what is wrong with it
    if "alembic_version" in tables:
        return
    if tables:
        raise ProjectFileError(
            f"{path}: not a judgeapp project (an SQLite database of another program: it has "
            "tables but no schema version); nothing was changed"
        )
    if not create:
        raise ProjectFileError(f"{path}: not a judgeapp project (an empty database)")


def _size_in_header(head: bytes, path: Path) -> int:
    """The file's size as its header gives it (page size x pages), or 0 when the header
    cannot say: its page count is valid only while the "version valid for" field equals
    the change counter, and a WAL beside the file may hold newer pages. A check that costs
    nothing, where `PRAGMA quick_check` reads every page: a file cut short fails it."""
    if len(head) < 100 or head[92:96] != head[24:28] or os.path.exists(f"{path}-wal"):
        return 0
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    return page * int.from_bytes(head[28:32], "big")


def copy_project_file(source: Path, target: Path) -> None:
    """A consistent copy of the project file `source` at `target` (replaced), read through
    SQLite's online backup: complete whatever other processes are writing (its WAL
    included), and without a descriptor of judgeapp's own on the file (see `hold`). On
    failure nothing is left at `target`; sqlite3.Error or OSError is raised."""
    target.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(source)) as src:
            with contextlib.closing(sqlite3.connect(target)) as dst:
                src.backup(dst)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


# -- a new project built whole before it is put in its place ----------------------------
class ProjectAppeared(ProjectFileError):
    """A file appeared where a new project was to be put (another process created the
    project meanwhile); the new project is kept at `staged`."""

    def __init__(self, message: str, staged: Path) -> None:
        super().__init__(message)
        self.staged = staged


def staged_file(path: Path) -> Path:
    """Where a new project for `path` is built (see `Store.build`): a hidden file beside it,
    on the same file system, so that it can be linked into place; one per process."""
    return path.with_name(f".{path.name}.{os.getpid()}.judgeapp-new")


def _sync(path: Path, flags: int = os.O_RDONLY) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def put_in_place(staged: Path, path: Path) -> None:
    """The built project file `staged` synced and made `path`, never over a file there:
    a project someone created at `path` meanwhile is kept, and this one is left at
    `staged` (named in the error). Then the folder is synced, so that the new name
    survives a power loss too."""
    try:
        _sync(staged)
        _link_new(staged, path)
    except FileExistsError:
        raise ProjectAppeared(
            f"{path}: a file was created there while this project was built; the new "
            f"project is kept at {staged}",
            staged,
        ) from None
    except OSError as exc:
        raise ProjectFileError(
            f"{path}: cannot put the new project in place ({exc.strerror or exc}); it is "
            f"kept at {staged}"
        ) from None
    # as SQLite does for its journals: a folder that cannot be synced (some file systems
    # refuse) leaves the name to the system's own writing, not the import undone
    with contextlib.suppress(OSError):
        _sync(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    _remove_beside(staged)


def _link_new(staged: Path, path: Path) -> None:
    """`staged` renamed `path`, FileExistsError if something is there."""
    try:
        os.link(staged, path)  # fails if `path` exists: never replaces a project
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: the same, short of atomic
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.rename(staged, path)
    else:
        with contextlib.suppress(OSError):  # the project is in place; a second name stays
            os.unlink(staged)


def discard_staged(staged: Path) -> None:
    """A project that was being built, and SQLite's and judgeapp's files beside it, removed."""
    with contextlib.suppress(OSError):
        staged.unlink(missing_ok=True)
    _remove_beside(staged)


def _remove_beside(staged: Path) -> None:
    for suffix in ("-journal", "-wal", "-shm", "-judgeapp-lock", SESSION_SUFFIX):
        with contextlib.suppress(OSError):
            staged.with_name(staged.name + suffix).unlink(missing_ok=True)


# SQLite's primary result codes that mean the file, the disk or the permissions failed
_MEANINGS = {
    "SQLITE_CORRUPT": "the project file is damaged",
    "SQLITE_NOTADB": "not a judgeapp project (not an SQLite database, or damaged)",
    "SQLITE_FULL": "the disk is full",
    "SQLITE_IOERR": "cannot read or write the project file",
    "SQLITE_READONLY": "the project is read-only here",
    "SQLITE_CANTOPEN": "cannot open the project file",
    "SQLITE_PERM": "no permission to use the project file",
}


_SCHEMA_GONE = ("no such table", "no such column", "has no column named")


def meaning(exc: BaseException) -> str | None:
    """What an sqlite3 error says about the file, or None for other errors (constraints,
    locks), which keep their own handling. A UnicodeDecodeError from the driver is text
    SQLite read from damaged pages (often inside its own error message)."""
    if isinstance(exc, UnicodeDecodeError):
        return _MEANINGS["SQLITE_CORRUPT"]
    if not isinstance(exc, sqlite3.Error):
        return None
    if str(exc).startswith("Could not decode to UTF-8"):  # the driver, on a damaged row
        return _MEANINGS["SQLITE_CORRUPT"]
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_ERROR" and any(s in str(exc) for s in _SCHEMA_GONE):
        # the schema at its newest revision yet a table or column missing: bytes of the
        # schema itself were changed (quick_check does not compare the two)
        return "the project file is damaged: its tables are not as judgeapp wrote them"
    for prefix, text in _MEANINGS.items():
        if name == prefix or name.startswith(prefix + "_"):
            return text
    return None


def file_error(path: str, exc: BaseException) -> ProjectFileError | None:
    """The ProjectFileError for an sqlite3 error `exc` on the project at `path`, or None."""
    text = meaning(exc)
    if text is None:
        return None
    hint = f"; {REPAIR_HINT}" if "damaged" in text else ""
    if isinstance(exc, UnicodeDecodeError):
        detail = "SQLite read text that is not text"
    else:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ProjectFileError(f"{path}: {text} ({detail}){hint}")


def lock_file_error(path: str, exc: OSError) -> ProjectFileError:
    where = os.path.dirname(path) or "."
    return ProjectFileError(
        f"{path}: cannot take the write lock ({exc.strerror or exc}): the project is "
        f"read-only here (its folder {where} must be writable to write to it)"
    )


# -- whether the last session ended cleanly --------------------------------------------
# Every store of a project file holds a shared flock(2) on a file beside it for as long as
# it is open. SQLite removes the project's WAL when its last connection closes; so a WAL
# found while no store holds that lock was left by a process that never closed (killed,
# crashed, or the machine lost power), and the file is checked (`PRAGMA quick_check`)
# before anything is written to it. Until a check passes, the file says so (its content),
# so that a reader opening the project meanwhile does not make the evidence go away.
SESSION_SUFFIX = "-judgeapp-open"
CHECK_DUE = b"check due\n"


def session_mark(path: Path) -> tuple[int | None, bool]:
    """(a descriptor holding the project's session lock, whether a check is due). No
    descriptor where the folder cannot be written (a read-only project is never written,
    so never checked before a write either)."""
    try:
        fd = os.open(f"{path}{SESSION_SUFFIX}", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None, False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone = True
        except BlockingIOError:
            alone = False
        due = os.pread(fd, len(CHECK_DUE), 0) == CHECK_DUE
        if alone and not due:
            try:
                due = os.path.getsize(f"{path}-wal") > 0
            except OSError:
                due = False
            if due:
                os.pwrite(fd, CHECK_DUE, 0)
                os.fsync(fd)
        fcntl.flock(fd, fcntl.LOCK_SH)  # others may open it now
    except OSError:
        os.close(fd)
        return None, False
    return fd, due


def check_passed(fd: int | None) -> None:
    """The file passed its check: no check is due any more."""
    if fd is not None:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)


def end_session(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # releases the shared lock
