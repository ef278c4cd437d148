"""A throwaway PostgreSQL server for tests and benchmarks: its own data directory, 127.0.0.1
and a free port, stopped (and deleted) at the end. Nothing relies on a server left running.

PostgreSQL refuses to run as root, so under root the server runs as the unprivileged user
`nobody`. The binaries are found in $JUDGEAPP_PG_BINDIR, `pg_config --bindir`, or Debian's
/usr/lib/postgresql/<version>/bin (the newest).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

HOW_TO_GET = (
    "PostgreSQL server binaries (initdb, pg_ctl) were not found: install Debian's "
    "`postgresql` package (or set JUDGEAPP_PG_BINDIR to the folder holding initdb)"
)


def find_bindir() -> Path | None:
    candidates: list[Path] = []
    if os.environ.get("JUDGEAPP_PG_BINDIR"):
        candidates.append(Path(os.environ["JUDGEAPP_PG_BINDIR"]))
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
            candidates.append(Path(out.stdout.strip()))
        except OSError:
            pass
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = sorted(
            (p for p in debian.iterdir() if p.name.split(".")[0].isdigit()),
            key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()],
            reverse=True,
        )
        candidates += [v / "bin" for v in versions]
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One server. `url(db)` gives an SQLAlchemy URL; `create_database()` a fresh database."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        self.durable = durable  # fsync on (benchmarks of commit latency) or off (tests)
        self.port = 0
        self.base: Path | None = None
        self._as_nobody = os.geteuid() == 0

    # -- life cycle ------------------------------------------------------------------------
    def _run(self, *args: str) -> subprocess.CompletedProcess:
        kwargs: dict = {"capture_output": True, "text": True}
        if self._as_nobody:
            kwargs.update(user=65534, group=65534, extra_groups=[])
        result = subprocess.run([str(self.bindir / args[0]), *args[1:]], **kwargs)
        if result.returncode != 0:
            log = ""
            if self.base is not None and (self.base / "log").exists():
                log = (self.base / "log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{args[0]} failed: {result.stderr.strip()} {log}")
        return result

    def start(self) -> PgServer:
        self.base = Path(tempfile.mkdtemp(prefix="judgeapp-pg-"))
        if self._as_nobody:
            os.chown(self.base, 65534, 65534)
        data = self.base / "data"
        self._run(
            "initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-locale", "--no-sync",
        )  # fmt: skip
        self.port = _free_port()
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c max_connections=200"
        )
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(data), "-o", options, "-l", str(self.base / "log"), "-w", "start"
        )
        return self

    def stop(self) -> None:
        if self.base is None:
            return
        try:
            self._run("pg_ctl", "-D", str(self.base / "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- databases -------------------------------------------------------------------------
    def url(self, database: str = "postgres", user: str = "postgres", password: str = "") -> str:
        auth = f"{user}:{password}" if password else user
        return f"postgresql+psycopg://{auth}@127.0.0.1:{self.port}/{database}"

    def execute(self, *statements: str, database: str = "postgres") -> None:
        """Run statements as the superuser, each on its own (CREATE DATABASE cannot be in a
        transaction)."""
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True
        ) as conn:
            for sql in statements:
                conn.execute(sql)

    def create_database(self, owner: str = "postgres") -> str:
        """A new empty database owned by `owner`; returns its name."""
        name = "p_" + uuid.uuid4().hex[:16]
        self.execute(f'CREATE DATABASE "{name}" OWNER "{owner}"')
        return name
