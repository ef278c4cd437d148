"""Every command line of the README, run in order as written.

The README's shell blocks are run line by line from a temporary checkout (the program's
files linked in) with `../shared` beside it, as a newcomer runs them from the repository
root; any command that fails fails the test with its output. Only what cannot run inside a
test is treated otherwise, each for a stated reason: setting up the environment (a virtual
environment, pip; the test runs in the installed one), the test suite itself, and the
window (started offscreen; it must still be running after a few seconds, then it is
closed). The PostgreSQL example runs against a throwaway server of the test's own, its host
put in place of the README's `db.example.org`, when PostgreSQL is installed.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# linked into the temporary checkout (the README's commands read and write beside them)
CHECKOUT = ("main.py", "judgeapp", "migrations", "pyproject.toml")
SETUP = ("python3 -m venv", ". .venv/bin/activate", "python3 -m pip install")
SUITE = ("python3 -m pytest",)
GUI_SECONDS = 8.0
COMMAND_TIMEOUT = 600


def readme_commands(text: str) -> list[str]:
    """The command lines of the README's ```sh blocks, in order: comments dropped,
    continued lines joined."""
    commands: list[str] = []
    in_block = False
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            in_block = line == "```sh" and not in_block
            continue
        if not in_block or not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        commands.append(pending + line)
        pending = ""
    return commands


def is_gui(command: str) -> bool:
    """`python3 main.py` alone or with a project: the window."""
    words = shlex.split(command, comments=True)
    return words[:2] == ["python3", "main.py"] and (
        len(words) == 2 or (len(words) == 3 and words[2].endswith(".db"))
    )


@pytest.fixture
def checkout(tmp_path, shared_data):
    """tmp/checkout (the program's files) with tmp/shared beside it, a `python3` that is
    this interpreter, and settings, data and config kept inside tmp."""
    work = tmp_path / "checkout"
    work.mkdir()
    for name in CHECKOUT:
        (work / name).symlink_to(ROOT / name)
    (tmp_path / "shared").symlink_to(shared_data.parent)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python3 = bin_dir / "python3"  # a script, not a link: a venv's python finds its
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # pyvenv.cfg by path
    python3.chmod(0o755)
    env = dict(os.environ)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        JUDGEAPP_DATA_DIR=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        HOME=str(tmp_path / "home"),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(work),
    )
    (tmp_path / "home").mkdir()
    return work, env


def run_gui(command: str, work: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + GUI_SECONDS
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    if proc.poll() is not None:
        out, err = proc.communicate()
        pytest.fail(f"the window closed by itself ({proc.returncode}): {command}\n{out}\n{err}")
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def test_the_readme_parses_into_the_expected_kinds_of_lines():
    commands = readme_commands(README.read_text(encoding="utf-8"))
    assert len(commands) > 40
    not_run = [c for c in commands if c.startswith(SETUP + SUITE)]
    assert len(not_run) == 6  # venv, activate, install, install with tests, pytest, postgres
    assert [c for c in commands if is_gui(c)] == [
        "python3 main.py",
        "python3 main.py robust.db        # opens the project in the window",
    ]
    assert all(c.startswith(("python3 ", "cp ", "printf ", ". ")) for c in commands)


def test_every_command_line_of_the_readme_runs_as_written(checkout):
    work, env = checkout
    commands = readme_commands(README.read_text(encoding="utf-8"))
    server = None
    try:
        for command in commands:
            if command.startswith(SETUP + SUITE):
                continue  # the environment is installed; this is the suite
            if is_gui(command):
                run_gui(command, work, env)
                continue
            if "db.example.org" in command:
                if server is None:
                    server = _postgres_for_the_readme()
                    if server is None:
                        continue  # no PostgreSQL on this machine (its own tests say so)
                command = command.replace("db.example.org", f"127.0.0.1:{server.port}")
            proc = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=COMMAND_TIMEOUT,
            )
            assert proc.returncode == 0, f"{command}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            if re.search(r"evaluate -m map qrels\.txt \S+ \S+$", command):
                lines = proc.stdout.splitlines()
                assert [line.split("\t")[2] for line in lines[::2]] == ["aplrob03a", "uwmtCR0"]
    finally:
        if server is not None:
            server.stop()
    for picture in ("judging-2x.png", "dashboard-1366x768.png", "dashboard.png"):
        assert (work / picture).stat().st_size > 10_000


def _postgres_for_the_readme():
    """A throwaway server with the README's owner role and its `robust` database."""
    from tests.pgserver import PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        return None
    server = PgServer(bindir).start()
    try:
        server.execute("CREATE ROLE owner LOGIN CREATEROLE", 'CREATE DATABASE robust OWNER "owner"')
    except BaseException:
        server.stop()  # the test never gets it to stop
        raise
    return server
