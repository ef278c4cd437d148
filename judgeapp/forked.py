"""Work spread over the machine's cores by forking: the reading of many files, whose parsing
holds the interpreter lock (threads give no parallelism there).

``forked_map(func, items)`` yields ``func(item)`` for each item, in order, as a plain loop
would, the items dealt in turn to ``n`` processes: this one and ``n - 1`` forked children
(this one takes a little less than an equal share, :data:`OWN_SHARE`: it also consumes
the results, and evaluating them is its work too). A child sends each result (pickled) on
a pipe and waits while the pipe is full, so no process runs more than an item or so ahead
and memory stays that of a few items. An exception is sent in place of the result and
raised here at that item's turn: the consumer meets results and errors in the order a loop
would have, and a child's later items are never asked for. Children share the parent's
memory as it was at the fork (copy on write) and leave by ``os._exit``, running no clean-up
of the parent's (buffered output, temporary files). When the consumer stops early, the
children are killed; a child that dies has its remaining items computed here.

Why not :mod:`multiprocessing` or :mod:`concurrent.futures`: under Python 3.11 neither
bounds how far its workers run ahead of the consumer (``Pool.imap`` collects every result
as it comes, ``ProcessPoolExecutor.map`` submits every item at once), so `evaluate`'s
memory would grow with the number of runs, which it must not; and here this process reads
a share of the files itself rather than idling while it waits.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# this process's share of the items, against a child's: it also unpickles every child's
# results and runs the consumer (for `evaluate`, the engine: ~10% of the reading's time)
OWN_SHARE = 0.9


def owners(count: int, n: int) -> list[int]:
    """Which process computes each of ``count`` items: 0 for this one, else a child's
    number. This one takes ``OWN_SHARE / (OWN_SHARE + n - 1)`` of them, evenly spread
    from the first; the children take the rest in turn."""
    share = OWN_SHARE / (OWN_SHARE + n - 1)
    start = 1 - share  # the first item is this one's: no one waits at the start
    out = []
    child = 0
    for i in range(count):
        if int(start + (i + 1) * share) > int(start + i * share) or n == 1:
            out.append(0)
        else:
            out.append(1 + child % (n - 1))
            child += 1
    return out


def shares_by_weight(weights: Sequence[int], n: int) -> list[tuple[int, int]]:
    """Items dealt to ``n`` shares of about equal weight, for shares that run side by side
    to end together: the heaviest item first, each to the share lightest so far. Gives
    each item's place, ``(share, its index in the share)``; a share keeps the items'
    order."""
    load = [0] * n
    share_of = [0] * len(weights)
    for i in sorted(range(len(weights)), key=lambda i: -weights[i]):
        k = min(range(n), key=load.__getitem__)
        share_of[i] = k
        load[k] += weights[i]
    taken = [0] * n
    place = []
    for k in share_of:
        place.append((k, taken[k]))
        taken[k] += 1
    return place


def file_sizes(paths: Sequence[str]) -> list[int] | None:
    """Each file's size in bytes, or None when one is stdin (``-``: read once, here) or
    cannot be read: its reader then says what is wrong with it, in order."""
    if "-" in paths:
        return None
    sizes = []
    for path in paths:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            return None
    return sizes


def worth_forking(sizes: Sequence[int], min_bytes: int, min_files: int = 2) -> bool:
    """Whether reading files of these sizes (:func:`file_sizes`) is worth forking for: at
    least ``min_files``, and ``min_bytes`` between them (below that the fork costs more
    than the second core gains)."""
    return len(sizes) >= min_files and sum(sizes) >= min_bytes


def forked_map(
    func: Callable[[T], R], items: Sequence[T], processes: int | None = None
) -> Iterator[R]:
    """``func(item)`` for each item, in order, computed by ``processes`` processes (this
    one and forked children; default: the usable cores). One process, one item, or no
    fork (not Linux): a plain loop. (macOS has ``os.fork``, but its system libraries are
    not safe to use in a forked child, and a child that hangs would hang the loop.)"""
    n = min(processes or usable_cores(), len(items))
    if n <= 1 or not sys.platform.startswith("linux"):
        for item in items:
            yield func(item)
        return
    owner = owners(len(items), n)
    children: list[tuple[int, BinaryIO]] = []
    gc.freeze()  # the collector then leaves the shared objects' pages alone in the children
    try:
        for k in range(1, n):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(read_end)
                for _, other in children:
                    other.close()
                _child(func, [x for x, o in zip(items, owner, strict=True) if o == k], write_end)
            os.close(write_end)
            children.append((pid, os.fdopen(read_end, "rb")))
    finally:
        gc.unfreeze()
    done = False
    try:
        yield from _in_order(func, items, owner, [pipe for _, pipe in children])
        done = True
    finally:
        for pid, pipe in children:
            pipe.close()
            if not done:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


class ForkedAhead(Generic[T, R]):
    """``func(item)`` for every item, computed at once by forked children while this
    process does other work (`import run` reads its files while the store's modules load
    and the project opens). Unlike :func:`forked_map`, a child never waits for this
    process: it writes each result into its own anonymous in-memory file (every result is
    kept until the end anyway, as an import needs them all). :meth:`results` then yields
    them in order, as a loop would, raising a child's exception at its item's turn; an
    item a child did not deliver (killed) is computed here. Use it as a context manager:
    leaving it kills and reaps children whose results were not collected. With
    ``children=0``, or not on Linux (see :func:`forked_map`), nothing is forked and
    :meth:`results` is a plain loop."""

    def __init__(
        self, func: Callable[[T], R], items: Sequence[T], children: int | None = None
    ) -> None:
        self.func = func
        self.items = list(items)
        n = min(usable_cores() if children is None else children, len(self.items))
        self.children: list[tuple[int, int]] = []  # (pid, memfd)
        self.owner = [0] * len(self.items)
        if n < 1 or not sys.platform.startswith("linux"):
            return
        self.owner = [1 + i % n for i in range(len(self.items))]
        gc.freeze()
        try:
            for k in range(1, n + 1):
                fd = os.memfd_create(f"judgeapp-ahead-{k}", os.MFD_CLOEXEC)
                pid = os.fork()
                if pid == 0:  # the child: never returns
                    for _, other in self.children:
                        os.close(other)
                    mine = [x for x, o in zip(self.items, self.owner, strict=True) if o == k]
                    _child(func, mine, os.dup(fd))
                self.children.append((pid, fd))
        finally:
            gc.unfreeze()

    def results(self) -> Iterator[R]:
        if not self.children:
            for item in self.items:
                yield self.func(item)
            return
        streams = []
        for pid, fd in self.children:
            os.waitpid(pid, 0)
            os.lseek(fd, 0, os.SEEK_SET)  # the child wrote through the same file offset
            streams.append(os.fdopen(os.dup(fd), "rb"))
        for _, fd in self.children:
            os.close(fd)
        self.children = []  # all reaped
        try:
            yield from _in_order(self.func, self.items, self.owner, streams)
        finally:
            for stream in streams:
                stream.close()

    def _reap(self) -> None:
        for pid, fd in self.children:  # not collected: stop them
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        self.children = []

    def __enter__(self) -> ForkedAhead[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self._reap()


def _in_order(
    func: Callable[[T], R], items: Sequence[T], owner: Sequence[int], streams: Sequence[BinaryIO]
) -> Iterator[R]:
    """Each item's result in order: computed here when ``owner`` says 0, else read from
    child ``k``'s stream ``streams[k - 1]`` (pickled by :func:`_child`), its exception
    raised at the item's turn; once a child's stream ends early (the child was killed,
    ran out of memory), its remaining items are computed here."""
    alive = [True] * (len(streams) + 1)
    for item, k in zip(items, owner, strict=True):
        if k and alive[k]:
            try:
                ok, value = pickle.load(streams[k - 1])
            except (EOFError, pickle.UnpicklingError):
                alive[k] = False  # the child died before this item: do it here
            else:
                if not ok:
                    raise value
                yield value
                continue
        yield func(item)


def _child(func: Callable[[T], R], items: Sequence[T], fd: int) -> None:
    """Compute and send each item's result (or exception), then leave at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        with os.fdopen(fd, "wb") as out:
            for item in items:
                message: tuple[bool, object]
                try:
                    message = (True, func(item))
                except BaseException as exc:
                    message = (False, _portable(exc))
                pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
                out.flush()
                if not message[0]:
                    break
                del message  # sent: not kept while the next item is computed
    finally:
        os._exit(0)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling unchanged, else a RuntimeError saying what it was."""
    try:
        back = pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
        if type(back) is type(exc) and str(back) == str(exc):
            return exc
    except Exception:
        pass
    return RuntimeError(f"{type(exc).__name__}: {exc}")
