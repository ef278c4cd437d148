"""Work spread over the machine's cores by forking: the reading of many files, whose parsing
holds the interpreter lock (threads give no parallelism there).

``forked_map(func, items)`` yields ``func(item)`` for each item, in order, as a plain loop
would, the items dealt in turn to ``n`` processes: this one and ``n - 1`` forked children
(this one takes a little less than an equal share, :data:`OWN_SHARE`: it also consumes
the results, and evaluating them is its work too). A child sends each result (pickled) on
a pipe and waits while the pipe is full (:data:`PIPE_BYTES`: a few results), so no process
runs more than a few items ahead and memory stays that of a few items. An exception is sent
in place of the result and raised here at that item's turn: the consumer meets results and
errors in the order a loop would have, and a child's later items are never asked for.
Children share the parent's memory as it was at the fork (copy on write) and leave by
``os._exit``, running no clean-up of the parent's (buffered output, temporary files). When
the consumer stops early, the children are killed; a child that dies has its remaining
items computed here.

Why not :mod:`multiprocessing` or :mod:`concurrent.futures`: under Python 3.11 neither
bounds how far its workers run ahead of the consumer (``Pool.imap`` collects every result
as it comes, ``ProcessPoolExecutor.map`` submits every item at once), so `evaluate`'s
memory would grow with the number of runs, which it must not; and here this process reads
a share of the files itself rather than idling while it waits.
"""

from __future__ import annotations

import fcntl
import gc
import os
import pickle
import signal
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, Generic, TypeVar

T = TypeVar("T")
A = TypeVar("A")
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


def file_sizes(paths: Sequence[str]) -> list[int] | None:
    """Each file's size in bytes, or None when one is stdin (``-``), a pipe, a FIFO or a
    device (each read once, here: a child could not hand its bytes back for a second
    read) or cannot be read: its reader then says what is wrong with it, in order."""
    if "-" in paths:
        return None
    sizes = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        sizes.append(info.st_size)
    return sizes


# what a child's pipe holds: a few results waiting while this process works on others
# (`evaluate`: a run of 50 topics x 1000 documents is about 400 KB pickled; Linux's default
# pipe of 64 KiB holds none whole, so a child stopped at each result until this process
# came to it, and sat idle while this one evaluated a batch)
PIPE_BYTES = 1 << 20


