"""Peak memory of a process a benchmark starts, not inflated by the benchmark's own.

Linux counts a child's peak resident set from its fork: until it runs the command it is a
copy of the parent, and that copy's size stays its peak if the command never grows past
it. A benchmark holding generated data (hundreds of MiB) would so report that size for
every side it starts, judgeapp and peer alike. Each side is therefore started by GNU
`time` (a small C program), which reports the peak of its own child: the command alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

TIME = shutil.which("time") or ("/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None)


class PeakRss:
    """``wrap(cmd)`` gives the command to start; after it ended, ``mib(usage)`` its peak
    resident set in MiB (``usage``: the rusage ``os.wait4`` returned, used without GNU time)."""

    def __init__(self) -> None:
        fd, name = tempfile.mkstemp(prefix="peak-rss-")
        os.close(fd)
        self.path = Path(name)

    def wrap(self, cmd: list[str]) -> list[str]:
        if TIME is None:
            return cmd
        return [TIME, "-f", "%M", "-o", str(self.path), *cmd]

    def mib(self, usage: os.struct_rusage | None = None) -> int:
        try:
            if TIME is not None:
                return int(self.path.read_text().split()[-1]) // 1024  # KiB
            assert usage is not None
            return usage.ru_maxrss // 1024
        finally:
            self.path.unlink(missing_ok=True)


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc; those gone meanwhile left out)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(x) for x in f.read().split())
        except OSError:
            continue
    return found


def _rollup(pid: int) -> tuple[int, int]:
    """(Rss, private: Private_Clean + Private_Dirty) of a process in KiB, (0, 0) once it
    is gone."""
    fields = _proc_fields(pid, "smaps_rollup", ("Rss:", "Private_Clean:", "Private_Dirty:"))
    return fields["Rss:"], fields["Private_Clean:"] + fields["Private_Dirty:"]


def _proc_fields(pid: int, name: str, fields: tuple[str, ...]) -> dict[str, int]:
    """Fields of /proc/PID/NAME given in KiB ("Rss:", ...), 0 once the process is gone."""
    found = dict.fromkeys(fields, 0)
    try:
        with open(f"/proc/{pid}/{name}") as f:
            for line in f:
                key = line.split(maxsplit=1)[0]
                if key in found:
                    found[key] = int(line.split()[1])
    except OSError:
        pass
    return found


class TreeMemory:
    """The memory of a command and every process it forks, sampled every ``interval``
    seconds while it runs (Linux /proc): the peak over samples of

    - ``held``: the command's resident set plus what is private to each process it forked
      (a forked child shares the parent's pages until it writes them: those count once,
      in the parent; the pages a child wrote or made are its own). For a command that
      forks nothing this is its resident set, what GNU time reports, so the two sides of
      a benchmark compare alike. (PSS would not: it divides a library's pages among every
      process on the machine that maps it, other programs' too.)
    - ``rss_sum``: the resident sets added up, shared pages counted in every process: an
      upper bound.

    GNU time's peak is one process's, which says nothing of a tree. Sampling costs CPU:
    measure memory and time in separate runs."""

    def __init__(self, interval: float = 0.002) -> None:
        self.interval = interval

    def run(self, cmd: list[str], **popen) -> tuple[int, int]:
        """Run ``cmd`` to its end: (peak held, peak rss_sum) in MiB."""
        import subprocess
        import time

        peak_held = peak_sum = 0
        proc = subprocess.Popen(cmd, **popen)
        while proc.poll() is None:
            held = total = 0
            for pid in _tree(proc.pid):
                rss, private = _rollup(pid)
                held += rss if pid == proc.pid else private
                total += rss
            peak_held, peak_sum = max(peak_held, held), max(peak_sum, total)
            time.sleep(self.interval)
        if proc.returncode:
            raise RuntimeError(f"failed ({proc.returncode}): {' '.join(cmd[:4])} ...")
        return peak_held // 1024, peak_sum // 1024


class KindPeaks:
    """What a command's resident memory is made of, sampled every ``interval`` seconds in a
    thread while the benchmark waits for it (Linux /proc): the peaks of the anonymous part
    (``RssAnon``: the heap, numpy arrays, SQLite's caches) and of the file-backed part
    (``RssFile``: the program's libraries, and files it maps, such as an SQLite project's
    WAL index, ``DB-shm``), over the command's processes, and the largest size the file
    ``watch`` reached. Anonymous memory is what a program holds; a peak that grows only in
    its file-backed part is the files it maps growing."""

    def __init__(self, watch: Path | None = None, interval: float = 0.1) -> None:
        self.watch = watch
        self.interval = interval
        self.anon = self.file = self.watched = 0  # KiB, KiB, bytes
        self._stop = None
        self._thread = None

    def start(self, pid: int) -> None:
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(pid,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()

    def _sample(self, root: int) -> None:
        while not self._stop.wait(self.interval):
            for pid in _tree(root):
                kinds = _proc_fields(pid, "status", ("RssAnon:", "RssFile:"))
                self.anon = max(self.anon, kinds["RssAnon:"])
                self.file = max(self.file, kinds["RssFile:"])
            if self.watch is not None:
                try:
                    self.watched = max(self.watched, self.watch.stat().st_size)
                except OSError:
                    pass
