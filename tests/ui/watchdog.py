"""A watchdog on the GUI thread for pytest-qt scenarios and benchmarks (issue 28: the GUI
thread never blocks; a scenario fails if it stalls over 50 ms).

A heartbeat timer fires on the GUI thread every 10 ms; a stall is a gap between two beats.
A gap is the window's fault only for the time nobody in the process was waiting for a
CPU: what the GUI thread spent in the run queue during the gap (Linux's
/proc/self/task/TID/schedstat, its second field) is taken off, and what the other threads
spent there while the GUI thread was neither on a CPU nor in the run queue (it waited for
the interpreter lock a worker held while that worker waited for a CPU, or for a thread just
started that waited for one), so that a machine busy with other processes does not fail the
test; the GUI thread's own time on a CPU (the first field) always counts, as does time spent
waiting for a lock, for the interpreter lock a worker holds while it runs (never taken off:
as much of the wait as the busiest other thread ran), or for the disk.

At each beat the GUI thread reads its own figures and every other thread's, through file
descriptors kept open (`_Schedstats`: 20-40 us a beat for 15 threads; opening each thread's
file took 270 us of CPU, and a thread beside the GUI thread that did so every 5 ms ran
1.7-3.5 ms in each grade key's 20-30 ms, taking turns with the GUI thread for the
interpreter lock). A stall's report names the other threads that ran or waited for a CPU in
it, and their time: the worker that held the interpreter lock is the one that ran. A thread
beside the GUI thread sleeps until a gap would pass the limit and then notes every thread's
Python stack (raw frames; their source lines are read when reported), so that a failure
names the code that stalled. It needs the interpreter lock for that: when something held it
the whole gap, the stacks are taken as it comes free, and marked so. With
JUDGEAPP_WATCHDOG_STACKS=1 Python's faulthandler (a C thread, which needs no lock) writes them
instead: for diagnosis only, as reading the stacks of running threads without the lock can
crash the process (it did in 2 of 6 runs of the scenarios, 28 November).

It also notes every SQL statement the GUI thread itself sends to a project (an SQLAlchemy
engine event): the window runs its queries in workers (judgeapp.ui.ops), and a statement on
the GUI thread is a stall waiting to happen at a larger size.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTimer
from sqlalchemy import event
from sqlalchemy.engine import Engine

BEAT_MS = 10
SAMPLE_S = 0.005  # the stack sampler sleeps at least this long
LIMIT_MS = 50.0  # the target: a gap over it is a stall, counted and reported
# what fails a scenario of the test suite: the target (28 November, branch i28w: 26 of 26
# runs of the scenarios green at 50 ms with one or two busy loops beside them and other
# helpers' work, load average 1.7-10; 16 of 18 more with perf or a /proc sampler at 1 kHz
# beside them, load 1.4-6.2, the 3 scenario runs that failed the GUI thread's own work on
# a CPU, 34-76 ms: docs/performance.md). JUDGEAPP_SUITE_FAIL_MS=100 gives twice the room.
SUITE_FAIL_MS = float(os.environ.get("JUDGEAPP_SUITE_FAIL_MS", LIMIT_MS))
FAULTHANDLER = os.environ.get("JUDGEAPP_WATCHDOG_STACKS") == "1"
LOG = os.environ.get("JUDGEAPP_WATCHDOG_LOG")  # a file each scenario's summary is added to
TASKS = "/proc/self/task"


Figures = dict[int, bytes]  # thread id -> its schedstat line, parsed only when needed


class _Schedstats:
    """Every thread's /proc/self/task/TID/schedstat, read through a file descriptor kept
    open per thread (`os.pread` at 0 makes the kernel write the figures anew), listed again
    only when the number of threads changed or one ended; parsed only for a long gap. Each
    beat reads 15 threads in 20-30 us of CPU, where opening each one's file took 270 us."""

    def __init__(self) -> None:
        self._fds: dict[int, int] = {}
        self._links = -1  # /proc/self/task's link count (threads + 2) when last listed

    def one(self, tid: int) -> tuple[int, int]:
        """Nanoseconds thread `tid` has run on a CPU and waited in the run queue ((0, 0)
        when unknown: off Linux, or the thread is gone)."""
        try:
            fd = self._fds.get(tid)
            if fd is None:
                fd = self._fds[tid] = os.open(f"{TASKS}/{tid}/schedstat", os.O_RDONLY)
            return _parse(os.pread(fd, 64, 0))
        except OSError:
            self._forget(tid)
            return 0, 0

    def others(self, skip: int) -> Figures:
        """Every thread's figures but `skip`'s, unparsed."""
        try:
            links = os.stat(TASKS).st_nlink
            if links != self._links:
                self._links = links
                tids = {int(t) for t in os.listdir(TASKS)}
                for gone in self._fds.keys() - tids:
                    self._forget(gone)
                for tid in tids - self._fds.keys():
                    self._fds[tid] = os.open(f"{TASKS}/{tid}/schedstat", os.O_RDONLY)
        except OSError:
            return {}
        read = os.pread
        figures = {}
        for tid, fd in self._fds.items():
            if tid != skip:
                try:
                    figures[tid] = read(fd, 64, 0)
                except OSError:  # it ended (another may have begun): listed again next time
                    self._links = -1
        return figures

    def _forget(self, tid: int) -> None:
        fd = self._fds.pop(tid, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        for tid in list(self._fds):
            self._forget(tid)
        self._links = -1


def _parse(line: bytes) -> tuple[int, int]:
    """(nanoseconds on a CPU, nanoseconds in the run queue) of a schedstat line."""
    try:
        ran, queued = line.split()[:2]
        return int(ran), int(queued)
    except ValueError:
        return 0, 0


def _deltas(before: Figures, after: Figures) -> dict[int, tuple[int, int]]:
    """Each thread's nanoseconds on a CPU and in the run queue between two readings; a
    thread that began between them counts all it has (its whole life is in between), one
    that ended counts nothing (its last figures are gone)."""
    deltas = {}
    for tid, line in after.items():
        ran, queued = _parse(line)
        ran0, queued0 = _parse(before[tid]) if tid in before else (0, 0)
        deltas[tid] = (ran - ran0, queued - queued0)
    return deltas


def _excused(off: float, before: Figures, after: Figures) -> float:
    """Of `off` milliseconds in which the GUI thread was neither on a CPU nor waiting for
    one, those the machine is to blame for: the other threads waited for a CPU (one held
    the interpreter lock the GUI thread wanted), but never the part the busiest of them
    spent on a CPU (a worker holding the lock while it runs is the window's stall, even
    while other threads of it wait in the run queue meanwhile)."""
    deltas = _deltas(before, after).values()
    waited = sum(max(0, queued) for _, queued in deltas) / 1e6
    ran = max((ran for ran, _ in deltas), default=0) / 1e6
    return min(waited, max(0.0, off - ran))


def _threads_in(before: Figures, after: Figures) -> str:
    """The other threads' time on a CPU and in the run queue between two beats, the busiest
    first (a worker that held the interpreter lock shows as the one that ran)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    rows = []
    for tid, (ran, queued) in _deltas(before, after).items():
        if ran >= 1e6 or queued >= 1e6:
            new = "" if tid in before else ", began in the gap"
            name = f"{names.get(tid, 'a thread')} [{tid}{new}]"
            rows.append((ran / 1e6, queued / 1e6, name))
    return "; ".join(
        f"{name} {ran:.0f} ms on a CPU, {q:.0f} ms waiting"
        for ran, q, name in sorted(rows, reverse=True)
    )


def _stack(frame, limit: int = 8) -> traceback.StackSummary:
    """The innermost `limit` frames from `frame`, outermost first, lines not read yet."""
    summary = traceback.StackSummary.extract(
        traceback.walk_stack(frame), limit=limit, lookup_lines=False
    )
    summary.reverse()
    return summary


@dataclass
class Stall:
    wall_ms: float  # the gap between two beats
    queued_ms: float  # of which the process's threads waited for a CPU
    where: str  # the threads' stacks seen during the gap ("" if not seen)
    cpu_ms: float = 0.0  # of which the GUI thread was on a CPU (the rest: it waited)
    threads: str = ""  # the other threads' time on a CPU and in the run queue in the gap
    beat: int = -1  # the beat the gap began with
    at: float = 0.0  # when it ended (time.perf_counter(), CLOCK_MONOTONIC on Linux)

    @property
    def ms(self) -> float:
        return self.wall_ms - self.queued_ms


@dataclass
class GuiWatchdog:
    limit_ms: float = LIMIT_MS
    fail_ms: float | None = None  # check() fails on a stall over this (None: limit_ms)
    beats: int = 0
    gaps: list[float] = field(default_factory=list)  # every gap, ms, queue time taken off
    stalls: list[Stall] = field(default_factory=list)  # gaps over the limit
    statements: list[str] = field(default_factory=list)  # SQL sent from the GUI thread
    worst: float = 0.0
    checked: int | None = None  # stalls seen when check() ran (later ones: the test's end)
    worst_checked: float = 0.0  # the worst gap when check() ran

    def __post_init__(self) -> None:
        self._timer: QTimer | None = None
        self._stats = _Schedstats()
        self._last = 0.0
        self._last_queued = 0
        self._last_ran = 0
        self._last_others: Figures = {}
        self._beat_no = 0  # the beats since start, paused ones too
        self._paused = 0
        self._gui = threading.main_thread().ident
        self._gui_tid = threading.main_thread().native_id or 0
        # the sampler's stacks of a gap past the limit (thread name, the GUI thread's?,
        # frames), by the beat it began with, and whether they were taken after the gap had
        # ended (the interpreter lock came free)
        self._stacks: dict[int, tuple[list[tuple[str, bool, traceback.StackSummary]], bool]] = {}
        self._stop = threading.Event()
        self._sampler: threading.Thread | None = None
        self._dumps = tempfile.TemporaryFile("w+")  # faulthandler's stacks, on request
        self._read = 0
        self._started = 0.0

    # -- running ---------------------------------------------------------------------------
    def start(self) -> None:
        assert threading.current_thread() is threading.main_thread()
        self._stop.clear()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(BEAT_MS)
        self._timer.timeout.connect(self._beat)
        self._sampler = threading.Thread(target=self._sample, name="watchdog", daemon=True)
        self._sampler.start()
        self._reset_beat()
        self._timer.start()
        event.listen(Engine, "before_cursor_execute", self._on_statement)
        self._started = time.perf_counter()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if FAULTHANDLER:
            faulthandler.cancel_dump_traceback_later()
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join(1)
        self._stats.close()
        with contextlib.suppress(Exception):
            event.remove(Engine, "before_cursor_execute", self._on_statement)
        if LOG:
            scenario = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
            with open(LOG, "a") as fh:
                summary = self.report().replace("\n", " | ")
                checked = (
                    "not checked"
                    if self.checked is None
                    else f"{self.checked} checked, worst {self.worst_checked:.1f} ms by then"
                )
                fh.write(f"{scenario}\t{checked}\t{summary}\n")
                for k, stall in enumerate(self.stalls):  # when, to line up with others
                    after = "" if self.checked is None or k < self.checked else " after check"
                    fh.write(
                        f"  stall {stall.ms:.1f} ms of {stall.wall_ms:.1f} ms wall, "
                        f"ended at {stall.at:.4f} (monotonic){after}\n"
                    )

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The test's own work on the GUI thread (setting up, reading the store to check
        a result) is not the window's: neither its gaps nor its statements count."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            if self._timer is not None:  # still watching
                self._reset_beat()

    def _sample(self) -> None:
        """Notes every thread's Python stack once a gap grows past the limit. Asleep until
        the moment the gap going on would pass it (a beat moves that moment on), so it
        costs next to nothing while the GUI thread beats. It needs the interpreter lock:
        when a worker held it all along, the stacks are taken as it comes free, marked so
        (the worker then is at the Python line that called what held it)."""
        while True:
            beat, last = self._beat_no, self._last
            delay = last + self.limit_ms / 1000 - time.perf_counter()
            if self._stop.wait(max(delay, SAMPLE_S)):
                return
            if FAULTHANDLER or self._paused or beat in self._stacks:
                continue
            ended = self._beat_no != beat
            if not ended and (time.perf_counter() - self._last) * 1000 <= self.limit_ms:
                continue
            if ended and not any(s.beat == beat for s in self.stalls[-3:]):
                continue  # the gap ended in time: the beat moved the moment on
            # what the threads run, without their source lines (read when reported): as
            # little as can be of the interpreter lock while the gap goes on
            names = {t.ident: t.name for t in threading.enumerate()}
            me = threading.get_ident()
            frames = [
                (names.get(ident, str(ident)), ident == self._gui, _stack(frame))
                for ident, frame in sys._current_frames().items()
                if ident != me
            ]
            self._stacks[beat] = (frames, ended)

    def _reset_beat(self) -> None:
        self._last = time.perf_counter()
        self._last_ran, self._last_queued = self._stats.one(self._gui_tid)
        self._last_others = self._stats.others(self._gui_tid)
        self._beat_no += 1
        self._arm()

    def _arm(self) -> None:
        if FAULTHANDLER:
            faulthandler.cancel_dump_traceback_later()
            if not self._paused:
                faulthandler.dump_traceback_later(self.limit_ms / 1000, file=self._dumps)

    def _seen(self) -> str:
        """faulthandler's stacks of the gap that ends ("" without it: the sampler's are
        looked up by the gap's first beat when reported)."""
        if not FAULTHANDLER:
            return ""
        self._dumps.flush()
        self._dumps.seek(self._read)
        text = self._dumps.read()
        self._read = self._dumps.tell()
        return text

    def _beat(self) -> None:
        now = time.perf_counter()
        ran, queued = self._stats.one(self._gui_tid)
        # every other thread's figures at every beat (the gap that ends now may be long):
        # 20-40 us of the GUI thread a beat
        others = self._stats.others(self._gui_tid)
        if not self._paused:
            wall = (now - self._last) * 1000
            gap = wall
            own_cpu = max(0, ran - self._last_ran) / 1e6
            if wall > BEAT_MS * 3:
                # taken off: what the GUI thread waited for a CPU, and what the others
                # waited while the GUI thread was neither running nor waiting for a CPU
                # (waiting for the interpreter lock a thread waiting for a CPU holds);
                # never the GUI thread's own time on a CPU, nor a worker's (`_excused`)
                own_queue = max(0, queued - self._last_queued) / 1e6
                off = max(0.0, wall - own_cpu - own_queue)
                gap = wall - own_queue - _excused(off, self._last_others, others)
            self.beats += 1
            self.gaps.append(gap)
            self.worst = max(self.worst, gap)
            if gap > self.limit_ms:
                threads = _threads_in(self._last_others, others)
                stall = Stall(wall, wall - gap, self._seen(), own_cpu, threads, self._beat_no, now)
                self.stalls.append(stall)
        self._last, self._last_ran, self._last_queued = now, ran, queued
        self._last_others = others
        self._beat_no += 1
        self._arm()

    def _on_statement(self, _conn, _cursor, statement, *_args) -> None:
        if self._paused or threading.current_thread() is not threading.main_thread():
            return
        self.statements.append(statement.strip().splitlines()[0][:120])

    # -- what it saw -----------------------------------------------------------------------
    def percentile(self, q: float) -> float:
        if not self.gaps:
            return 0.0
        ordered = sorted(self.gaps)
        return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def report(self) -> str:
        lines = [
            f"{self.beats} beats in {time.perf_counter() - self._started:.1f} s; worst gap "
            f"{self.worst:.1f} ms, 99th percentile {self.percentile(99):.1f} ms; "
            f"{len(self.stalls)} over {self.limit_ms:.0f} ms"
            + (
                f", {len(self.failing())} over {self.fail_ms:.0f} ms"
                if self.fail_ms is not None
                else ""
            )
            + f"; load {os.getloadavg()[0]:.2f}"
        ]
        for stall in sorted(self.stalls, key=lambda s: -s.ms)[:3]:
            lines.append("-- " + self.describe(stall))
        if self.statements:
            lines.append(f"-- {len(self.statements)} SQL statements on the GUI thread, first:")
            lines.extend(f"   {s}" for s in self.statements[:10])
        return "\n".join(lines)

    def describe(self, stall: Stall) -> str:
        """`stall` in words: its length, its wall time, what the process's threads waited
        for a CPU and the GUI thread ran, the other threads' time, and the threads' stacks
        (their first 60 lines)."""
        return (
            f"a stall of {stall.ms:.0f} ms ({stall.wall_ms:.0f} ms of wall time, the "
            f"process's threads {stall.queued_ms:.0f} ms waiting for a CPU, the GUI "
            f"thread {stall.cpu_ms:.0f} ms on one; the others: "
            f"{stall.threads or 'none busy'}), the threads at:\n"
            + ("".join(self.where(stall).splitlines(keepends=True)[:60]) or "(not seen)")
        )

    def where(self, stall: Stall) -> str:
        """The threads' stacks in `stall`: faulthandler's, or the sampler's."""
        if stall.where:
            return stall.where
        frames, after = self._stacks.get(stall.beat, ([], False))
        text = "".join(
            f"Thread {name}{' (the GUI thread)' if gui else ''}:\n" + "".join(stack.format())
            for name, gui, stack in frames
        )
        if text and after:
            return "(taken as the interpreter lock came free, the gap over)\n" + text
        return text

    def failing(self) -> list[Stall]:
        limit = self.limit_ms if self.fail_ms is None else self.fail_ms
        return [s for s in self.stalls if s.ms > limit]

    def check(self) -> None:
        """Fail when the GUI thread stalled over the failing limit or sent SQL itself;
        the stalls over the target are printed either way."""
        self.checked = len(self.stalls)
        self.worst_checked = self.worst
        if self.stalls:
            print(self.report())
        assert not self.failing() and not self.statements, self.report()