def _widen_pipe(fd: int) -> None:
    """Give the pipe ``fd`` room for :data:`PIPE_BYTES` (Linux's limit for a user is 1 MiB
    unless raised); where that is refused, it keeps the system's size."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, AttributeError):
        pass


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
            _widen_pipe(write_end)
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


class _Queue:
    """Item numbers 0 to n - 1 shared by this process and the children it forks: the
    children take them from the front, this process from the back, each the next one
    whichever process asks, until they meet (two counts under a POSIX record lock on an
    anonymous file; such locks belong to a process, so a child and its parent exclude
    each other)."""

    def __init__(self, n: int) -> None:
        self.fd = os.memfd_create("judgeapp-queue", os.MFD_CLOEXEC)
        os.pwrite(self.fd, (0).to_bytes(8, "little") + n.to_bytes(8, "little"), 0)

    def take(self, *, back: bool = False) -> int | None:
        """The next number from the front (the back), or None if none is left."""
        fcntl.lockf(self.fd, fcntl.LOCK_EX)
        try:
            ends = os.pread(self.fd, 16, 0)
            front, end = int.from_bytes(ends[:8], "little"), int.from_bytes(ends[8:], "little")
            if front >= end:
                return None
            if back:
                end -= 1
                os.pwrite(self.fd, end.to_bytes(8, "little"), 8)
                return end
            os.pwrite(self.fd, (front + 1).to_bytes(8, "little"), 0)
            return front
        finally:
            fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def empty(self) -> None:
        """No process takes another number."""
        fcntl.lockf(self.fd, fcntl.LOCK_EX)
        try:
            os.pwrite(self.fd, bytes(16), 0)
        finally:
            fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self.fd)


class ForkedAhead(Generic[T, A, R]):
    """Items worked on by forked children while this process does other work (`import
    run` reads its files while the store's modules load and the project opens), and by
    this process too once it asks for :meth:`results`. The items wait in a queue, in
    ``order`` (say the largest first): each child takes the next from its front, this
    process the next from its back. A process starts with ``begin()``, gives each item
    it takes to ``step`` with that, and once none is left its part is ``finish`` of it.
    So the processes end together whatever this one's other work, the last items taken
    being the smallest. A child never waits for this process: it writes its part into
    its own anonymous in-memory file. Use it as a context manager: leaving it kills and
    reaps children whose parts were not collected. With ``children=0``, or not on Linux
    (see :func:`forked_map`), nothing is forked and this process does every item."""

    def __init__(
        self,
        begin: Callable[[], A],
        step: Callable[[A, T], object],
        finish: Callable[[A], R],
        items: Sequence[T],
        *,
        order: Sequence[int] | None = None,
        children: int | None = None,
    ) -> None:
        self.begin, self.step, self.finish = begin, step, finish
        self.items = list(items)
        self.order = list(range(len(self.items))) if order is None else list(order)
        n = min(usable_cores() if children is None else children, len(self.items))
        self.children: list[tuple[int, int]] = []  # (pid, memfd)
        self.queue: _Queue | None = None
        if n < 1 or not sys.platform.startswith("linux"):
            return
        self.queue = _Queue(len(self.order))
        gc.freeze()
        try:
            for k in range(1, n + 1):
                fd = os.memfd_create(f"judgeapp-ahead-{k}", os.MFD_CLOEXEC)
                pid = os.fork()
                if pid == 0:  # the child: never returns
                    for _, other in self.children:
                        os.close(other)
                    self._child(os.dup(fd))
                self.children.append((pid, fd))
        finally:
            gc.unfreeze()

    def _taken(self, *, back: bool = False) -> Iterator[int]:
        """The items this process takes from the queue (from its back), until none is
        left; all of them when there is no queue."""
        if self.queue is None:
            yield from self.order
            return
        while (k := self.queue.take(back=back)) is not None:
            yield self.order[k]

    def _stop(self) -> None:
        """Empty the queue: no process starts another item."""
        if self.queue is not None:
            self.queue.empty()

    def _child(self, fd: int) -> None:
        """Take items until the queue is empty, then send ``(items, part)``, or the
        exception met (emptying the queue first); then leave at once."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        try:
            with os.fdopen(fd, "wb") as out:
                message: tuple[bool, object]
                try:
                    done, work = [], self.begin()
                    for i in self._taken():
                        self.step(work, self.items[i])
                        done.append(i)
                    message = (True, (done, self.finish(work) if done else None))
                except BaseException as exc:
                    self._stop()
                    message = (False, _portable(exc))
                pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            os._exit(0)

    def results(self) -> list[tuple[list[int], R]]:
        """Every part that has items: ``(their indices in the order taken, the part)``.
        This process first takes what is left in the queue; what a child took but did not
        deliver (it was killed) is done here too. A child's exception is raised here once
        every child has ended; this process's own at once, the queue emptied first."""
        mine: list[int] = []
        work = self.begin()
        try:
            for i in self._taken(back=True):
                self.step(work, self.items[i])
                mine.append(i)
        except BaseException:
            self._stop()
            raise
        parts: list[tuple[list[int], R]] = []
        error: BaseException | None = None
        while self.children:  # each reaped as it is read: _reap then has only the rest
            pid, fd = self.children.pop(0)
            os.waitpid(pid, 0)
            try:
                with os.fdopen(os.dup(fd), "rb") as stream:
                    stream.seek(0)  # the child wrote through the same file offset
                    ok, value = pickle.load(stream)
            except (EOFError, pickle.UnpicklingError):
                continue  # the child died: its items are done below
            finally:
                os.close(fd)
            if not ok:
                error = error or value
            elif value[0]:
                parts.append(value)
        if error is not None:
            raise error
        delivered = {i for done, _ in parts for i in done}.union(mine)
        for i in self.order:
            if i not in delivered:
                self.step(work, self.items[i])
                mine.append(i)
        if mine:
            parts.insert(0, (mine, self.finish(work)))
        return parts

    def _reap(self) -> None:
        for pid, fd in self.children:  # not collected: stop them
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        self.children = []
        if self.queue is not None:
            self.queue.close()
            self.queue = None

    def __enter__(self) -> ForkedAhead[T, A, R]:
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
