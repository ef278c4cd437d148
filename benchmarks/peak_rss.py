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
