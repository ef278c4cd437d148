"""Running judgeapp's commands on hostile input, many times, each in a process of its own
with limits on memory, file size and time, and saying what happened.

Starting Python and importing judgeapp costs half a second; a fuzzing run tries hundreds of
inputs. So one server process imports the command line once (`python -m
tests.hostile.runner`), and every case is a fork of it: a fresh process, as `python
main.py ARGS` would be, that sets its resource limits, runs `judgeapp.cli.main(ARGS)` with
files for stdin, stdout and stderr, and exits as the interpreter would (an uncaught
exception prints its traceback and exits 1). The server waits for it with `wait4`, which
gives the child's own peak RSS, and kills it when its time is up.

An `Outcome` classifies what came back (`kind`): `ok` (exit 0), `error` (exit 1 or 2, stderr
ending with the one line `judgeapp: error: ...`), `traceback`, `hang` (killed after its
time), `abort` (ended by a signal: a native crash, the memory limit's SIGKILL, SIGXFSZ), or
`unclear` (any other exit or stderr).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# the limits of one case, unless it asks for others
MEMORY_LIMIT = 3 << 30  # RLIMIT_AS; the server alone maps about 1 GiB (numpy, SQLAlchemy)
TIME_LIMIT = 60.0  # wall-clock seconds before a case counts as hanging


@dataclass(frozen=True)
class Outcome:
    argv: list[str]
    exit_code: int | None  # None when a signal ended the process
    signal: int | None
    timed_out: bool
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes

    @property
    def kind(self) -> str:
        if self.timed_out:
            return "hang"
        if self.signal is not None:
            return "abort"
        if "Traceback (most recent call last)" in self.stderr:
            return "traceback"
        if self.exit_code == 0:
            return "ok"
        if self.exit_code in (1, 2) and self.error_line is not None:
            return "error"
        return "unclear"

    @property
    def error_line(self) -> str | None:
        """The one `judgeapp: error: ...` line that ends stderr (after any lines of
        information the command printed before it failed), or None."""
        lines = self.stderr.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        errors = [line for line in lines if line.startswith("judgeapp: error: ")]
        if len(errors) == 1 and lines[-1] == errors[0]:
            return errors[0]
        return None

    def describe(self) -> str:
        how = f"exit {self.exit_code}" if self.signal is None else f"signal {self.signal}"
        return (
            f"{self.kind} ({how}, {self.seconds:.2f} s, {self.peak_rss >> 20} MiB) "
            f"argv={self.argv}\nstderr: {self.stderr[-2000:]!r}"
        )


class ForkServer:
    """A server process that has imported judgeapp; `run` forks it once per command."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env.update(
            OPENBLAS_NUM_THREADS="1",  # no BLAS threads in a process that forks
            PYTHONIOENCODING="utf-8",
            QT_QPA_PLATFORM="offscreen",
            MPLBACKEND="Agg",
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.hostile.runner"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(
        self,
        argv: list[str],
        workdir: Path,
        *,
        stdin: Path | str | None = None,
        memory: int = MEMORY_LIMIT,
        seconds: float = TIME_LIMIT,
        file_size: int | None = None,
        user: int | None = None,
    ) -> Outcome:
        """Run `judgeapp ARGV` in `workdir` (where its stdout and stderr are kept) with
        `stdin` read from a file (default: empty), at most `memory` bytes of address space,
        `seconds` of wall time and, when given, files of at most `file_size` bytes (writes
        beyond it fail with EFBIG, as on a full disk). `user`: the uid to run as (root
        ignores file permissions, so a read-only project is tried as another user)."""
        request = {
            "argv": argv,
            "workdir": str(workdir),
            "stdin": str(stdin) if stdin is not None else os.devnull,
            "memory": memory,
            "seconds": seconds,
            "file_size": file_size,
            "user": user,
        }
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        read = lambda name: (workdir / name).read_text("utf-8", errors="replace")  # noqa: E731
        return Outcome(
            argv=argv,
            exit_code=reply["exit_code"],
            signal=reply["signal"],
            timed_out=reply["timed_out"],
            stdout=read(".stdout"),
            stderr=read(".stderr"),
            seconds=reply["seconds"],
            peak_rss=reply["peak_rss"],
        )

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the server side ---------------------------------------------------------------------------
class _Descriptor(io.RawIOBase):
    """A file descriptor read with os.read, whatever it is open on."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = os.read(self.fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _child(request: dict) -> None:
    """In the forked process: limits, files, the command, and an exit as Python's."""
    import resource
    import signal
    import traceback

    resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    if request["file_size"] is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes fail with EFBIG instead
        size = request["file_size"]
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    workdir = Path(request["workdir"])
    os.chdir(workdir)
    fd_in = os.open(request["stdin"], os.O_RDONLY)
    os.dup2(fd_in, 0)
    for fd, name in ((1, ".stdout"), (2, ".stderr")):
        # (the file-size limit holds for these too: a command's messages stay far below it)
        out = os.open(workdir / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, fd)
    if request["user"] is not None:
        os.setgid(request["user"])
        os.setuid(request["user"])
        os.environ["HOME"] = str(workdir)
    try:
        sys.stdin = open(0, encoding="utf-8", errors="strict", closefd=False)
    except IsADirectoryError:
        # a directory as standard input: CPython itself refuses to start so ("Fatal Python
        # error: init_sys_streams"); a stdin read through the descriptor shows what
        # judgeapp says when it reads one (EISDIR)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(_Descriptor(0)), encoding="utf-8")
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
    code: int = 1
    try:
        from judgeapp.cli import main

        code = int(main(request["argv"]) or 0)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    # the interpreter's own shutdown, as after `python main.py`: it flushes the streams and
    # frees what the command left, which is where a corrupted heap makes glibc abort
    sys.exit(code)


def _warm_up() -> None:
    """Build the cases' template project in a throwaway folder and run `info` and `judge`
    on it here, so that what the commands import lazily (SQLAlchemy's SQLite dialect, the
    migrations, parts of numpy, ...) is imported before the forks. A case run as another
    user (`user`) could not import it: the interpreter may live where only root can read
    (CI's Python is under /root, mode 0700)."""
    import contextlib
    import io
    import tempfile

    from judgeapp.cli import main
    from tests.hostile.cases import ASSESSOR, build_template

    with tempfile.TemporaryDirectory(prefix="judgeapp-warm-up-") as folder:
        db = build_template(Path(folder) / "warm-up.db")
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            for argv in (["info", str(db)], ["judge", str(db), "--assessor", ASSESSOR]):
                stdin, sys.stdin = sys.stdin, io.StringIO("")
                try:
                    main(argv)
                finally:
                    sys.stdin = stdin


def _serve() -> None:
    import signal

    # what a case needs, imported once here (never Qt: a forked Qt is not safe)
    import judgeapp.cli
    import judgeapp.formats
    import judgeapp.measures
    import judgeapp.services.imports
    import judgeapp.services.judging
    import judgeapp.store

    judgeapp.cli.build_parser()  # imports every command module
    _warm_up()
    for line in sys.stdin:
        request = json.loads(line)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(request)  # never returns: it leaves through the interpreter's exit
        timed_out = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > request["seconds"]:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.005)
        reply = {
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": timed_out,
            "seconds": time.monotonic() - start,
            "peak_rss": usage.ru_maxrss * 1024,
        }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
